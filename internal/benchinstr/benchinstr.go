// Package benchinstr counts the instructions a Go benchmark executes per
// operation, a measure that does not move with the load of the machine.
//
// A benchmark is run alone at two fixed iteration counts, N and 2N, and
// the instructions of each whole run are counted: (I(2N) - I(N)) / N is
// then the count per operation, since process start, test-binary set-up,
// the benchmark's set-up outside its loop and the testing package's first
// run with b.N = 1 are the same in both runs and cancel.
//
// Two counters are available. Perf reads the kernel's hardware counter of
// retired instructions (perf_event_open, PERF_COUNT_HW_INSTRUCTIONS, user
// space only, inherited by every thread of the run); virtual machines often
// do not expose it. Callgrind runs the binary under valgrind's callgrind,
// which counts the instructions it executes ("Ir") on any machine, about
// fifty times slower.
package benchinstr

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Unit is the unit of the metric on a benchmark result line.
const Unit = "instructions/op"

// A Method names how instructions are counted.
type Method string

const (
	// Auto is Perf where the kernel exposes the hardware counter, and
	// Callgrind otherwise.
	Auto Method = "auto"
	// Callgrind runs each measured run under valgrind --tool=callgrind.
	Callgrind Method = "callgrind"
	// Perf counts with perf_event_open's hardware instruction counter.
	Perf Method = "perf"
)

// ParseMethod parses the value of a -instructions flag: auto, callgrind or
// perf ("true", as a boolean flag stands alone, is auto).
func ParseMethod(s string) (Method, error) {
	switch s {
	case "", "true", string(Auto):
		return Auto, nil
	case string(Callgrind), string(Perf):
		return Method(s), nil
	}
	return "", fmt.Errorf("unknown instruction counter %q (want auto, callgrind or perf)", s)
}

// A MissingToolError reports that the program a counter needs is not
// installed.
type MissingToolError struct {
	Tool    string // the program, "valgrind"
	Install string // a command that installs it
	Why     string // what it is needed for
}

func (e *MissingToolError) Error() string {
	return fmt.Sprintf("%s is not installed (%s): install it, e.g. with `%s`", e.Tool, e.Why, e.Install)
}

// ErrNoCounter reports that the kernel exposes no hardware instruction
// counter (typical of virtual machines), so -instructions=perf cannot run.
var ErrNoCounter = errors.New("the kernel exposes no hardware instruction counter to perf_event_open (virtual machines often do not); use callgrind")

// A Counter counts the user-space instructions of one run of a program,
// over all its threads.
type Counter interface {
	// Count runs cmd to completion, with its standard output captured and
	// returned, and returns the instructions it executed. cmd must not
	// have been started; Count may replace its path and arguments (to run
	// it under a tool) and sets its Stdout and Stderr.
	Count(ctx context.Context, cmd *exec.Cmd) (count Count, stdout []byte, err error)
	// Method is the counter's method, Callgrind or Perf.
	Method() Method
}

// New returns the counter of m. Auto chooses Perf when the hardware counter
// can be opened and Callgrind otherwise. Callgrind needs valgrind on the
// PATH (or $NETBENCH_VALGRIND): without it New returns a
// *MissingToolError, so that nothing is measured with a counter that
// cannot run.
func New(m Method) (Counter, error) {
	switch m {
	case Perf:
		if err := perfAvailable(); err != nil {
			return nil, err
		}
		return perfCounter{event: hwInstructions}, nil
	case Callgrind:
		return newCallgrind()
	case Auto, "":
		if perfAvailable() == nil {
			return perfCounter{event: hwInstructions}, nil
		}
		c, err := newCallgrind()
		var missing *MissingToolError
		if errors.As(err, &missing) {
			missing.Why = "the kernel exposes no hardware instruction counter, so instructions are counted under valgrind's callgrind"
		}
		return c, err
	}
	return nil, fmt.Errorf("unknown instruction counter %q", m)
}

// valgrindPath returns the valgrind to run: $NETBENCH_VALGRIND, or
// valgrind on the PATH.
func valgrindPath() (string, error) {
	name := "valgrind"
	if v := os.Getenv("NETBENCH_VALGRIND"); v != "" {
		name = v
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", &MissingToolError{Tool: "valgrind", Install: "apt-get install -y valgrind", Why: "-instructions=callgrind runs the benchmarks under valgrind's callgrind"}
	}
	return p, nil
}

// callgrind counts under valgrind --tool=callgrind.
type callgrind struct{ valgrind string }

func newCallgrind() (Counter, error) {
	p, err := valgrindPath()
	if err != nil {
		return nil, err
	}
	return callgrind{valgrind: p}, nil
}

func (callgrind) Method() Method { return Callgrind }

// Count runs cmd under callgrind, which writes its totals to a temporary
// file that Count reads and removes. Go's asynchronous preemption is turned
// off in the child (GODEBUG=asyncpreemptoff=1): callgrind can fail an
// assertion on the signals it uses, and preemption at timer ticks is work
// that depends on the clock, not on the code measured. Garbage collection
// stops the world (GODEBUG=gcstoptheworld=1): a concurrent collection at
// GOMAXPROCS 1 splits its marking between a background worker scheduled by
// the clock and assists, and under callgrind's 50x slower clock that made
// the count of an allocating benchmark (btree's Get) vary by 40% from run
// to run (3161 to 4478 instructions/op); with the world stopped the same
// benchmark varies by 0.3% and still pays for its collections.
// valgrind's gdbserver
// is off (--vgdb=no): it makes named pipes in $TMPDIR that a cancelled run,
// killed, would leave behind.
func (c callgrind) Count(ctx context.Context, cmd *exec.Cmd) (Count, []byte, error) {
	dir, err := os.MkdirTemp("", "netbench-callgrind-")
	if err != nil {
		return Count{}, nil, err
	}
	defer os.RemoveAll(dir)
	outFile := filepath.Join(dir, "callgrind.out")
	args := []string{"--tool=callgrind", "--vgdb=no", "--callgrind-out-file=" + outFile, "--combine-dumps=yes", "--dump-line=no", "--compress-strings=no", "--trace-children=no", cmd.Path}
	run := exec.CommandContext(ctx, c.valgrind, append(args, cmd.Args[1:]...)...)
	run.Dir = cmd.Dir
	run.Env = withGODEBUG(cmd.Env, "asyncpreemptoff=1,gcstoptheworld=1")
	run.Cancel = func() error { return run.Process.Kill() }
	run.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	run.Stdout, run.Stderr = &stdout, &stderr
	if err := run.Run(); err != nil {
		if ctx.Err() != nil {
			return Count{}, nil, context.Cause(ctx)
		}
		return Count{}, stdout.Bytes(), fmt.Errorf("valgrind --tool=callgrind %s: %w\n%s%s", strings.Join(cmd.Args, " "), err, tail(stdout.Bytes()), tail(stderr.Bytes()))
	}
	f, err := os.Open(outFile)
	if err != nil {
		return Count{}, stdout.Bytes(), fmt.Errorf("callgrind wrote no output file: %w\n%s", err, tail(stderr.Bytes()))
	}
	defer f.Close()
	n, err := ParseCallgrind(f)
	return n, stdout.Bytes(), err
}

// withGODEBUG returns env (the process's own when nil) with setting added
// to GODEBUG, after what it held.
func withGODEBUG(env []string, setting string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+1)
	godebug := setting
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "GODEBUG="); ok {
			if v != "" {
				godebug = v + "," + setting
			}
			continue
		}
		out = append(out, e)
	}
	return append(out, "GODEBUG="+godebug)
}

// tail returns the last 4 KiB of b, as text ending in a newline.
func tail(b []byte) string {
	const keep = 4 << 10
	if len(b) > keep {
		b = append([]byte("…"), b[len(b)-keep:]...)
	}
	s := string(b)
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}

// The names of the callgrind dumps that a test binary with netbench's
// timer hooks (benchrun.Package.WithTimerLabels) requests: one when a
// benchmark's timer stops, holding the instructions of every thread
// since it started (the hooks zero the counts then). After MaxTimedDumps
// the hooks stop zeroing and dumping, so that a benchmark that stops its
// timer every iteration does not write a file each time; the last dump
// is then CappedDump, and the program's final dump holds everything from
// there on, set-up included.
const (
	TimedDump     = "netbench-timed"
	CappedDump    = "netbench-timed-capped"
	MaxTimedDumps = 256
)

// A Count is what a Counter counted in one run.
type Count struct {
	Instructions uint64
	// Timed is set when Instructions counts only the timed regions of
	// the benchmark (a binary with the timer hooks, under callgrind):
	// what runs between b.StopTimer and b.StartTimer is left out.
	Timed bool
	// Capped is set when the hooks stopped at MaxTimedDumps, so that
	// Instructions includes, from there on, what ran with the timer
	// stopped and after the benchmark.
	Capped bool
}

// ParseCallgrind returns the instruction count ("Ir") of a callgrind
// output file written with --combine-dumps=yes (or with one dump). When
// it holds dumps named TimedDump or CappedDump, the count is the sum of
// their "totals:" lines (plus, after a CappedDump, the dumps that follow
// it), and Timed is set. Otherwise a file of one dump gives the value on
// its "summary:" line, or without one its "totals:" line, and a file of
// several the sum of their totals. The first event must be Ir, as the
// "events:" line says (callgrind's default; cache and branch simulation
// add events after it).
func ParseCallgrind(r io.Reader) (Count, error) {
	type part struct{ trigger, summary, totals string }
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var (
		events []string
		parts  []part
	)
	cur := func() *part {
		if len(parts) == 0 {
			parts = append(parts, part{})
		}
		return &parts[len(parts)-1]
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "part:"):
			parts = append(parts, part{})
		case strings.HasPrefix(line, "desc: Trigger:"):
			cur().trigger = strings.TrimSpace(strings.TrimPrefix(line, "desc: Trigger:"))
		case strings.HasPrefix(line, "events:"):
			if events == nil {
				events = strings.Fields(strings.TrimPrefix(line, "events:"))
			}
		case strings.HasPrefix(line, "summary:"):
			cur().summary = strings.TrimPrefix(line, "summary:")
		case strings.HasPrefix(line, "totals:"):
			cur().totals = strings.TrimPrefix(line, "totals:")
		}
	}
	if err := sc.Err(); err != nil {
		return Count{}, fmt.Errorf("reading callgrind output: %w", err)
	}
	if len(events) == 0 || events[0] != "Ir" {
		return Count{}, fmt.Errorf("callgrind output: events %q, want Ir first", events)
	}
	if len(parts) == 0 {
		return Count{}, errors.New("callgrind output has neither a summary: nor a totals: line")
	}
	first := func(field, what string) (uint64, error) {
		f := strings.Fields(field)
		if len(f) == 0 {
			return 0, fmt.Errorf("callgrind output: a dump without a %s line", what)
		}
		n, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("callgrind output: instruction count %q: %w", f[0], err)
		}
		return n, nil
	}
	var c Count
	for _, p := range parts {
		switch p.trigger {
		case "Client Request: " + TimedDump:
			c.Timed = true
		case "Client Request: " + CappedDump:
			c.Timed, c.Capped = true, true
		}
	}
	if len(parts) == 1 && !c.Timed {
		field := parts[0].summary
		if strings.TrimSpace(field) == "" {
			field = parts[0].totals
		}
		if strings.TrimSpace(field) == "" {
			return Count{}, errors.New("callgrind output has neither a summary: nor a totals: line")
		}
		n, err := first(field, "summary:")
		return Count{Instructions: n}, err
	}
	capped := false
	for _, p := range parts {
		timed := p.trigger == "Client Request: "+TimedDump || p.trigger == "Client Request: "+CappedDump
		if c.Timed && !timed && !capped {
			continue
		}
		n, err := first(p.totals, "totals:")
		if err != nil {
			return Count{}, err
		}
		c.Instructions += n
		capped = capped || p.trigger == "Client Request: "+CappedDump
	}
	return c, nil
}
