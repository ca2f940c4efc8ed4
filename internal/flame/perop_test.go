package flame

import (
	"bytes"
	"github.com/google/pprof/profile"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// folded returns g's folded stacks as a map of path to self value.
func foldedMap(t *testing.T, g *Graph) map[string]int64 {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, g.WriteFolded(&buf))
	m := map[string]int64{}
	for line := range strings.Lines(buf.String()) {
		f := strings.Fields(line)
		require.Len(t, f, 2, "folded line %q", line)
		var v int64
		for _, c := range f[1] {
			v = 10*v + int64(c-'0')
		}
		m[f[0]] = v
	}
	return m
}

func TestSubtract(t *testing.T) {
	small, err := FromProfiles([]*profile.Profile{synth(t, []string{"samples"}, map[string][]int64{
		"main;setup":       {50},
		"main;setup;build": {30},
		"main;loop;work":   {10},
		"main;loop":        {2},
		"main;rare":        {4},
	})}, Options{})
	require.NoError(t, err)
	large, err := FromProfiles([]*profile.Profile{synth(t, []string{"samples"}, map[string][]int64{
		"main;setup":       {49},
		"main;setup;build": {31},
		"main;loop;work":   {40},
		"main;loop":        {8},
		"main;new":         {3},
	})}, Options{})
	require.NoError(t, err)
	d, s, err := Subtract(small, large, 100, 400)
	require.NoError(t, err)
	// setup;build grew by 1 of 30: fixed work and sampling noise.
	assert.Equal(t, map[string]int64{
		"main;loop;work": 30,
		"main;loop":      6,
		"main;new":       3,
	}, foldedMap(t, d))
	assert.Equal(t, int64(39), d.Total())
	assert.Equal(t, Subtraction{Ops: 300, SmallTotal: 96, LargeTotal: 131, Clamped: 5, Noise: 1}, s)
	assert.InDelta(t, 5.0/35, s.ClampedShare(), 1e-9)
	assert.InDelta(t, 1.0/35, s.NoiseShare(), 1e-9)
	// The result is an ordinary graph: its totals are consistent.
	assert.Equal(t, map[string]int64{"": 39, "main": 39, "main;loop": 36, "main;loop;work": 30, "main;new": 3}, pathTotals(d))

	// The ratio that tells fixed work from work per iteration: for counts
	// in the ratio 3, about 1.71.
	for _, tt := range []struct {
		small, large int64
		kept         bool
	}{{10, 17, false}, {10, 18, true}, {0, 1, true}, {1, 1, false}, {100, 300, true}, {100, 160, false}} {
		sg, err := FromProfiles([]*profile.Profile{synth(t, []string{"samples"}, map[string][]int64{"main;f": {tt.small}, "main;g": {1000}})}, Options{})
		require.NoError(t, err)
		lg, err := FromProfiles([]*profile.Profile{synth(t, []string{"samples"}, map[string][]int64{"main;f": {tt.large}, "main;g": {3000}})}, Options{})
		require.NoError(t, err)
		d, s, err := Subtract(sg, lg, 10, 30)
		require.NoError(t, err)
		want := map[string]int64{"main;g": 2000}
		if tt.kept {
			want["main;f"] = tt.large - tt.small
		} else {
			assert.Equal(t, max(0, tt.large-tt.small), s.Noise, "%d → %d", tt.small, tt.large)
		}
		assert.Equal(t, want, foldedMap(t, d), "%d → %d", tt.small, tt.large)
	}

	_, _, err = Subtract(large, large, 100, 100)
	assert.ErrorContains(t, err, "want 0 < small < large")
	_, _, err = Subtract(large, small, 100, 400)
	assert.NoError(t, err, "a larger small run clamps; it is not an error while anything is left")
	_, _, err = Subtract(large, large, 100, 200)
	assert.ErrorIs(t, err, ErrNoSamples, "identical graphs leave nothing")
}

func TestTimedRegion(t *testing.T) {
	tr := TimedRegion{SampledNsPerOp: 540, MeasuredNsPerOp: 180}
	assert.InDelta(t, 2.0/3, tr.Outside(), 1e-9)
	assert.Equal(t, "profile: 540 ns/op of samples, measured: 180 ns/op: 67% outside the timed region", tr.String())
	assert.Zero(t, TimedRegion{SampledNsPerOp: 100, MeasuredNsPerOp: 150}.Outside(), "more measured than sampled")
	assert.Equal(t, "profile: 12345 ns/op of samples, measured: 1.5 ns/op: 100% outside the timed region", TimedRegion{SampledNsPerOp: 12345, MeasuredNsPerOp: 1.5}.String())
	loaded := TimedRegion{SampledNsPerOp: 540, MeasuredNsPerOp: 360, CPUShare: 0.5}
	assert.InDelta(t, 2.0/3, loaded.Outside(), 1e-9, "wall-clock time at half a CPU")
	assert.Equal(t, "profile: 540 ns/op of samples, measured: 360 ns/op at 50% of a CPU, 180 ns/op of CPU: 67% outside the timed region", loaded.String())
	assert.InDelta(t, 1.0/3, TimedRegion{SampledNsPerOp: 540, MeasuredNsPerOp: 360, CPUShare: 1.7}.Outside(), 1e-9, "a share above 1 (other threads) is not applied")
	assert.Equal(t, "profile: 220 ns/op of samples (±6%, sampling), measured: 200 ns/op: 9% outside the timed region",
		TimedRegion{SampledNsPerOp: 220, MeasuredNsPerOp: 200, Error: 0.06}.String())
}

// TestSamplingError: the difference of 100 and 300 samples of 10 ms is
// uncertain by sqrt(400) samples in 200, 10%; a graph of 400 samples by
// 1/20.
func TestSamplingError(t *testing.T) {
	const q = 10_000_000
	s := Subtraction{SmallTotal: 100 * q, LargeTotal: 300 * q, Quantum: q}
	assert.InDelta(t, 0.1, s.SamplingError(), 1e-9)
	s.Quantum = 0
	assert.Zero(t, s.SamplingError(), "period unknown")
	assert.Zero(t, Subtraction{SmallTotal: 5, LargeTotal: 5, Quantum: 1}.SamplingError(), "nothing left")

	p := synth(t, []string{"cpu"}, map[string][]int64{"main;work": {400 * q}})
	p.SampleType[0].Unit, p.PeriodType.Unit, p.Period = "nanoseconds", "nanoseconds", q
	g, err := FromProfiles([]*profile.Profile{p}, Options{})
	require.NoError(t, err)
	tr, err := NewTimedRegion(g, 1000, 3_000_000, 0)
	require.NoError(t, err)
	assert.InDelta(t, 0.05, tr.Error, 1e-9)
}

func TestBenchmarkStack(t *testing.T) {
	for _, tt := range []struct {
		stack string
		keep  bool
	}{
		{"runtime.goexit;testing.(*B).run1.func1;testing.(*B).runN;m.BenchmarkX;m.work", true},
		{"runtime.goexit;testing.(*B).launch;testing.(*B).runN;m.BenchmarkX", true},
		{"runtime.goexit;testing.(*B).RunParallel.func1;m.BenchmarkX.func1", true},
		{"runtime.goexit;m.server;m.handle", true},
		{"runtime.main;m.init", true},
		{"runtime.main;main.main;testing.(*M).Run;testing.runBenchmarks;flag.Parse", false},
		{"runtime.goexit;testing.(*B).run1;runtime.makechan", false},
		{"runtime.main;main.main;testing.(*M).Run;testing.(*M).after;runtime/pprof.WriteHeapProfile", false},
		{"runtime.goexit;runtime/pprof.profileWriter;compress/flate.NewWriter", false},
		{"runtime.goexit;testing.(*B).runN;runtime/pprof.StartCPUProfile", false},
	} {
		assert.Equal(t, tt.keep, BenchmarkStack(strings.Split(tt.stack, ";")), "BenchmarkStack(%s)", tt.stack)
	}
}

func TestWriteHTMLNotes(t *testing.T) {
	g, err := FromProfiles([]*profile.Profile{synth(t, []string{"samples"}, map[string][]int64{"main;a": {1}})}, Options{})
	require.NoError(t, err)
	var page bytes.Buffer
	require.NoError(t, g.WriteHTMLNotes(&page, "t", []string{"profile: 1 ns/op <of> samples"}))
	assert.Contains(t, page.String(), `<p class="note">profile: 1 ns/op &lt;of&gt; samples</p>`)
}

// TestSubtractSmallPaths: with the sample period known, a path sampled
// too few times to tell is judged by the frame above it.
func TestSubtractSmallPaths(t *testing.T) {
	small := map[string][]int64{"main;setup": {20}, "main;setup;a": {1}, "main;loop": {100}, "main;loop;b": {2}}
	large := map[string][]int64{"main;setup": {20}, "main;setup;a": {3}, "main;loop": {300}, "main;loop;b": {3}}
	for _, period := range []int64{0, 1} {
		graph := func(stacks map[string][]int64) *Graph {
			p := synth(t, []string{"samples"}, stacks)
			p.PeriodType, p.Period = &profile.ValueType{Type: "samples", Unit: "count"}, period
			g, err := FromProfiles([]*profile.Profile{p}, Options{})
			require.NoError(t, err)
			return g
		}
		d, s, err := Subtract(graph(small), graph(large), 10, 30)
		require.NoError(t, err)
		if period == 0 {
			// Each path on its own: a grew 3x (kept), b 1.5x (left out).
			assert.Equal(t, map[string]int64{"main;setup;a": 2, "main;loop": 200}, foldedMap(t, d), "no period")
			assert.Equal(t, int64(1), s.Noise, "no period")
			continue
		}
		// a is judged by setup (fixed), b by loop (per iteration).
		assert.Equal(t, map[string]int64{"main;loop;b": 1, "main;loop": 200}, foldedMap(t, d), "period 1")
		assert.Equal(t, int64(2), s.Noise, "period 1")
	}
}
