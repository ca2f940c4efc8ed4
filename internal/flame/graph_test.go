package flame

import (
	"bytes"
	"maps"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hotModule has known hot functions: spin is the leaf of every sample,
// hotA and small are inlined, rec is recursive (its cum counts each
// sample once, however deep the recursion).
var hotModule = map[string]string{
	"m.go": `package m

//go:noinline
func spin(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i*i ^ (s >> 3)
	}
	return s
}

func hotA() int { return spin(3000) + small(7) }

func small(n int) int { return n*n + 1 }

//go:noinline
func hotB() int { return spin(1000) + rec(4) }

//go:noinline
func rec(d int) int {
	if d == 0 {
		return spin(500)
	}
	return rec(d-1) + 1
}
`,
	"m_test.go": `package m

import "testing"

var sink int

func BenchmarkHot(b *testing.B) {
	for b.Loop() {
		sink += hotA() + hotB()
	}
}
`,
}

// pprofTop runs go tool pprof -top on the profile at path and returns
// each function's flat and cum values in nanoseconds.
func pprofTop(t *testing.T, path string) (flat, cum map[string]int64) {
	t.Helper()
	out, err := exec.Command("go", "tool", "pprof", "-top", "-nodecount=1000000", "-nodefraction=0", "-edgefraction=0", "-unit=ns", path).CombinedOutput()
	require.NoError(t, err, "go tool pprof\n%s", out)
	// "  flat  flat%   sum%        cum   cum%" and then rows such as
	// "10000000ns  0.84%   100% 10000000ns  0.84%  runtime.asyncPreempt"
	// or "0     0%   100% 160000000ns 13.45%  example.com/m.rec (inline)",
	// or "… sync.(*Once).Do (partial-inline)" when a sample landed in the
	// inlined part of a function that is also called.
	row := regexp.MustCompile(`^\s*(\d+)(?:ns)?\s+\S+%\s+\S+%\s+(\d+)(?:ns)?\s+\S+%\s+(.+?)(?: \((?:partial-)?inline\))?$`)
	flat, cum = map[string]int64{}, map[string]int64{}
	header := false
	for line := range strings.SplitSeq(string(out), "\n") {
		if strings.Contains(line, "flat%") {
			header = true
			continue
		}
		if !header || strings.TrimSpace(line) == "" {
			continue
		}
		m := row.FindStringSubmatch(line)
		require.NotNil(t, m, "cannot parse pprof row %q", line)
		f, _ := strconv.ParseInt(m[1], 10, 64)
		c, _ := strconv.ParseInt(m[2], 10, 64)
		flat[m[3]] += f
		cum[m[3]] += c
	}
	require.True(t, header, "no rows in pprof's output:\n%s", out)
	require.NotEmpty(t, flat, "no rows in pprof's output:\n%s", out)
	return flat, cum
}

func TestGraphMatchesPprof(t *testing.T) {
	path := cpuProfile(t, maps.Clone(hotModule))
	g, err := FromProfiles([]*profile.Profile{readProfile(t, path)}, Options{MinShare: -1})
	require.NoError(t, err)
	assert.Equal(t, "cpu", g.Sample(), "sample type")
	assert.Equal(t, "nanoseconds", g.Unit(), "sample unit")
	wantFlat, wantCum := pprofTop(t, path)
	flat, cum := functionSums(g)
	for _, name := range []string{"example.com/m.spin", "example.com/m.hotA", "example.com/m.hotB", "example.com/m.rec"} {
		assert.NotEqual(t, int64(0), cum[name], "no samples in %s: the fixture does not exercise what it claims", name)
	}
	assert.Equal(t, wantFlat, flat, "flat values differ from pprof's")
	assert.Equal(t, wantCum, cum, "cum values differ from pprof's")
	var total int64
	for _, v := range wantFlat {
		total += v
	}
	assert.Equal(t, total, g.Total(), "Total(); want the sum of pprof's flat values")

	// The same graph as folded stacks and as a page.
	var folded bytes.Buffer
	require.NoError(t, g.WriteFolded(&folded))
	assert.Equal(t, pathTotals(g), parseFolded(t, folded.String(), false), "folded stacks give per-path totals")
	d := pageOf(t, g)
	// With MinShare < 0 all frames are drawn.
	assert.Equal(t, len(g.nodes)-1, g.Frames(), "Frames(); want every frame of the graph")
	assert.Equal(t, g.Frames(), len(d.Name)-1, "frames on the page; want Frames()")
}

func TestInlinedFramesExpanded(t *testing.T) {
	// outer+inner: inner is inlined into outer at one location.
	p := synth(t, []string{"samples"}, map[string][]int64{
		"main;outer+inner;leaf": {3},
		"main;outer+inner":      {2},
		"main;other":            {1},
	})
	g, err := FromProfiles([]*profile.Profile{p}, Options{})
	require.NoError(t, err)
	got := pathTotals(g)
	want := map[string]int64{
		"": 6, "main": 6, "main;outer": 5, "main;outer;inner": 5, "main;outer;inner;leaf": 3, "main;other": 1,
	}
	assert.Equal(t, want, got, "totals by path")
}

func TestFocusIgnore(t *testing.T) {
	p := synth(t, []string{"samples"}, map[string][]int64{
		"main;a;x": {1},
		"main;a;y": {2},
		"main;b;x": {4},
		"main;b":   {8},
	})
	for _, c := range []struct {
		name          string
		focus, ignore string
		want          []string // paths with a self value
		total         int64
	}{
		{"none", "", "", []string{"main;a;x", "main;a;y", "main;b", "main;b;x"}, 15},
		{"focus", "^x$", "", []string{"main;a;x", "main;b;x"}, 5},
		{"focus caller keeps whole stacks", "^a$", "", []string{"main;a;x", "main;a;y"}, 3},
		{"ignore", "", "^x$", []string{"main;a;y", "main;b"}, 10},
		{"both", "^b$", "^x$", []string{"main;b"}, 8},
	} {
		var o Options
		if c.focus != "" {
			o.Focus = regexp.MustCompile(c.focus)
		}
		if c.ignore != "" {
			o.Ignore = regexp.MustCompile(c.ignore)
		}
		g, err := FromProfiles([]*profile.Profile{p}, o)
		if !assert.NoError(t, err, c.name) {
			continue
		}
		var got []string
		for i := range g.nodes {
			if g.nodes[i].self > 0 {
				got = append(got, strings.Join(g.path(int32(i)), ";"))
			}
		}
		slices.Sort(got)
		assert.Equal(t, c.want, got, "%s: paths with a self value", c.name)
		assert.Equal(t, c.total, g.Total(), "%s: Total", c.name)
	}
	_, err := FromProfiles([]*profile.Profile{p}, Options{Focus: regexp.MustCompile("nothing")})
	assert.EqualError(t, err, "flame: no samples of type samples left after -focus and -ignore", "focus on nothing")
}

func TestSampleTypes(t *testing.T) {
	cpu := synth(t, []string{"samples", "cpu"}, map[string][]int64{"main;f": {1, 10}})
	heap := synth(t, []string{"alloc_objects", "alloc_space", "inuse_objects", "inuse_space"}, map[string][]int64{"main;f": {1, 2, 3, 4}})
	other := synth(t, []string{"contentions", "delay"}, map[string][]int64{"main;f": {5, 6}})
	for _, c := range []struct {
		p      *profile.Profile
		sample string
		total  int64
		err    string
	}{
		{cpu, "", 10, ""},
		{cpu, "cpu", 10, ""},
		{cpu, "samples", 1, ""},
		{heap, "", 2, ""}, // alloc_space
		{heap, "alloc_objects", 1, ""},
		{heap, "inuse_space", 4, ""},
		{other, "", 6, ""}, // the last, as pprof
		{cpu, "alloc_space", 0, `flame: unknown sample type "alloc_space" (the profile has samples, cpu)`},
		{heap, "cpu", 0, `flame: unknown sample type "cpu" (the profile has alloc_objects, alloc_space, inuse_objects, inuse_space)`},
	} {
		g, err := FromProfiles([]*profile.Profile{c.p}, Options{Sample: c.sample})
		if c.err != "" {
			assert.EqualError(t, err, c.err, "%v %q", c.p.SampleType, c.sample)
		} else if assert.NoError(t, err, "%v %q", c.p.SampleType, c.sample) {
			assert.Equal(t, c.total, g.Total(), "%v %q: Total", c.p.SampleType, c.sample)
		}
	}
}

func TestMergeProfiles(t *testing.T) {
	a := synth(t, []string{"samples"}, map[string][]int64{"main;f": {1}, "main;g": {2}})
	b := synth(t, []string{"samples"}, map[string][]int64{"main;f": {4}, "main;h;f": {8}})
	g, err := FromProfiles([]*profile.Profile{a, b}, Options{})
	require.NoError(t, err)
	want := map[string]int64{"": 15, "main": 15, "main;f": 5, "main;g": 2, "main;h": 8, "main;h;f": 8}
	got := pathTotals(g)
	assert.Equal(t, want, got, "merged totals")
	if assert.Len(t, a.Sample, 2, "FromProfiles modified its input") {
		assert.Equal(t, int64(3), a.Sample[0].Value[0]+a.Sample[1].Value[0], "FromProfiles modified its input")
	}
	c := synth(t, []string{"alloc_space"}, map[string][]int64{"main;f": {1}})
	_, err = FromProfiles([]*profile.Profile{a, c}, Options{})
	if assert.Error(t, err, "merging a CPU and a heap profile") {
		assert.True(t, strings.HasPrefix(err.Error(), "flame: the profiles cannot be merged: "), "merging a CPU and a heap profile: %v", err)
	}
	empty := synth(t, []string{"samples"}, nil)
	_, err = FromProfiles([]*profile.Profile{empty}, Options{})
	assert.EqualError(t, err, "flame: the profiles have no samples of type samples", "empty profile")
	_, err = FromProfiles(nil, Options{})
	assert.Error(t, err, "no profiles")
}

func TestMinShare(t *testing.T) {
	// tiny has 1 of 10,000 (0.01%): under the default 0.05% it is not
	// drawn, and neither is its child.
	p := synth(t, []string{"samples"}, map[string][]int64{
		"main;big":        {9989},
		"main;mid":        {10},
		"main;tiny;child": {1},
	})
	for _, c := range []struct {
		min    float64
		frames []string
	}{
		{0, []string{"big", "main", "mid"}},
		{-1, []string{"big", "child", "main", "mid", "tiny"}},
		{0.001, []string{"big", "main", "mid"}}, // mid is exactly 0.1%
		{0.0011, []string{"big", "main"}},       // mid is under 0.11%
		{0.00005, []string{"big", "child", "main", "mid", "tiny"}},
	} {
		g, err := FromProfiles([]*profile.Profile{p}, Options{MinShare: c.min})
		require.NoError(t, err)
		d := pageOf(t, g)
		var got []string
		for _, n := range d.Name[1:] {
			got = append(got, d.Names[n])
		}
		slices.Sort(got)
		assert.Equal(t, c.frames, got, "MinShare %v: frames drawn", c.min)
		assert.Equal(t, len(c.frames), g.Frames(), "MinShare %v: Frames()", c.min)
	}
}

// TestWeight: Weight scales each kept sample by what it returns for the
// sample's labels and stack, drops the samples it gives zero, and runs
// after the stack filters.
func TestWeight(t *testing.T) {
	p := synth(t, []string{"samples"}, map[string][]int64{
		"main;work":         {100},
		"main;setup":        {60},
		"gcBgMarkWorker;gc": {40},
		"main;skipped":      {30},
	})
	for _, s := range p.Sample {
		switch s.Location[0].Line[0].Function.Name {
		case "work":
			s.Label = map[string][]string{"timer": {"running"}}
		case "setup":
			s.Label = map[string][]string{"timer": {"stopped"}}
		}
	}
	var seen [][]string
	g, err := FromProfiles([]*profile.Profile{p}, Options{
		Keep: func(stack []string) bool { return stack[len(stack)-1] != "skipped" },
		Weight: func(labels map[string][]string, stack []string) float64 {
			seen = append(seen, slices.Clone(stack))
			switch {
			case labels["timer"] != nil && labels["timer"][0] == "running":
				return 1
			case labels["timer"] != nil:
				return 0
			}
			return 0.25
		},
	})
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{"": 110, "main": 100, "main;work": 100, "gcBgMarkWorker": 10, "gcBgMarkWorker;gc": 10}, pathTotals(g))
	assert.Len(t, seen, 3, "Weight is not asked about a sample Keep dropped")

	_, err = FromProfiles([]*profile.Profile{p}, Options{Weight: func(map[string][]string, []string) float64 { return 0 }})
	assert.ErrorIs(t, err, ErrNoSamples)
}
