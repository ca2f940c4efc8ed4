package flame

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// plantedModule is a module whose benchmark spends equal time in planted
// and steady when slowdown is 1; planted does slowdown times the work.
func plantedModule(slowdown int) map[string]string {
	return map[string]string{
		"m.go": fmt.Sprintf(`package m

//go:noinline
func planted() int {
	s := 0
	for i := 0; i < %d*2000; i++ {
		s += i*i ^ (s >> 3)
	}
	return s
}

//go:noinline
func steady() int {
	s := 0
	for i := 0; i < 2000; i++ {
		s += i*i ^ (s >> 3)
	}
	return s
}
`, slowdown),
		"m_test.go": `package m

import "testing"

var sink int

func BenchmarkWork(b *testing.B) {
	for b.Loop() {
		sink += planted() + steady()
	}
}
`,
	}
}

// TestDiffPlanted runs each revision for a fixed number of iterations, not
// for a second: on a loaded CI host a 1s run of the slow revision got 0.15s
// of CPU, 15 samples, and planted's share change came out at +0.556.
func TestDiffPlanted(t *testing.T) {
	const iters = "200000x"
	base, err := FromProfiles([]*profile.Profile{readProfile(t, cpuProfileFor(t, plantedModule(1), iters))}, Options{})
	require.NoError(t, err)
	newPath := cpuProfileFor(t, plantedModule(3), iters)
	new, err := FromProfiles([]*profile.Profile{readProfile(t, newPath)}, Options{})
	require.NoError(t, err)
	d, err := Diff(base, new)
	require.NoError(t, err)
	const planted = "example.com/m.planted"
	best, bestChange := int32(-1), math.Inf(-1)
	for i := 1; i < len(d.nodes); i++ {
		if c := d.change(int32(i)); c > bestChange {
			best, bestChange = int32(i), c
		}
	}
	// The frame of planted itself, called by the benchmark, not one of its
	// callers, which grew as much when planted is all they call.
	path := d.path(best)
	require.GreaterOrEqual(t, len(path), 2, "largest share change %+.3f is at %v, want BenchmarkWork → planted", bestChange, path)
	require.Equal(t, []string{"example.com/m.BenchmarkWork", planted}, path[len(path)-2:], "largest share change %+.3f is at %v", bestChange, path)
	// Shares go from about 1/2 to 3/4: a change of about +0.25.
	n := &d.nodes[best]
	t.Logf("planted: %d of %d ns sampled, then %d of %d", n.baseTotal, d.BaseTotal(), n.total, d.Total())
	assert.GreaterOrEqual(t, bestChange, 0.05, "planted's share changed by %+.3f, want about +0.25", bestChange)
	assert.LessOrEqual(t, bestChange, 0.5, "planted's share changed by %+.3f, want about +0.25", bestChange)

	var page bytes.Buffer
	require.NoError(t, d.WriteHTML(&page, "planted"))
	data := embedded(t, page.String())
	require.True(t, data.Diff, "diff page data: Diff")
	require.Len(t, data.Base, len(data.Name), "diff page data: a base value per frame")
	require.Len(t, data.Color, len(data.Name), "diff page data: a color per frame")
	found := false
	for i, n := range data.Name {
		if data.Names[n] != planted {
			continue
		}
		found = true
		// planted's step is the largest of all drawn frames' (steady's
		// shrinking share may have the largest magnitude), and red.
		step := data.Color[i]
		assert.Equal(t, slices.Max(data.Color), step, "planted's color step; want the largest (of %v)", data.Color)
		assert.GreaterOrEqual(t, step, data.Steps/2, "planted's color step")
		c := data.Palette[step+data.Steps]
		assert.True(t, isRed(c), "planted's color %s is not red", c)
	}
	assert.True(t, found, "planted is not drawn")
}

func TestDiffValues(t *testing.T) {
	base := synth(t, []string{"samples"}, map[string][]int64{
		"main;a":      {10},
		"main;b":      {10},
		"main;gone;x": {5},
		"main;c;gone": {5},
	})
	new := synth(t, []string{"samples"}, map[string][]int64{
		"main;a":     {30},
		"main;b":     {10},
		"main;c;new": {10},
	})
	gb, err := FromProfiles([]*profile.Profile{base}, Options{})
	require.NoError(t, err)
	gn, err := FromProfiles([]*profile.Profile{new}, Options{})
	require.NoError(t, err)
	d, err := Diff(gb, gn)
	require.NoError(t, err)
	assert.Equal(t, int64(50), d.Total(), "Total")
	assert.Equal(t, int64(30), d.BaseTotal(), "BaseTotal")
	assert.True(t, d.IsDiff(), "IsDiff")
	changes := map[string]string{}
	for i := 1; i < len(d.nodes); i++ {
		changes[strings.Join(d.path(int32(i)), ";")] = fmt.Sprintf("%+.4f", d.change(int32(i)))
	}
	want := map[string]string{
		"main":        "+0.0000",
		"main;a":      "+0.2667", // 30/50 - 10/30
		"main;b":      "-0.1333", // 10/50 - 10/30
		"main;c":      "+0.0333", // 10/50 - 5/30
		"main;c;gone": "-0.1667",
		"main;c;new":  "+0.2000",
		"main;gone":   "-0.1667",
		"main;gone;x": "-0.1667",
	}
	assert.Equal(t, want, changes, "changes")

	data := pageOf(t, d)
	var drawn []string
	for i, n := range data.Name {
		drawn = append(drawn, fmt.Sprintf("%s:%d/%d:%d", data.Names[n], data.Base[i], data.Value[i], data.Color[i]))
	}
	// Steps scale with the largest change of a drawn frame, a's +0.2667.
	assert.Equal(t, "all:30/50:0 main:30/50:0 a:10/30:10 b:10/10:-5 c:5/10:1 gone:5/0:-6 new:0/10:8 gone:5/0:-6 x:5/0:-6", strings.Join(drawn, " "), "drawn frames (name:base/new:step)")
	var sides []string
	for i, n := range data.Name {
		sides = append(sides, fmt.Sprintf("%s:w%d:%d", data.Names[n], data.Width[i], data.Side[i]))
	}
	// Frames on base's paths only are drawn at their base value on the new
	// scale (50/30): 5 is 8; gone and x have no new samples, new no base.
	assert.Equal(t, "all:w66:0 main:w66:0 a:w30:0 b:w10:0 c:w18:0 gone:w8:1 new:w10:2 gone:w8:1 x:w8:1", strings.Join(sides, " "), "drawn frames (name:width:side)")

	var folded bytes.Buffer
	require.NoError(t, d.WriteFolded(&folded))
	assert.Equal(t, "main;a 10 30\nmain;b 10 10\nmain;c;gone 5 0\nmain;c;new 0 10\nmain;gone;x 5 0\n", folded.String(), "diff folded")
	parsed := parseFolded(t, folded.String(), true)
	assert.Equal(t, int64(30), parsed["main;a"], "diff folded parses to %v", parsed)
	assert.Equal(t, int64(50), parsed[""], "diff folded parses to %v", parsed)

	heap := synth(t, []string{"alloc_space"}, map[string][]int64{"main": {1}})
	gh, err := FromProfiles([]*profile.Profile{heap}, Options{})
	require.NoError(t, err)
	_, err = Diff(gb, gh)
	assert.EqualError(t, err, "flame: sample types differ: base has samples (count), new has alloc_space (count)", "diff of different sample types")
	_, err = Diff(d, gn)
	assert.Error(t, err, "diff of a diff")
}

// isRed reports whether the color "#rrggbb" is a clear red: mostly red,
// green and blue at most half.
func isRed(c string) bool {
	var r, g, b int
	if n, _ := fmt.Sscanf(c, "#%02x%02x%02x", &r, &g, &b); n != 3 {
		return false
	}
	return r >= 0xe0 && g <= 0x80 && b <= 0x80
}

// TestDiffPerOp: a benchmark whose every frame got 3x slower keeps its
// shares, so Diff shows nothing, while DiffPerOp, told that the new run did
// a third of the iterations in the same time, shows each frame's added own
// cost per operation as a share of the new total (callers without time of
// their own stay unchanged).
func TestDiffPerOp(t *testing.T) {
	same := map[string][]int64{"main;loop;a": {60}, "main;loop;b": {30}, "main;setup": {10}}
	gb, err := FromProfiles([]*profile.Profile{synth(t, []string{"samples"}, same)}, Options{})
	require.NoError(t, err)
	gn, err := FromProfiles([]*profile.Profile{synth(t, []string{"samples"}, same)}, Options{})
	require.NoError(t, err)
	share, err := Diff(gb, gn)
	require.NoError(t, err)
	perOp, err := DiffPerOp(gb, gn, 3000, 1000)
	require.NoError(t, err)
	got := map[string]string{}
	for i := 1; i < len(perOp.nodes); i++ {
		path := strings.Join(perOp.path(int32(i)), ";")
		c := share.change(int32(i))
		assert.Equal(t, float64(0), c, "Diff: %s changed %+.4f, want 0 (same shares)", path, c)
		got[path] = fmt.Sprintf("%+.4f", perOp.change(int32(i)))
	}
	want := map[string]string{
		"main":        "+0.0000", // no time of its own
		"main;loop":   "+0.0000",
		"main;loop;a": "+0.4000", // (60 - 20) / 100
		"main;loop;b": "+0.2000", // (30 - 10) / 100
		"main;setup":  "+0.0667", // (10 - 10/3) / 100
	}
	assert.Equal(t, want, got, "per-op changes")
	page := pageOf(t, perOp)
	assert.Equal(t, int64(3000), page.BaseOps, "page data: BaseOps")
	assert.Equal(t, int64(1000), page.NewOps, "page data: NewOps")
	assert.InDelta(t, 1.0/3, page.BaseScale, 1e-12, "page data: BaseScale")
	_, err = DiffPerOp(gb, gn, 0, 1000)
	assert.Error(t, err, "DiffPerOp with 0 base iterations")
}

// TestDiffFoldsAsyncPreempt: the frames a preemption signal pushed onto a
// function (runtime.asyncPreempt and what it called) count as that
// function's own in a diff, so that how often the signal landed, which
// follows the machine's load, draws no frame of its own; -exact keeps
// them.
func TestDiffFoldsAsyncPreempt(t *testing.T) {
	base := synth(t, []string{"samples"}, map[string][]int64{
		"main;f": {10},
	})
	new := synth(t, []string{"samples"}, map[string][]int64{
		"main;f": {10},
		"main;f;runtime.asyncPreempt;runtime.asyncPreempt2;runtime.gopreempt_m": {6},
	})
	gb, err := FromProfiles([]*profile.Profile{base}, Options{})
	require.NoError(t, err)
	gn, err := FromProfiles([]*profile.Profile{new}, Options{})
	require.NoError(t, err)
	for _, exact := range []bool{false, true} {
		d, err := DiffWith(gb, gn, DiffOptions{Exact: exact, BaseOps: 1, NewOps: 1})
		require.NoError(t, err)
		var paths []string
		for i := 1; i < len(d.nodes); i++ {
			paths = append(paths, strings.Join(d.path(int32(i)), ";"))
		}
		if exact {
			assert.Contains(t, paths, "main;f;runtime.asyncPreempt", "-exact keeps the frames")
			continue
		}
		assert.Equal(t, []string{"main", "main;f"}, paths)
		assert.Equal(t, int64(16), d.nodes[2].self, "f's own value holds the preemption's 6")
		assert.Equal(t, int64(10), d.nodes[2].baseSelf)
	}
}
