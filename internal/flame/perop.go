package flame

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// minSamples is the fewest samples, in both runs together, by which
// Subtract judges a call path on its own values.
const minSamples = 8

// Subtraction says how Subtract arrived at its graph.
type Subtraction struct {
	// Ops is the number of iterations the difference stands for: the
	// large run's count minus the small run's.
	Ops int64
	// SmallTotal and LargeTotal are the totals of the two graphs.
	SmallTotal, LargeTotal int64
	// Clamped is the sum, over the call paths whose own (self) value was
	// larger in the small run than in the large one, of that excess: what
	// was set to zero so that no frame has a negative width. It is sampling
	// noise of the work that does not scale with the iteration count, or of
	// work too rare to be sampled alike in both runs.
	Clamped int64
	// Noise is the sum of the positive differences left out because
	// their call path grew too little to be work done per iteration
	// (see Subtract).
	Noise int64
	// Quantum is the value of one sample (a CPU profile's period), 0 when
	// the two profiles' periods differ or are not in the graphs' unit.
	Quantum int64
}

// SamplingError returns the relative standard error of the difference's
// total (LargeTotal - SmallTotal) from sampling alone: with the sample
// counts of the two runs Poisson, sqrt(S + L) samples over L - S. It is
// 0 when Quantum is unknown or the difference is not positive. Of a
// difference of runs in the ratio 3, it is 1/sqrt(S): about 14% for 50
// samples in the smaller run, 6% for 270.
func (s Subtraction) SamplingError() float64 {
	d := s.LargeTotal - s.SmallTotal
	if s.Quantum <= 0 || d <= 0 {
		return 0
	}
	return math.Sqrt(float64(s.Quantum)*float64(s.LargeTotal+s.SmallTotal)) / float64(d)
}

// NoiseShare returns Noise as a share of the difference's total before
// clamping (LargeTotal - SmallTotal), or 0 when that is not positive.
func (s Subtraction) NoiseShare() float64 {
	d := s.LargeTotal - s.SmallTotal
	if d <= 0 {
		return 0
	}
	return float64(s.Noise) / float64(d)
}

// ClampedShare returns Clamped as a share of the difference's total before
// clamping (LargeTotal - SmallTotal), or 0 when that is not positive.
func (s Subtraction) ClampedShare() float64 {
	d := s.LargeTotal - s.SmallTotal
	if d <= 0 {
		return 0
	}
	return float64(s.Clamped) / float64(d)
}

// Subtract returns the per-path difference large - small of two graphs of
// one benchmark run at smallOps and largeOps iterations (largeOps >
// smallOps) and otherwise alike: what grows with the iteration count,
// the work of largeOps - smallOps iterations. Work done a fixed number of
// times per run (set-up before b.ResetTimer or in a parent benchmark,
// testing's first one-iteration run, the profiler's own start and stop)
// is in both graphs alike and cancels.
//
// Work done a fixed number of times is sampled alike in both runs only up
// to sampling noise, and a plain difference per path would keep the
// positive half of that noise: a set-up of S samples would leave about the
// square root of S behind. So a call path whose own (self) value grew by
// a ratio likelier for fixed work than for work per iteration (below
// about 1.71 for counts in the ratio 3, see fixedRatio in the code) is
// left out, and its positive difference counted in Subtraction.Noise. When
// the profiles' sample period is known (a CPU profile's), a path sampled
// fewer than minSamples times in both runs is judged by the totals of the
// nearest frame above it sampled that often.
// That also leaves out per-iteration work on a path that carries more
// fixed work than per-iteration work (a benchmark function that calls the
// same function directly in its set-up and in its loop), and per-iteration
// work sampled too rarely to tell. Of the other paths, a negative
// difference
// is set to zero and counted in Subtraction.Clamped. The result is an
// ordinary graph (not a diff), with large's sample type and minimum share;
// it fails when the graphs are diffs, their sample types differ, the
// counts are not increasing, or nothing is left after the difference.
func Subtract(small, large *Graph, smallOps, largeOps int64) (*Graph, Subtraction, error) {
	s := Subtraction{Ops: largeOps - smallOps}
	switch {
	case small == nil || large == nil:
		return nil, s, errors.New("flame: subtraction of a nil graph")
	case small.diff || large.diff:
		return nil, s, errors.New("flame: cannot subtract a differential graph")
	case small.sample != large.sample || small.unit != large.unit:
		return nil, s, fmt.Errorf("flame: sample types differ: %s (%s) and %s (%s)", small.sample, small.unit, large.sample, large.unit)
	case smallOps <= 0 || largeOps <= smallOps:
		return nil, s, fmt.Errorf("flame: iteration counts %d and %d, want 0 < small < large", smallOps, largeOps)
	}
	s.SmallTotal, s.LargeTotal = small.Total(), large.Total()
	j := newBuilder(large.sample, large.unit, large.minShare)
	exact := &matcher{exact: true, names: map[string]string{}} // one revision: names as sampled
	j.merge(large, 0, 0, false, true, exact)
	j.merge(small, 0, 0, true, true, exact)
	joined := j.finish()

	// A path's own values of S in the small run and L in the large one
	// are taken as sampled from one rate, of work done a fixed number of
	// times, when that is likelier than from rates in the ratio of the
	// iteration counts k, of work done per iteration: given L+S, L is
	// binomial with p = 1/2 or p = k/(k+1), and the likelihood ratio
	// favours a fixed rate when L/S is below fixedRatio.
	k := float64(largeOps) / float64(smallOps)
	fixedRatio := math.Log((k+1)/2) / math.Log(2*k/(k+1))
	// A path sampled fewer than minSamples times in both runs together
	// is judged by the nearest frame, itself or above, whose subtree was
	// sampled that often: a few samples cannot tell, and the set-up's
	// noise is mostly such paths. That needs the sample period (quantum).
	q := large.quantum
	if small.quantum != q {
		q = 0
	}
	s.Quantum = q
	judge := make([]int32, len(joined.nodes)) // the frame whose subtree totals judge a small self
	for i := range joined.nodes {             // parents come first
		n := &joined.nodes[i]
		judge[i] = int32(i)
		if n.parent >= 0 && q > 0 && n.total+n.baseTotal < minSamples*q {
			judge[i] = judge[n.parent]
		}
	}
	fixed := func(i int32) bool {
		n := &joined.nodes[i]
		if q == 0 || n.self+n.baseSelf >= minSamples*q {
			return float64(n.self) < fixedRatio*float64(n.baseSelf)
		}
		j := &joined.nodes[judge[i]]
		return float64(j.total) < fixedRatio*float64(j.baseTotal)
	}
	// keep[n] is the positive part of n's own difference plus its
	// children's kept values; a frame is copied when it keeps anything.
	keep := make([]int64, len(joined.nodes))
	for i := len(joined.nodes) - 1; i >= 0; i-- { // children follow their parent
		n := &joined.nodes[i]
		d := n.self - n.baseSelf
		switch {
		case d < 0:
			s.Clamped -= d
			d = 0
		case fixed(int32(i)):
			s.Noise += d
			d = 0
		}
		keep[i] += d
		if n.parent >= 0 {
			keep[n.parent] += keep[i]
		}
	}
	if keep[0] == 0 {
		return nil, s, fmt.Errorf("%w of type %s left after subtracting the run of %d iterations from that of %d", ErrNoSamples, large.sample, smallOps, largeOps)
	}
	out := newBuilder(large.sample, large.unit, large.minShare)
	var copyNode func(n, at int32)
	copyNode = func(n, at int32) {
		jn := &joined.nodes[n]
		out.g.nodes[at].total = keep[n]
		if !fixed(n) {
			out.g.nodes[at].self = max(0, jn.self-jn.baseSelf)
		}
		for _, k := range jn.kids {
			if keep[k] > 0 {
				copyNode(k, out.child(at, out.intern(joined.names[joined.nodes[k].name])))
			}
		}
	}
	copyNode(0, 0)
	return out.finish(), s, nil
}

// TimedRegion compares the samples of a CPU graph per operation with the
// time per operation the benchmark measured itself.
type TimedRegion struct {
	// SampledNsPerOp is the graph's total, in nanoseconds, divided by
	// its iteration count.
	SampledNsPerOp float64
	// MeasuredNsPerOp is the benchmark's own ns/op, wall-clock time.
	MeasuredNsPerOp float64
	// CPUShare, when in (0, 1), is the share of a CPU the run got (its
	// CPU time over its wall-clock time): on a loaded machine the
	// wall-clock ns/op holds time the benchmark waited for a CPU, which no
	// CPU sample sees, so it is compared at this share. 0 or 1 and above
	// compare it as it is.
	CPUShare float64
	// Error, when positive, is the relative standard error of
	// SampledNsPerOp from sampling alone (Subtraction.SamplingError for
	// a difference, 1/sqrt(samples) for a plain profile): a comparison
	// within about twice it says nothing.
	Error float64
}

// measuredCPU returns the measured ns/op put on the CPU samples' scale.
func (t TimedRegion) measuredCPU() float64 {
	if t.CPUShare > 0 && t.CPUShare < 1 {
		return t.MeasuredNsPerOp * t.CPUShare
	}
	return t.MeasuredNsPerOp
}

// NewTimedRegion returns the TimedRegion of g, a CPU graph of ops
// iterations, for a benchmark that measured measuredNsPerOp in a run that
// got cpuShare of a CPU (see TimedRegion.CPUShare; 0 when unknown). It
// fails when g's unit is not nanoseconds or ops is not positive.
func NewTimedRegion(g *Graph, ops int64, measuredNsPerOp, cpuShare float64) (TimedRegion, error) {
	if g.unit != "nanoseconds" {
		return TimedRegion{}, fmt.Errorf("flame: a %s graph in %s, want CPU time in nanoseconds", g.sample, g.unit)
	}
	if ops <= 0 {
		return TimedRegion{}, fmt.Errorf("flame: %d iterations, want a positive count", ops)
	}
	t := TimedRegion{SampledNsPerOp: float64(g.Total()) / float64(ops), MeasuredNsPerOp: measuredNsPerOp, CPUShare: cpuShare}
	if g.quantum > 0 && g.Total() > 0 {
		t.Error = 1 / math.Sqrt(float64(g.Total())/float64(g.quantum))
	}
	return t, nil
}

// Outside returns the share of the samples that lies outside the timed
// region: 1 - measured/sampled, the measured time at the run's CPU share,
// at least 0 (a benchmark that waits, or whose CPU share varied during
// the run, can measure more time than its CPU samples; then nothing is
// known to lie outside).
func (t TimedRegion) Outside() float64 {
	if t.SampledNsPerOp <= 0 {
		return 0
	}
	return max(0, 1-t.measuredCPU()/t.SampledNsPerOp)
}

// String states the comparison in one line, as in "profile: 540 ns/op of
// samples (±3%, sampling), measured: 180 ns/op: 67% outside the timed
// region", or with a
// CPU share below 1 "measured: 360 ns/op at 50% of a CPU, 180 ns/op of
// CPU: …".
func (t TimedRegion) String() string {
	measured := fmtNs(t.MeasuredNsPerOp) + " ns/op"
	if t.CPUShare > 0 && t.CPUShare < 1 {
		measured += fmt.Sprintf(" at %.0f%% of a CPU, %s ns/op of CPU", 100*t.CPUShare, fmtNs(t.measuredCPU()))
	}
	sampled := fmtNs(t.SampledNsPerOp) + " ns/op of samples"
	if t.Error > 0 {
		sampled += fmt.Sprintf(" (±%.0f%%, sampling)", 100*t.Error)
	}
	return fmt.Sprintf("profile: %s, measured: %s: %.0f%% outside the timed region",
		sampled, measured, 100*t.Outside())
}

// fmtNs formats a time per operation with three significant digits or as
// an integer when larger.
func fmtNs(v float64) string {
	if v >= 1000 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// BenchmarkStack reports whether a sample with the stack names (root
// first, as Options.Keep receives them) belongs to a benchmark rather than
// to the profiler or to the testing package's own bookkeeping. It drops
// every stack with a runtime/pprof frame (the profiler writing its
// profiles) and every stack with a frame of package testing but none of
// testing's calls of benchmark code ((*B).runN, and the goroutines of
// (*B).RunParallel): flag parsing, output, the result table. Stacks
// without testing frames, such as those of goroutines the benchmark
// started, are kept.
func BenchmarkStack(names []string) bool {
	inTesting := false
	for _, name := range names {
		switch {
		case strings.HasPrefix(name, "runtime/pprof."):
			return false
		case name == "testing.(*B).runN" || strings.HasPrefix(name, "testing.(*B).RunParallel.func"):
			return !slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "runtime/pprof.") })
		case strings.HasPrefix(name, "testing."):
			inTesting = true
		}
	}
	return !inTesting
}
