// Package benchprof profiles the timed region of one Go benchmark: what
// grows with the iteration count b.N, without the set-up a benchmark does
// a fixed number of times (before b.ResetTimer, in a parent benchmark
// around b.Run, testing's first run of one iteration).
//
// Run profiles the benchmark twice, at n and Factor·n iterations
// (-test.benchtime nx and Factor·nx, so that both runs do the same set-up
// and only the loop runs longer); Profile.CPU and Profile.Alloc difference
// the two profiles per call path (flame.Subtract), which leaves the work of
// (Factor-1)·n iterations. CPU samples count the process's CPU time, not
// wall-clock time, so the counts hold on a loaded machine.
//
// What the difference cannot remove is set-up that itself scales with b.N:
// work between b.StopTimer and b.StartTimer inside the loop (a tree rebuilt
// every thousand operations). For that, Run profiles a second build of the
// test binary (benchrun.Package.WithTimerLabels) whose testing package
// labels the samples with the state of the timer, and Profile.CPU leaves
// out the benchmark goroutine's samples taken while it was stopped and
// counts the collector's background work in proportion (see weights).
// Where that build cannot be made, such work stays in the
// difference, and TimedRegion states it: the samples per operation of the
// difference against the benchmark's own ns/op.
package benchprof

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/netkit/netkit/internal/benchrun"
	"github.com/netkit/netkit/internal/flame"
)

// Factor is the ratio of the iteration counts of the two profiled runs.
// The difference holds the work of Factor-1 times the smaller count.
const Factor = 3

// MinTime is the time of the benchmark's timed loop that the difference
// of the two runs is planned to hold when no -benchtime is given: at the
// profiler's 100 Hz, a hundred samples.
const MinTime = time.Second

// maxOps bounds an iteration count, as the testing package does.
const maxOps int64 = 1_000_000_000

// Profile is the pair of profiled runs of one benchmark that Run made.
type Profile struct {
	// Name is the benchmark's result name.
	Name string
	// Small and Large are the result lines of the two runs; Large.Ops is
	// Factor times Small.Ops.
	Small, Large benchrun.ProfileResult
	// SmallCPU and LargeCPU are the CPU profiles of the runs;
	// SmallAlloc and LargeAlloc the allocation profiles, "" when none
	// was asked for.
	SmallCPU, LargeCPU     string
	SmallAlloc, LargeAlloc string
	// TimerLabels is set when the runs were made by a binary that labels
	// the samples taken with the timer stopped; NoTimerLabels says why
	// they were not, otherwise.
	TimerLabels   bool
	NoTimerLabels error
}

// Ops is the number of iterations the per-operation difference stands
// for: Large.Ops - Small.Ops.
func (p *Profile) Ops() int64 { return p.Large.Ops - p.Small.Ops }

// Files names the files of a Run: the profiles of the large run are the
// ones a user opens with pprof (CPU, Alloc); those of the small run are
// kept beside them so that the difference can be redone.
type Files struct {
	CPU, SmallCPU     string
	Alloc, SmallAlloc string // both "" for no allocation profile
}

// FilesFor returns the Files of a run whose outputs start with base:
// base.cpu.pprof, base.cpu.small.pprof and, when alloc is set,
// base.alloc.pprof and base.alloc.small.pprof.
func FilesFor(base string, alloc bool) Files {
	f := Files{CPU: base + ".cpu.pprof", SmallCPU: base + ".cpu.small.pprof"}
	if alloc {
		f.Alloc, f.SmallAlloc = base+".alloc.pprof", base+".alloc.small.pprof"
	}
	return f
}

// Run profiles the benchmark name of pkg (a result name, as
// benchrun.Package.Profile takes) at two iteration counts, n and Factor·n,
// writing the profiles to files. With opts.Benchtime a count ("500x"), n
// is that count (at least 2: testing runs a benchmark of -benchtime 1x
// once, of any other count twice, and both runs must do their set-up
// alike). Otherwise a first, unprofiled run of a tenth of the -benchtime
// (at least 50ms) measures ns/op (taken at the share of a CPU that run got,
// on a loaded machine), and n is chosen so that the difference holds about
// the -benchtime (MinTime when it is "") of the timed loop's CPU time:
// the smaller run lasts about half of it, the larger one and a half.
// When a run fails (or ctx is cancelled), Run removes the files it wrote.
//
// The runs are made by pkg.WithTimerLabels's binary; when it cannot be
// built, by pkg's own, and Profile.NoTimerLabels says why.
func Run(ctx context.Context, pkg benchrun.Package, opts benchrun.Options, name string, files Files) (*Profile, error) {
	pr := &Profile{Name: name, SmallCPU: files.SmallCPU, LargeCPU: files.CPU, SmallAlloc: files.SmallAlloc, LargeAlloc: files.Alloc}
	if lp, err := pkg.WithTimerLabels(ctx); err == nil {
		pkg, pr.TimerLabels = lp, true
	} else if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	} else {
		pr.NoTimerLabels = err
	}
	n, err := smallCount(ctx, pkg, opts, name)
	if err != nil {
		return nil, err
	}
	o := opts
	o.Benchtime = strconv.FormatInt(n, 10) + "x"
	if pr.Small, err = pkg.ProfileRun(ctx, o, name, files.SmallCPU, files.SmallAlloc); err != nil {
		return nil, err
	}
	o.Benchtime = strconv.FormatInt(Factor*n, 10) + "x"
	if pr.Large, err = pkg.ProfileRun(ctx, o, name, files.CPU, files.Alloc); err != nil {
		removeFiles(files.SmallCPU, files.SmallAlloc)
		return nil, err
	}
	if pr.Small.Ops != n || pr.Large.Ops != Factor*n {
		removeFiles(files.SmallCPU, files.SmallAlloc, files.CPU, files.Alloc)
		return nil, fmt.Errorf("benchprof: %s ran %d and %d iterations, want %d and %d", name, pr.Small.Ops, pr.Large.Ops, n, Factor*n)
	}
	return pr, nil
}

// removeFiles removes the files named, skipping "".
func removeFiles(paths ...string) {
	for _, p := range paths {
		if p != "" {
			os.Remove(p) // absent when its run failed early
		}
	}
}

// smallCount returns the iteration count of the smaller profiled run.
func smallCount(ctx context.Context, pkg benchrun.Package, opts benchrun.Options, name string) (int64, error) {
	if c, ok := strings.CutSuffix(opts.Benchtime, "x"); ok {
		n, err := strconv.ParseInt(c, 10, 64)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("benchprof: invalid -benchtime %q", opts.Benchtime)
		}
		return max(2, min(n, maxOps/Factor)), nil
	}
	d := MinTime
	if opts.Benchtime != "" {
		bt, err := time.ParseDuration(opts.Benchtime)
		if err != nil || bt <= 0 {
			return 0, fmt.Errorf("benchprof: invalid -benchtime %q", opts.Benchtime)
		}
		d = bt
	}
	o := opts
	o.Benchtime = max(d/10, 50*time.Millisecond).String()
	r, err := pkg.ProfileRun(ctx, o, name, "", "")
	if err != nil {
		return 0, err
	}
	ns := r.Values["ns/op"]
	if r.CPU > 0 && r.CPU < r.Wall {
		// On a loaded machine, count the CPU time the loop gets: that is
		// what the profiler samples.
		ns *= float64(r.CPU) / float64(r.Wall)
	}
	return countFor(d, ns), nil
}

// countFor returns the smaller iteration count for a difference of
// (Factor-1)·n iterations of nsPerOp each to last d.
func countFor(d time.Duration, nsPerOp float64) int64 {
	if nsPerOp <= 0 || math.IsNaN(nsPerOp) {
		return maxOps / Factor
	}
	n := math.Ceil(float64(d.Nanoseconds()) / nsPerOp / (Factor - 1))
	return max(2, min(int64(min(n, float64(maxOps))), maxOps/Factor))
}

// Result is a per-operation graph with how it was made.
type Result struct {
	// Graph is the difference of the two runs' graphs: the work of Ops
	// iterations.
	Graph *flame.Graph
	Ops   int64
	// SmallOps and LargeOps are the iteration counts of the two runs.
	SmallOps, LargeOps int64
	// Subtraction says how much was clamped.
	Subtraction flame.Subtraction
	// Run compares the large run's profile with its measured ns/op: the
	// share of a plain profile's samples that lie outside the timed
	// region. PerOp compares the difference with it: what the
	// subtraction could not remove. Both are zero for an allocation
	// graph.
	Run, PerOp flame.TimedRegion
	// Stopped is the share of the large run's CPU samples that the
	// benchmark goroutine took with the timer stopped, left out of Graph;
	// Background the share of samples of no benchmark goroutine and
	// without a timer label (the garbage collector's background work),
	// counted in Graph at BackgroundWeight (CPU graphs of a Profile with
	// TimerLabels; see weights). NoTimerLabels is the Profile's.
	Stopped, Background, BackgroundWeight float64
	TimerLabels                           bool
	NoTimerLabels                         error
}

// Notes returns the lines that state how the graph was made and what
// share of the samples lies outside the timed region, for a page or an
// index.
func (r *Result) Notes() []string {
	var notes []string
	if r.Run.SampledNsPerOp > 0 {
		notes = append(notes, "plain run of "+strconv.FormatInt(r.LargeOps, 10)+" iterations, "+r.Run.String())
	}
	switch {
	case r.TimerLabels:
		notes = append(notes, fmt.Sprintf("%.1f%% of that run's samples were taken with the timer stopped (b.StopTimer): left out", 100*r.Stopped))
		if r.Background > 0 {
			notes = append(notes, fmt.Sprintf("%.1f%% ran in no benchmark goroutine (the garbage collector's background work and the like): counted at %.0f%%, the timed region's share of the benchmark's samples in the allocator (or of all its samples, when it has none there)",
				100*r.Background, 100*r.BackgroundWeight))
		}
	case r.NoTimerLabels != nil:
		notes = append(notes, "samples taken with the timer stopped are not told apart: "+r.NoTimerLabels.Error())
	}
	notes = append(notes, fmt.Sprintf("drawn: the difference of runs of %d and %d iterations, per call path (what does not grow with b.N cancels); %.1f%% of it clamped at zero, %.1f%% left out as sampling noise",
		r.SmallOps, r.LargeOps, 100*r.Subtraction.ClampedShare(), 100*r.Subtraction.NoiseShare()))
	if r.PerOp.SampledNsPerOp > 0 {
		notes = append(notes, "drawn per op, "+r.PerOp.String())
	}
	return notes
}

// CPU returns the per-operation CPU graph: the difference of the two
// runs' CPU profiles under o, with the TimedRegion of both the large run
// and the difference against the large run's ns/op.
//
// With p.TimerLabels, the samples are weighed by the timer's state
// (weights), in the difference (and so in PerOp), not in Run.
func (p *Profile) CPU(o flame.Options) (*Result, error) {
	o.Sample = "cpu"
	timed := o
	var w weights
	if p.TimerLabels {
		var err error
		if w, err = timerWeights(p.LargeCPU, o); err != nil {
			return nil, err
		}
		weight := o.Weight
		timed.Weight = func(labels map[string][]string, stack []string) float64 {
			v := w.of(labels, stack)
			if weight != nil && v > 0 {
				v *= weight(labels, stack)
			}
			return v
		}
	}
	r, err := p.subtract(p.SmallCPU, p.LargeCPU, timed)
	if err != nil {
		return nil, err
	}
	r.TimerLabels, r.NoTimerLabels = p.TimerLabels, p.NoTimerLabels
	r.Stopped, r.Background, r.BackgroundWeight = w.stoppedShare, w.backgroundShare, w.background
	large, err := graph(p.LargeCPU, o)
	if err != nil {
		return nil, err
	}
	ns, ok := p.Large.Values["ns/op"]
	if !ok {
		return nil, fmt.Errorf("benchprof: %s reported no ns/op", p.Name)
	}
	share := 0.0
	if p.Large.CPU > 0 && p.Large.Wall > 0 {
		share = float64(p.Large.CPU) / float64(p.Large.Wall)
	}
	if r.Run, err = flame.NewTimedRegion(large, p.Large.Ops, ns, share); err != nil {
		return nil, err
	}
	if r.PerOp, err = flame.NewTimedRegion(r.Graph, r.Ops, ns, share); err != nil {
		return nil, err
	}
	r.PerOp.Error = r.Subtraction.SamplingError()
	return r, nil
}

// weights weighs a CPU sample by the state of the benchmark's timer when
// it was taken, from the labels of a binary with the timer hooks:
//   - samples labelled running (the benchmark goroutine in its timed
//     region, and goroutines started from it) count whole;
//   - the benchmark goroutine's samples labelled stopped (set-up between
//     b.StopTimer and b.StartTimer) count nothing;
//   - goroutines started while the timer was stopped count whole: they
//     carry the label of their start, and a server started during set-up
//     does the timed region's work;
//   - samples of no benchmark goroutine and without a label (the garbage
//     collector's background workers, the scavenger, goroutines started
//     before the benchmark) belong to both regions, and count in the
//     proportion background: the timed region's share of the benchmark
//     goroutine's samples in the allocator (what makes the collector
//     work), or, when it has none there, of all its samples.
type weights struct {
	background                    float64
	stoppedShare, backgroundShare float64 // of the large run's samples
}

func (w weights) of(labels map[string][]string, stack []string) float64 {
	switch state := labels[benchrun.TimerLabel]; {
	case slices.Contains(state, benchrun.TimerRunning):
		return 1
	case slices.Contains(state, benchrun.TimerStopped):
		if benchGoroutine(stack) {
			return 0
		}
		return 1
	case benchGoroutine(stack):
		return 1 // labels of the benchmark's own, which replaced the timer's
	}
	return w.background
}

// benchGoroutine reports whether a stack is a benchmark goroutine's: the
// testing package runs each benchmark function from (*B).runN.
func benchGoroutine(stack []string) bool {
	return slices.Contains(stack, "testing.(*B).runN")
}

// allocating reports whether a stack is in the allocator.
func allocating(stack []string) bool {
	return slices.ContainsFunc(stack, func(f string) bool { return strings.HasPrefix(f, "runtime.mallocgc") })
}

// timerWeights measures the weights of the profiles in path under o.
func timerWeights(path string, o flame.Options) (weights, error) {
	ps, err := flame.ReadProfiles(path)
	if err != nil {
		return weights{}, err
	}
	// total is the value of the samples whose timer state and stack
	// class picks.
	total := func(class func(state []string, stack []string) bool) (int64, error) {
		c := o
		c.Weight = func(labels map[string][]string, stack []string) float64 {
			if class(labels[benchrun.TimerLabel], stack) {
				return 1
			}
			return 0
		}
		g, err := flame.FromProfiles(ps, c)
		if errors.Is(err, flame.ErrNoSamples) {
			return 0, nil
		}
		if err != nil {
			return 0, err
		}
		return g.Total(), nil
	}
	in := func(v string, alloc bool) func([]string, []string) bool {
		return func(state, stack []string) bool {
			return slices.Contains(state, v) && benchGoroutine(stack) && (!alloc || allocating(stack))
		}
	}
	var v [6]int64
	for i, class := range []func([]string, []string) bool{
		func([]string, []string) bool { return true },
		in(benchrun.TimerRunning, false), in(benchrun.TimerStopped, false),
		in(benchrun.TimerRunning, true), in(benchrun.TimerStopped, true),
		func(state, stack []string) bool { return len(state) == 0 && !benchGoroutine(stack) },
	} {
		if v[i], err = total(class); err != nil {
			return weights{}, err
		}
	}
	all, run, stop, allocRun, allocStop, background := v[0], v[1], v[2], v[3], v[4], v[5]
	w := weights{background: 1}
	switch {
	case allocRun+allocStop > 0:
		w.background = float64(allocRun) / float64(allocRun+allocStop)
	case run+stop > 0:
		w.background = float64(run) / float64(run+stop)
	}
	if all > 0 {
		w.stoppedShare = float64(stop) / float64(all)
		w.backgroundShare = float64(background) / float64(all)
	}
	return w, nil
}

// Alloc returns the per-operation allocation graph of sample type sample
// ("alloc_space" when ""): the difference of the two runs' allocation
// profiles, each without the profiler's and testing's own allocations
// (flame.BenchmarkStack), under o.
func (p *Profile) Alloc(sample string, o flame.Options) (*Result, error) {
	if p.SmallAlloc == "" {
		return nil, fmt.Errorf("benchprof: %s was profiled without allocation profiles", p.Name)
	}
	return p.subtract(p.SmallAlloc, p.LargeAlloc, allocOptions(sample, o))
}

// allocOptions returns o for the allocation graph of sample type sample
// ("alloc_space" when ""), keeping only the stacks flame.BenchmarkStack
// keeps (and o.Keep, if set).
func allocOptions(sample string, o flame.Options) flame.Options {
	if sample == "" {
		sample = "alloc_space"
	}
	o.Sample = sample
	keep := o.Keep
	o.Keep = func(stack []string) bool {
		return flame.BenchmarkStack(stack) && (keep == nil || keep(stack))
	}
	return o
}

func (p *Profile) subtract(small, large string, o flame.Options) (*Result, error) {
	sg, err := graph(small, o)
	if err != nil {
		return nil, err
	}
	lg, err := graph(large, o)
	if err != nil {
		return nil, err
	}
	g, s, err := flame.Subtract(sg, lg, p.Small.Ops, p.Large.Ops)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Name, err)
	}
	return &Result{Graph: g, Ops: s.Ops, SmallOps: p.Small.Ops, LargeOps: p.Large.Ops, Subtraction: s}, nil
}

func graph(path string, o flame.Options) (*flame.Graph, error) {
	ps, err := flame.ReadProfiles(path)
	if err != nil {
		return nil, err
	}
	return flame.FromProfiles(ps, o)
}
