package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/netkit/netkit/internal/benchinstr"
	"github.com/netkit/netkit/internal/benchnoise"
	"github.com/netkit/netkit/internal/benchrun"
)

// instrFlag is the value of -instructions: off, or on with a counter
// (-instructions is auto; -instructions=callgrind or =perf forces one).
type instrFlag struct {
	on     bool
	method benchinstr.Method
}

func (f *instrFlag) String() string {
	if f == nil || !f.on {
		return "false"
	}
	return string(f.method)
}

func (f *instrFlag) Set(s string) error {
	if s == "false" {
		f.on, f.method = false, ""
		return nil
	}
	m, err := benchinstr.ParseMethod(s)
	if err != nil {
		return err
	}
	f.on, f.method = true, m
	return nil
}

// IsBoolFlag lets -instructions stand alone.
func (f *instrFlag) IsBoolFlag() bool { return true }

// The iteration count N of an instruction count is chosen once per
// benchmark and kept for every round and both revisions. What varies from
// run to run in a whole run's count (the forced garbage collections of the
// testing package and the background work around them) is some 10^5
// instructions whatever N, so N is chosen for the instructions of the
// loop: N * instructions/op about instrTarget, which also bounds the
// callgrind run, whose time follows the instructions it executes. The
// first count of a benchmark runs at an N estimated from the largest
// ns/op of its first round (both revisions under compare), instrProbe of
// native work; when the N that instrTarget asks for is more than 1.5 times
// that, the count is made again at the new N and only that one is kept.
//
// They are variables so that tests can make their runs shorter.
var (
	instrProbe  = 5 * time.Millisecond
	instrTarget = 1e8
)

const instrMaxIters = 100_000_000

// instrMeter adds an instructions/op measurement to every result line.
type instrMeter struct {
	counter benchinstr.Counter
	timeout time.Duration
	prog    *progress
	iters   map[string]int64     // package and result name -> N
	settled map[string]bool      // N was checked against instrTarget
	samples map[string][]float64 // package and result name -> instructions/op
	order   []string             // keys of samples, as first measured
	workers int                  // counts run at once
}

// newInstrMeter returns the meter of f, or nil when f is off. A counter
// that cannot run (valgrind missing, no hardware counter under =perf) is
// a failure reported before anything is built.
func newInstrMeter(f instrFlag, timeout time.Duration, prog *progress) (*instrMeter, error) {
	if !f.on {
		return nil, nil
	}
	c, err := benchinstr.New(f.method)
	if err != nil {
		return nil, fail(fmt.Errorf("-instructions=%s: %w", f.method, err))
	}
	return &instrMeter{counter: c, timeout: timeout, prog: prog, iters: map[string]int64{}, settled: map[string]bool{}, samples: map[string][]float64{},
		workers: max(1, benchnoise.AvailableCPUs())}, nil
}

// runPackage runs p's benchmarks as p.Run does and, with a meter, adds
// each result line's instructions/op before writing the lines to w.
func runPackage(ctx context.Context, p benchrun.Package, opts benchrun.Options, w io.Writer, onResult func(string), m *instrMeter) error {
	if m == nil {
		return p.Run(ctx, opts, w, onResult)
	}
	var buf bytes.Buffer
	if err := p.Run(ctx, opts, &buf, onResult); err != nil {
		return err
	}
	m.calibrate(p.ImportPath, buf.Bytes())
	out, err := m.annotate(ctx, opts, []benchrun.Package{p}, [][]byte{buf.Bytes()}, nil)
	if err != nil {
		return err
	}
	if _, err := w.Write(out[0]); err != nil {
		return fmt.Errorf("writing the results: %w", err)
	}
	return nil
}

// runRound runs every package of revs once, in order, appending the
// results to each revision's output. With a meter, the wall-clock runs of
// all revisions come first, so that one N suits both sides, and then
// every result line gets its instructions/op.
func runRound(ctx context.Context, revs []*revision, opts benchrun.Options, m *instrMeter) error {
	if m == nil {
		for _, r := range revs {
			for _, p := range r.pkgs {
				if err := p.Run(ctx, opts, &r.out, nil); err != nil {
					return fmt.Errorf("revision %s: %w", r.arg, err)
				}
			}
		}
		return nil
	}
	outs := make([][]bytes.Buffer, len(revs))
	for i, r := range revs {
		outs[i] = make([]bytes.Buffer, len(r.pkgs))
		for j, p := range r.pkgs {
			if err := p.Run(ctx, opts, &outs[i][j], nil); err != nil {
				return fmt.Errorf("revision %s: %w", r.arg, err)
			}
		}
	}
	for i, r := range revs {
		for j, p := range r.pkgs {
			m.calibrate(p.ImportPath, outs[i][j].Bytes())
		}
	}
	var (
		pkgs   []benchrun.Package
		flat   [][]byte
		labels []string
	)
	for i, r := range revs {
		for j, p := range r.pkgs {
			pkgs = append(pkgs, p)
			flat = append(flat, outs[i][j].Bytes())
			labels = append(labels, "revision "+r.arg)
		}
	}
	annotated, err := m.annotate(ctx, opts, pkgs, flat, labels)
	if err != nil {
		return err
	}
	k := 0
	for _, r := range revs {
		for range r.pkgs {
			r.out.Write(annotated[k])
			k++
		}
	}
	return nil
}

// calibrate fixes N for each benchmark of out (results of package pkg) that
// has none yet, from its largest ns/op in out.
func (m *instrMeter) calibrate(pkg string, out []byte) {
	worst := map[string]float64{}
	for line := range strings.Lines(string(out)) {
		name, ok := resultName(line)
		if !ok {
			continue
		}
		key := pkg + "\t" + name
		if _, done := m.iters[key]; done {
			continue
		}
		worst[key] = max(worst[key], nsPerOp(line))
	}
	for key, ns := range worst {
		m.iters[key] = itersFor(ns)
	}
}

// itersFor returns the first N of a benchmark of ns nanoseconds per
// operation (0 when unknown): instrProbe / ns, within [1, instrMaxIters].
func itersFor(ns float64) int64 {
	if !(ns > 0) {
		return 1000
	}
	return clampIters(float64(instrProbe.Nanoseconds()) / ns)
}

// itersForInstructions returns N for a benchmark of perOp instructions per
// operation: instrTarget / perOp, within [1, instrMaxIters].
func itersForInstructions(perOp float64) int64 {
	if !(perOp > 0) {
		return instrMaxIters
	}
	return clampIters(instrTarget / perOp)
}

func clampIters(n float64) int64 {
	return int64(min(max(math.Round(n), 1), instrMaxIters))
}

// A countJob is the instruction count of one result line.
type countJob struct {
	out, line int // index of the output and of the line in it
	pkg       benchrun.Package
	label     string // what errors begin with, or ""
	name, key string
	n         int64   // iterations (of the first count, then of the kept one)
	v         float64 // instructions/op
}

// annotate returns outs, outputs of pkgs[i].Run, with "<v> instructions/op"
// added to every result line; labels[i], when labels is not nil, begins
// the errors of outs[i]'s counts. The counts run m.workers at a time: what a
// count measures does not depend on what else runs, and the wall-clock
// runs are over by then. A benchmark whose N is not settled yet is counted
// first, once, and then the rest at the N that count chose.
func (m *instrMeter) annotate(ctx context.Context, opts benchrun.Options, pkgs []benchrun.Package, outs [][]byte, labels []string) ([][]byte, error) {
	once := opts
	once.Timeout = m.timeout
	lines := make([][]string, len(outs))
	var jobs, first, rest []*countJob
	firstOf := map[string]bool{}
	for i, out := range outs {
		for line := range strings.Lines(string(out)) {
			lines[i] = append(lines[i], line)
			name, ok := resultName(line)
			if !ok {
				continue
			}
			j := &countJob{out: i, line: len(lines[i]) - 1, pkg: pkgs[i], name: name, key: pkgs[i].ImportPath + "\t" + name}
			if labels != nil {
				j.label = labels[i]
			}
			if m.iters[j.key] == 0 {
				m.iters[j.key] = itersFor(nsPerOp(line))
			}
			jobs = append(jobs, j)
			if !m.settled[j.key] && !firstOf[j.key] {
				firstOf[j.key] = true
				first = append(first, j)
			} else {
				rest = append(rest, j)
			}
		}
	}
	for _, j := range first {
		j.n = m.iters[j.key]
	}
	if err := m.countAll(ctx, once, first, true); err != nil {
		return nil, err
	}
	for _, j := range first {
		m.iters[j.key], m.settled[j.key] = j.n, true
	}
	for _, j := range rest {
		j.n = m.iters[j.key]
	}
	if err := m.countAll(ctx, once, rest, false); err != nil {
		return nil, err
	}
	for _, j := range jobs {
		if _, seen := m.samples[j.key]; !seen {
			m.order = append(m.order, j.key)
		}
		m.samples[j.key] = append(m.samples[j.key], j.v)
		lines[j.out][j.line] = strings.TrimRight(lines[j.out][j.line], "\r\n") + "\t" + strconv.FormatFloat(j.v, 'f', 2, 64) + " " + benchinstr.Unit + "\n"
	}
	annotated := make([][]byte, len(outs))
	for i := range outs {
		annotated[i] = []byte(strings.Join(lines[i], ""))
	}
	return annotated, nil
}

// countAll counts jobs, m.workers at a time, and returns the first error;
// an error stops the counts not yet begun and cancels those under way.
// With settle, a count whose N is far from what instrTarget asks for is
// made again at the new N (see instrTarget), which goes in the job.
func (m *instrMeter) countAll(ctx context.Context, opts benchrun.Options, jobs []*countJob, settle bool) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		next  atomic.Int64
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for range min(m.workers, len(jobs)) {
		wg.Go(func() {
			for {
				k := int(next.Add(1)) - 1
				if k >= len(jobs) || ctx.Err() != nil {
					return
				}
				if err := m.count(ctx, opts, jobs[k], settle); err != nil {
					if jobs[k].label != "" && ctx.Err() == nil {
						err = fmt.Errorf("%s: %w", jobs[k].label, err)
					}
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					cancel(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		first = context.Cause(ctx)
	}
	return first
}

// count makes j's count (two runs: see benchrun.Package.Instructions).
func (m *instrMeter) count(ctx context.Context, opts benchrun.Options, j *countJob, settle bool) error {
	start := time.Now()
	c, err := j.pkg.Instructions(ctx, opts, j.name, j.n, m.counter)
	if err != nil {
		return err
	}
	if want := itersForInstructions(c.PerOp); settle && float64(want) > 1.5*float64(j.n) {
		m.prog.logf("%s %s: %.2f %s at %d iterations, again at %d", j.pkg.ImportPath, j.name, c.PerOp, benchinstr.Unit, j.n, want)
		j.n = want
		if c, err = j.pkg.Instructions(ctx, opts, j.name, j.n, m.counter); err != nil {
			return err
		}
	}
	j.v = c.PerOp
	m.prog.logf("%s %s: %.2f %s (%s at %d and %d iterations, %s%s)", j.pkg.ImportPath, j.name, c.PerOp, benchinstr.Unit, m.counter.Method(), j.n, 2*j.n, time.Since(start).Round(time.Millisecond), scope(c))
	return nil
}

// scope says what part of the runs a count covers, for the log.
func scope(c benchrun.InstrCount) string {
	switch {
	case c.NoTimed != nil:
		return "; whole runs, set-up under b.StopTimer included: " + c.NoTimed.Error()
	case c.Capped:
		return fmt.Sprintf("; the timed region only until the timer had stopped %d times, whole runs from there on", benchinstr.MaxTimedDumps)
	case c.Timed:
		return "; the timed region only"
	}
	return ""
}

// resultName returns the name of a result line of Run's output (which
// holds configuration and result lines only).
func resultName(line string) (string, bool) {
	if !strings.HasPrefix(line, "Benchmark") {
		return "", false
	}
	f := strings.Fields(line)
	if len(f) < 4 {
		return "", false
	}
	return f[0], true
}

// nsPerOp returns the ns/op of a result line, or 0.
func nsPerOp(line string) float64 {
	f := strings.Fields(line)
	for i := 3; i < len(f); i += 2 {
		if f[i] == "ns/op" {
			v, _ := strconv.ParseFloat(f[i-1], 64)
			return v
		}
	}
	return 0
}

// spreadLine is the run-to-run spread of one benchmark's instructions/op.
type spreadLine struct {
	name   string
	n      int
	median float64
	spread float64 // (max - min) / |median|
}

// spreads returns the spread of every benchmark measured at least twice,
// largest first.
func (m *instrMeter) spreads() []spreadLine {
	var out []spreadLine
	for _, key := range m.order {
		v := slices.Clone(m.samples[key])
		if len(v) < 2 {
			continue
		}
		slices.Sort(v)
		med := v[len(v)/2]
		if len(v)%2 == 0 {
			med = (v[len(v)/2-1] + v[len(v)/2]) / 2
		}
		s := math.Inf(1)
		if med != 0 {
			s = (v[len(v)-1] - v[0]) / math.Abs(med)
		} else if v[len(v)-1] == v[0] {
			s = 0
		}
		out = append(out, spreadLine{name: strings.ReplaceAll(key, "\t", " "), n: len(v), median: med, spread: s})
	}
	slices.SortStableFunc(out, func(a, b spreadLine) int { return cmp.Compare(b.spread, a.spread) })
	return out
}

// reportSpread writes to w the run-to-run spread of instructions/op of
// every benchmark measured more than once, the largest first; what names
// the kind of spread. A nil meter writes nothing.
func (m *instrMeter) reportSpread(w io.Writer, what string) {
	if m == nil {
		return
	}
	s := m.spreads()
	if len(s) == 0 {
		return
	}
	fmt.Fprintf(w, "netbench: %s spread of %s ((max-min)/median), largest %.3f%%:\n", what, benchinstr.Unit, 100*s[0].spread)
	for _, l := range s {
		fmt.Fprintf(w, "\t%-60s n=%-3d median %-12.2f spread %.3f%%\n", l.name, l.n, l.median, 100*l.spread)
	}
}

// errInstrUnit is returned when -gate names instructions/op without
// -instructions: nothing would measure the unit.
var errInstrUnit = errors.New("-gate " + benchinstr.Unit + " needs -instructions")

// addInstrFlag registers -instructions on fs (run and compare).
func addInstrFlag(fs *flag.FlagSet) *instrFlag {
	f := new(instrFlag)
	fs.Var(f, "instructions", "also measure instructions/op: auto, callgrind or perf")
	return f
}
