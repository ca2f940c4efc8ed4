package benchproc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// PerfCount is one event's line of `perf stat -x,` output.
type PerfCount struct {
	Event string
	Value float64
	// Status is empty for a count, else what perf printed instead of one:
	// "<not counted>" (the event never ran) or "<not supported>".
	Status string
}

// Counted reports whether the line holds a count.
func (c PerfCount) Counted() bool { return c.Status == "" }

// ParsePerfCSV reads the event lines of `perf stat -x,` output (value,
// unit, event name, run time, percentage running, and metric fields), by
// event name; an event listed twice has its counts added. Lines of
// another shape (perf's notes, such as "Events disabled", blank lines)
// are skipped, and so are lines whose first field is neither a number nor
// a <...> status.
func ParsePerfCSV(out string) map[string]PerfCount {
	counts := map[string]PerfCount{}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Split(strings.TrimSpace(l), ",")
		if len(f) < 3 || f[2] == "" {
			continue
		}
		c := PerfCount{Event: f[2]}
		if strings.HasPrefix(f[0], "<") && strings.HasSuffix(f[0], ">") {
			c.Status = f[0]
		} else {
			v, err := strconv.ParseFloat(f[0], 64)
			if err != nil {
				continue
			}
			c.Value = v
		}
		if prev, ok := counts[c.Event]; ok && prev.Counted() {
			if c.Counted() {
				c.Value += prev.Value
			} else {
				c = prev
			}
		}
		counts[c.Event] = c
	}
	return counts
}

// perfProbeTimeout bounds each perf command of ProbePerf.
const perfProbeTimeout = 10 * time.Second

// ProbePerf checks that perf can count tracepoints here, the way StartPerf
// uses it: `perf stat -x, -e raw_syscalls:sys_enter -- true` must count
// system calls, and perf must take --control and -D -1 (perf 5.10 and
// later). It returns the events of want that this kernel and perf have
// (each tried alone, as `perf stat -x, -e EVENT -- true`: a tracepoint
// the kernel lacks makes perf refuse the whole list, and a software event
// it cannot count shows <not supported>). An error says why perf cannot
// be used at all.
func ProbePerf(want []string) ([]string, error) {
	if _, err := exec.LookPath("perf"); err != nil {
		return nil, errors.New("perf not found")
	}
	const probe = "raw_syscalls:sys_enter"
	out, err := perfTrue(nil, "-e", probe)
	if err != nil {
		return nil, err
	}
	if c := ParsePerfCSV(out)[probe]; !c.Counted() || c.Value <= 0 {
		return nil, fmt.Errorf("perf stat -e %s counted no system calls of `true`: %s", probe, firstLines(out, 3))
	}
	// perf reads the control fd (3 in the child) and writes acks to 4.
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer ctlR.Close()
	defer ctlW.Close()
	ackR, ackW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer ackR.Close()
	defer ackW.Close()
	if _, err := perfTrue([]*os.File{ctlR, ackW}, "--control", "fd:3,4", "-D", "-1", "-e", probe); err != nil {
		return nil, fmt.Errorf("perf lacks --control or -D -1 (perf 5.10 or later has them): %w", err)
	}
	var have []string
	for _, ev := range want {
		if ev == probe {
			have = append(have, ev)
			continue
		}
		out, err := perfTrue(nil, "-e", ev)
		if err != nil {
			continue
		}
		if c, ok := ParsePerfCSV(out)[ev]; ok && c.Status != "<not supported>" {
			have = append(have, ev)
		}
	}
	return have, nil
}

// perfTrue runs `perf stat -x, ARGS -- true` and returns its stderr, where
// perf writes its counts.
func perfTrue(extra []*os.File, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), perfProbeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "perf", append(append([]string{"stat", "-x,"}, args...), "--", "true")...)
	cmd.ExtraFiles = extra
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s: %w: %s", strings.Join(cmd.Args, " "), err, firstLines(stderr.String(), 3))
	}
	return stderr.String(), nil
}

func firstLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	if len(ls) > n {
		ls = ls[:n]
	}
	return strings.Join(ls, " / ")
}

// perfAckTimeout bounds the wait for perf's answer to enable or disable,
// and perfExitTimeout its exit after SIGINT.
const (
	perfAckTimeout  = 5 * time.Second
	perfExitTimeout = 10 * time.Second
)

// Perf is a running `perf stat -x, -p PID` whose counters start disabled:
// Enable starts counting, Stop stops it and returns the counts. Starting
// perf takes some milliseconds before it counts (about 14 ms measured on
// a 2-CPU machine); starting it ahead of a window and enabling it at the
// window's start keeps that out of the window.
type Perf struct {
	cmd    *exec.Cmd
	ctl    *os.File // perf's control fd, our end
	ack    *os.File // perf's ack fd, our end
	acks   *bufio.Reader
	stderr *syncBuffer
	done   chan struct{}
	err    error // cmd.Wait's, once done is closed
}

// StartPerf starts perf stat counting events of every thread of process
// pid (threads it starts later too), on CPU cpu when pin is set; the
// counters are disabled until Enable. The end of ctx kills perf.
func StartPerf(ctx context.Context, pid int, events []string, cpu int, pin bool) (*Perf, error) {
	if len(events) == 0 {
		return nil, errors.New("perf: no events")
	}
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	ackR, ackW, err := os.Pipe()
	if err != nil {
		ctlR.Close()
		ctlW.Close()
		return nil, err
	}
	name, argv := Pinned(pin, cpu, "perf", "stat", "-x,", "--control", "fd:3,4", "-D", "-1",
		"-p", strconv.Itoa(pid), "-e", strings.Join(events, ","))
	cmd := exec.CommandContext(ctx, name, argv...)
	cmd.ExtraFiles = []*os.File{ctlR, ackW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p := &Perf{cmd: cmd, ctl: ctlW, ack: ackR, acks: bufio.NewReader(ackR), stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	err = cmd.Start()
	ctlR.Close() // perf's ends: ours are closed so that its exit shows as EOF
	ackW.Close()
	if err != nil {
		ctlW.Close()
		ackR.Close()
		return nil, err
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// command sends perf a control command and waits for its ack.
func (p *Perf) command(c string) error {
	if _, err := fmt.Fprintln(p.ctl, c); err != nil {
		return p.fail(fmt.Errorf("%s: %w", c, err))
	}
	if err := p.ack.SetReadDeadline(time.Now().Add(perfAckTimeout)); err != nil {
		return p.fail(err)
	}
	l, err := p.acks.ReadString('\n')
	if err != nil {
		return p.fail(fmt.Errorf("%s: no ack: %w", c, err))
	}
	// perf 6.1 sends its second and later acks with a NUL byte before them.
	if a := strings.Trim(l, "\x00 \n"); a != "ack" {
		return p.fail(fmt.Errorf("%s: perf answered %q, want ack", c, l))
	}
	return nil
}

// Enable starts counting.
func (p *Perf) Enable() error { return p.command("enable") }

// Stop stops counting, makes perf print its counts (SIGINT), waits for it
// to exit and returns the counts by event name.
func (p *Perf) Stop() (map[string]PerfCount, error) {
	if err := p.command("disable"); err != nil {
		return nil, err
	}
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		return nil, p.fail(err)
	}
	select {
	case <-p.done:
	case <-time.After(perfExitTimeout):
		return nil, p.fail(fmt.Errorf("no exit %v after SIGINT", perfExitTimeout))
	}
	p.closeFiles()
	// perf stat exits with SIGINT's status after printing; its counts are
	// what matters.
	counts := ParsePerfCSV(p.stderr.String())
	if len(counts) == 0 {
		return nil, fmt.Errorf("perf printed no counts (%v): %s", p.err, firstLines(p.stderr.String(), 3))
	}
	return counts, nil
}

// Close kills perf if it still runs and waits for it (for error paths;
// after Stop it does nothing).
func (p *Perf) Close() {
	select {
	case <-p.done:
	default:
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
	p.closeFiles()
}

func (p *Perf) closeFiles() {
	p.ctl.Close()
	p.ack.Close()
}

// fail kills perf and returns err with perf's command line and stderr.
func (p *Perf) fail(err error) error {
	p.Close()
	return fmt.Errorf("%s: %w; its stderr: %s", strings.Join(p.cmd.Args, " "), err, firstLines(p.stderr.String(), 3))
}
