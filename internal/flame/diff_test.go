package flame

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
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
	if err != nil {
		t.Fatal(err)
	}
	newPath := cpuProfileFor(t, plantedModule(3), iters)
	new, err := FromProfiles([]*profile.Profile{readProfile(t, newPath)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := Diff(base, new)
	if err != nil {
		t.Fatal(err)
	}
	const planted = "example.com/m.planted"
	best, bestChange := int32(-1), math.Inf(-1)
	for i := 1; i < len(d.nodes); i++ {
		if c := d.change(int32(i)); c > bestChange {
			best, bestChange = int32(i), c
		}
	}
	// The frame of planted itself, called by the benchmark, not one of its
	// callers, which grew as much when planted is all they call.
	if path := d.path(best); len(path) < 2 || path[len(path)-2] != "example.com/m.BenchmarkWork" || path[len(path)-1] != planted {
		t.Fatalf("largest share change %+.3f is at %v, want BenchmarkWork → planted", bestChange, path)
	}
	// Shares go from about 1/2 to 3/4: a change of about +0.25.
	n := &d.nodes[best]
	t.Logf("planted: %d of %d ns sampled, then %d of %d", n.baseTotal, d.BaseTotal(), n.total, d.Total())
	if bestChange < 0.05 || bestChange > 0.5 {
		t.Errorf("planted's share changed by %+.3f (from %d of %d to %d of %d), want about +0.25", bestChange, n.baseTotal, d.BaseTotal(), n.total, d.Total())
	}

	var page bytes.Buffer
	if err := d.WriteHTML(&page, "planted"); err != nil {
		t.Fatal(err)
	}
	data := embedded(t, page.String())
	if !data.Diff || len(data.Base) != len(data.Name) || len(data.Color) != len(data.Name) {
		t.Fatalf("diff page data: diff %v, %d base values and %d colors for %d frames", data.Diff, len(data.Base), len(data.Color), len(data.Name))
	}
	found := false
	for i, n := range data.Name {
		if data.Names[n] != planted {
			continue
		}
		found = true
		// planted's step is the largest of all drawn frames' (steady's
		// shrinking share may have the largest magnitude), and red.
		step := data.Color[i]
		if step < data.Steps/2 || step != slices.Max(data.Color) {
			t.Errorf("planted's color step is %d, want the largest (of %v), at least %d", step, data.Color, data.Steps/2)
		}
		if c := data.Palette[step+data.Steps]; !isRed(c) {
			t.Errorf("planted's color %s is not red", c)
		}
	}
	if !found {
		t.Errorf("planted is not drawn")
	}
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
	if err != nil {
		t.Fatal(err)
	}
	gn, err := FromProfiles([]*profile.Profile{new}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := Diff(gb, gn)
	if err != nil {
		t.Fatal(err)
	}
	if d.Total() != 50 || d.BaseTotal() != 30 || !d.IsDiff() {
		t.Errorf("totals %d and %d, diff %v; want 50 and 30, true", d.Total(), d.BaseTotal(), d.IsDiff())
	}
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
	if !maps.Equal(changes, want) {
		t.Errorf("changes\n%v\nwant\n%v", changes, want)
	}

	data := pageOf(t, d)
	var drawn []string
	for i, n := range data.Name {
		drawn = append(drawn, fmt.Sprintf("%s:%d/%d:%d", data.Names[n], data.Base[i], data.Value[i], data.Color[i]))
	}
	// Steps scale with the largest change of a drawn frame, a's +0.2667.
	if got, want := strings.Join(drawn, " "), "all:30/50:0 main:30/50:0 a:10/30:10 b:10/10:-5 c:5/10:1 new:0/10:8"; got != want {
		t.Errorf("drawn frames (name:base/new:step)\n%s\nwant\n%s", got, want)
	}
	var only []string
	for _, f := range data.BaseOnly {
		only = append(only, fmt.Sprintf("%s:%d", strings.Join(f.Path, ";"), f.Value))
	}
	if got := strings.Join(only, " "); got != "main;c;gone:5 main;gone:5" {
		t.Errorf("base-only frames: %s", got)
	}

	var folded bytes.Buffer
	if err := d.WriteFolded(&folded); err != nil {
		t.Fatal(err)
	}
	if got, want := folded.String(), "main;a 10 30\nmain;b 10 10\nmain;c;gone 5 0\nmain;c;new 0 10\nmain;gone;x 5 0\n"; got != want {
		t.Errorf("diff folded:\n%s\nwant\n%s", got, want)
	}
	if got := parseFolded(t, folded.String(), true); got["main;a"] != 30 || got[""] != 50 {
		t.Errorf("diff folded parses to %v", got)
	}

	heap := synth(t, []string{"alloc_space"}, map[string][]int64{"main": {1}})
	gh, err := FromProfiles([]*profile.Profile{heap}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Diff(gb, gh); err == nil || err.Error() != "flame: sample types differ: base has samples (count), new has alloc_space (count)" {
		t.Errorf("diff of different sample types: %v", err)
	}
	if _, err := Diff(d, gn); err == nil {
		t.Error("diff of a diff: no error")
	}
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
	if err != nil {
		t.Fatal(err)
	}
	gn, err := FromProfiles([]*profile.Profile{synth(t, []string{"samples"}, same)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	share, err := Diff(gb, gn)
	if err != nil {
		t.Fatal(err)
	}
	perOp, err := DiffPerOp(gb, gn, 3000, 1000)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for i := 1; i < len(perOp.nodes); i++ {
		path := strings.Join(perOp.path(int32(i)), ";")
		if c := share.change(int32(i)); c != 0 {
			t.Errorf("Diff: %s changed %+.4f, want 0 (same shares)", path, c)
		}
		got[path] = fmt.Sprintf("%+.4f", perOp.change(int32(i)))
	}
	want := map[string]string{
		"main":        "+0.0000", // no time of its own
		"main;loop":   "+0.0000",
		"main;loop;a": "+0.4000", // (60 - 20) / 100
		"main;loop;b": "+0.2000", // (30 - 10) / 100
		"main;setup":  "+0.0667", // (10 - 10/3) / 100
	}
	if !maps.Equal(got, want) {
		t.Errorf("per-op changes\n%v\nwant\n%v", got, want)
	}
	if d := pageOf(t, perOp); d.BaseOps != 3000 || d.NewOps != 1000 || math.Abs(d.BaseScale-1.0/3) > 1e-12 {
		t.Errorf("page data: ops %d and %d, scale %v; want 3000, 1000, 1/3", d.BaseOps, d.NewOps, d.BaseScale)
	}
	if _, err := DiffPerOp(gb, gn, 0, 1000); err == nil {
		t.Error("DiffPerOp with 0 base iterations: no error")
	}
}
