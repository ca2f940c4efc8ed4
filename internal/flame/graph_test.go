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
	if err != nil {
		t.Fatalf("go tool pprof: %v\n%s", err, out)
	}
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
		if m == nil {
			t.Fatalf("cannot parse pprof row %q", line)
		}
		f, _ := strconv.ParseInt(m[1], 10, 64)
		c, _ := strconv.ParseInt(m[2], 10, 64)
		flat[m[3]] += f
		cum[m[3]] += c
	}
	if !header || len(flat) == 0 {
		t.Fatalf("no rows in pprof's output:\n%s", out)
	}
	return flat, cum
}

func TestGraphMatchesPprof(t *testing.T) {
	path := cpuProfile(t, maps.Clone(hotModule))
	g, err := FromProfiles([]*profile.Profile{readProfile(t, path)}, Options{MinShare: -1})
	if err != nil {
		t.Fatal(err)
	}
	if g.Sample() != "cpu" || g.Unit() != "nanoseconds" {
		t.Errorf("sample %s (%s), want cpu (nanoseconds)", g.Sample(), g.Unit())
	}
	wantFlat, wantCum := pprofTop(t, path)
	flat, cum := functionSums(g)
	for _, name := range []string{"example.com/m.spin", "example.com/m.hotA", "example.com/m.hotB", "example.com/m.rec"} {
		if cum[name] == 0 {
			t.Errorf("no samples in %s: the fixture does not exercise what it claims", name)
		}
	}
	if !maps.Equal(flat, wantFlat) {
		t.Errorf("flat values differ from pprof's:\n got %v\nwant %v", flat, wantFlat)
	}
	if !maps.Equal(cum, wantCum) {
		t.Errorf("cum values differ from pprof's:\n got %v\nwant %v", cum, wantCum)
	}
	var total int64
	for _, v := range wantFlat {
		total += v
	}
	if g.Total() != total {
		t.Errorf("Total() = %d, pprof's flat values add up to %d", g.Total(), total)
	}

	// The same graph as folded stacks and as a page.
	var folded bytes.Buffer
	if err := g.WriteFolded(&folded); err != nil {
		t.Fatal(err)
	}
	if got, want := parseFolded(t, folded.String(), false), pathTotals(g); !maps.Equal(got, want) {
		t.Errorf("folded stacks give per-path totals\n%v\nwant\n%v", got, want)
	}
	d := pageOf(t, g)
	if len(d.Name)-1 != g.Frames() || g.Frames() != len(g.nodes)-1 {
		t.Errorf("page has %d frames, Frames() = %d, graph has %d: with MinShare < 0 all are drawn", len(d.Name)-1, g.Frames(), len(g.nodes)-1)
	}
}

func TestInlinedFramesExpanded(t *testing.T) {
	// outer+inner: inner is inlined into outer at one location.
	p := synth(t, []string{"samples"}, map[string][]int64{
		"main;outer+inner;leaf": {3},
		"main;outer+inner":      {2},
		"main;other":            {1},
	})
	g, err := FromProfiles([]*profile.Profile{p}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := pathTotals(g)
	want := map[string]int64{
		"": 6, "main": 6, "main;outer": 5, "main;outer;inner": 5, "main;outer;inner;leaf": 3, "main;other": 1,
	}
	if !maps.Equal(got, want) {
		t.Errorf("totals by path\n%v\nwant\n%v", got, want)
	}
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
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var got []string
		for i := range g.nodes {
			if g.nodes[i].self > 0 {
				got = append(got, strings.Join(g.path(int32(i)), ";"))
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) || g.Total() != c.total {
			t.Errorf("%s: paths %v total %d, want %v total %d", c.name, got, g.Total(), c.want, c.total)
		}
	}
	_, err := FromProfiles([]*profile.Profile{p}, Options{Focus: regexp.MustCompile("nothing")})
	if err == nil || err.Error() != "flame: no samples of type samples left after -focus and -ignore" {
		t.Errorf("focus on nothing: %v", err)
	}
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
		switch {
		case c.err != "":
			if err == nil || err.Error() != c.err {
				t.Errorf("%v %q: error %v, want %s", c.p.SampleType, c.sample, err, c.err)
			}
		case err != nil:
			t.Errorf("%v %q: %v", c.p.SampleType, c.sample, err)
		case g.Total() != c.total:
			t.Errorf("%v %q: total %d, want %d", c.p.SampleType, c.sample, g.Total(), c.total)
		}
	}
}

func TestMergeProfiles(t *testing.T) {
	a := synth(t, []string{"samples"}, map[string][]int64{"main;f": {1}, "main;g": {2}})
	b := synth(t, []string{"samples"}, map[string][]int64{"main;f": {4}, "main;h;f": {8}})
	g, err := FromProfiles([]*profile.Profile{a, b}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"": 15, "main": 15, "main;f": 5, "main;g": 2, "main;h": 8, "main;h;f": 8}
	if got := pathTotals(g); !maps.Equal(got, want) {
		t.Errorf("merged totals\n%v\nwant\n%v", got, want)
	}
	if len(a.Sample) != 2 || a.Sample[0].Value[0]+a.Sample[1].Value[0] != 3 {
		t.Error("FromProfiles modified its input")
	}
	c := synth(t, []string{"alloc_space"}, map[string][]int64{"main;f": {1}})
	if _, err := FromProfiles([]*profile.Profile{a, c}, Options{}); err == nil || !strings.HasPrefix(err.Error(), "flame: the profiles cannot be merged: ") {
		t.Errorf("merging a CPU and a heap profile: %v", err)
	}
	empty := synth(t, []string{"samples"}, nil)
	if _, err := FromProfiles([]*profile.Profile{empty}, Options{}); err == nil || err.Error() != "flame: the profiles have no samples of type samples" {
		t.Errorf("empty profile: %v", err)
	}
	if _, err := FromProfiles(nil, Options{}); err == nil {
		t.Error("no profiles: no error")
	}
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
		if err != nil {
			t.Fatal(err)
		}
		d := pageOf(t, g)
		var got []string
		for _, n := range d.Name[1:] {
			got = append(got, d.Names[n])
		}
		slices.Sort(got)
		if !slices.Equal(got, c.frames) || g.Frames() != len(c.frames) {
			t.Errorf("MinShare %v: drawn %v, Frames() %d, want %v", c.min, got, g.Frames(), c.frames)
		}
	}
}
