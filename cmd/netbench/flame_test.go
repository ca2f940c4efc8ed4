package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeProfile writes a profile with the sample types types (units
// "count", except cpu's nanoseconds) and one sample per stack ("a;b;c",
// root first, to its values) to dir/name and returns its path.
func writeProfile(t *testing.T, dir, name string, types []string, stacks [][2]any) string {
	t.Helper()
	p := &profile.Profile{PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 10000000}
	for _, ty := range types {
		unit := "count"
		if ty == "cpu" {
			unit = "nanoseconds"
		}
		p.SampleType = append(p.SampleType, &profile.ValueType{Type: ty, Unit: unit})
	}
	locs := map[string]*profile.Location{}
	for _, st := range stacks {
		frames := strings.Split(st[0].(string), ";")
		s := &profile.Sample{Value: st[1].([]int64)}
		for i := len(frames) - 1; i >= 0; i-- {
			loc, ok := locs[frames[i]]
			if !ok {
				f := &profile.Function{ID: uint64(len(locs) + 1), Name: frames[i]}
				p.Function = append(p.Function, f)
				loc = &profile.Location{ID: uint64(len(locs) + 1), Line: []profile.Line{{Function: f}}}
				p.Location = append(p.Location, loc)
				locs[frames[i]] = loc
			}
			s.Location = append(s.Location, loc)
		}
		p.Sample = append(p.Sample, s)
	}
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, p.Write(f))
	return path
}

// flameProfiles writes a base and a new CPU profile and a heap profile
// to dir.
func flameProfiles(t *testing.T, dir string) (base, new, heap string) {
	cpu := []string{"samples", "cpu"}
	base = writeProfile(t, dir, "base.prof", cpu, [][2]any{
		{"main.main;main.parse;bytes.Index", []int64{2, 20000000}},
		{"main.main;main.parse", []int64{1, 10000000}},
		{"main.main;main.write;os.(*File).Write", []int64{3, 30000000}},
		{"main.main;main.old", []int64{1, 10000000}},
	})
	new = writeProfile(t, dir, "new.prof", cpu, [][2]any{
		{"main.main;main.parse;bytes.Index", []int64{6, 60000000}},
		{"main.main;main.parse", []int64{1, 10000000}},
		{"main.main;main.write;os.(*File).Write", []int64{3, 30000000}},
	})
	heap = writeProfile(t, dir, "heap.prof", []string{"alloc_objects", "alloc_space", "inuse_objects", "inuse_space"}, [][2]any{
		{"main.main;main.parse", []int64{1, 4096, 0, 0}},
	})
	return base, new, heap
}

func TestFlameFoldedGolden(t *testing.T) {
	dir := t.TempDir()
	base, new, heap := flameProfiles(t, dir)
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"flame.folded", []string{"flame", "-format", "folded", "-o", "-", base}},
		{"flame-merged.folded", []string{"flame", "-format", "folded", "-o", "-", base, new}},
		{"flame-samples.folded", []string{"flame", "-format", "folded", "-o", "-", "-sample", "samples", "-ignore", `^os\.`, base}},
		{"flame-diff.folded", []string{"flame", "-format", "folded", "-o", "-", "-diff", base, new}},
		{"flame-heap.folded", []string{"flame", "-format", "folded", "-o", "-", heap}},
	} {
		stdout, stderr, err := runIn(t, dir, c.args...)
		require.NoError(t, err, "%v\n%s", c.args, stderr)
		require.Equal(t, "", stderr, "%v: %v\n%s", c.args, err, stderr)
		golden(t, c.golden, stdout)
	}
}

func TestFlameHTML(t *testing.T) {
	dir := t.TempDir()
	base, new, _ := flameProfiles(t, dir)
	_, stderr, err := runIn(t, dir, "flame", base)
	require.NoError(t, err)
	want := "netbench: wrote flame.html: html flame graph of cpu, 6 frames drawn\n"
	assert.Equal(t, want, stderr, "stderr")
	page, err := os.ReadFile(filepath.Join(dir, "flame.html"))
	require.NoError(t, err)
	for _, want := range []string{"<title>cpu: base.prof</title>", `"bytes.Index"`, `"diff":false`} {
		assert.Contains(t, string(page), want, "flame.html lacks %s", want)
	}

	out := filepath.Join(dir, "diff.html")
	_, stderr, err = runIn(t, dir, "flame", "-diff", "-o", out, "-title", "parse got slower", base, new)
	require.NoError(t, err)
	// Five frames of new and main.old, drawn though in base only.
	assert.Equal(t, "netbench: wrote "+out+": html flame graph of cpu, 6 frames drawn\n", stderr, "stderr")
	page, err = os.ReadFile(out)
	require.NoError(t, err)
	for _, want := range []string{"<title>parse got slower</title>", `"diff":true`, `{"n":"main.old","f":0,"c":0,"bf":10000000,"bc":10000000,"side":1`, `id="top-table"`, `id="callers-table"`} {
		assert.Contains(t, string(page), want, "diff.html lacks %s", want)
	}
}

func TestFlameErrors(t *testing.T) {
	dir := t.TempDir()
	base, _, heap := flameProfiles(t, dir)
	notProfile := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(notProfile, []byte("not a profile\n"), 0o644))
	out := filepath.Join(dir, "out.html")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{}, "flame needs a profile"},
		{[]string{"-diff", base}, "flame -diff needs two profiles"},
		{[]string{"-diff", base, base, base}, "flame -diff needs two profiles"},
		{[]string{"-format", "svg", base}, `unknown -format "svg" (want html or folded)`},
		{[]string{"-focus", "(", base}, "-focus: error parsing regexp"},
		{[]string{"-ignore", "[", base}, "-ignore: error parsing regexp"},
		{[]string{"-min", "-1", base}, "invalid value"},
		{[]string{"-bogus", base}, "flag provided but not defined"},
		{[]string{filepath.Join(dir, "missing.prof")}, "missing.prof: no such file"},
		{[]string{notProfile}, "notes.txt: not a profile"},
		{[]string{"-sample", "bogus", base}, `unknown sample type "bogus" (the profile has samples, cpu)`},
		{[]string{"-sample", "cpu", heap}, `unknown sample type "cpu" (the profile has alloc_objects, alloc_space, inuse_objects, inuse_space)`},
		{[]string{"-focus", "nothing", base}, "no samples of type cpu left after -focus and -ignore"},
		{[]string{"-ignore", "main", base}, "no samples of type cpu left after -focus and -ignore"},
		{[]string{"-diff", base, heap}, "sample types differ: base has cpu (nanoseconds), new has alloc_space (count)"},
		{[]string{base, heap}, "the profiles cannot be merged"},
		{[]string{"-rename", "a=b", base}, "-rename and -exact need -diff"},
		{[]string{"-exact", base}, "-rename and -exact need -diff"},
		{[]string{"-diff", "-rename", "BTree", base, base}, `rename "BTree": want old=new`},
	} {
		args := append([]string{"flame", "-o", out}, c.args...)
		_, _, err := runIn(t, dir, args...)
		if !assert.Error(t, err, "%v: want %q", c.args, c.want) {
			continue
		}
		wantStatus(t, err, exitFailure, c.want)
		if !assert.NoFileExists(t, out, "%v: written despite the error", c.args) {
			os.Remove(out)
		}
	}
}

// TestFlameDiffRename: a generic rewrite that renamed a type (Parser to
// ParserG, kept as a wrapper) and renumbered a closure. flame -diff
// matches the instantiation and the closure by itself and, told of the
// renaming, the wrapper too; -exact matches nothing below main.main.
func TestFlameDiffRename(t *testing.T) {
	dir := t.TempDir()
	cpu := []string{"samples", "cpu"}
	base := writeProfile(t, dir, "base.prof", cpu, [][2]any{
		{"main.main;main.(*Parser).Parse;main.(*Parser).Parse.func1", []int64{2, 20000000}},
	})
	new := writeProfile(t, dir, "new.prof", cpu, [][2]any{
		{"main.main;main.(*Parser).Parse;main.(*ParserG[go.shape.uint8]).Parse;main.(*ParserG[go.shape.uint8]).Parse.func2", []int64{6, 60000000}},
	})
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "main.main;main.(*Parser).Parse;main.(*Parser).Parse.func* 20000000 0\n" +
			"main.main;main.(*Parser).Parse;main.(*ParserG).Parse;main.(*ParserG).Parse.func* 0 60000000\n"},
		{[]string{"-rename", "Parser=ParserG"}, "main.main;main.(*ParserG).Parse;main.(*ParserG).Parse.func* 20000000 60000000\n"},
		{[]string{"-exact"}, "main.main;main.(*Parser).Parse;main.(*Parser).Parse.func1 20000000 0\n" +
			"main.main;main.(*Parser).Parse;main.(*ParserG[go.shape.uint8]).Parse;main.(*ParserG[go.shape.uint8]).Parse.func2 0 60000000\n"},
	} {
		args := append([]string{"flame", "-diff", "-format", "folded", "-o", "-"}, c.args...)
		stdout, stderr, err := runIn(t, dir, append(args, base, new)...)
		require.NoError(t, err, "%v\n%s", c.args, stderr)
		assert.Equal(t, c.want, stdout, "flame -diff %v: folded", c.args)
	}
}

// TestWriteDiffFlameRenames: compare -profile's graphs take compare's
// -rename: with it no function of the rewrite is on one side only.
func TestWriteDiffFlameRenames(t *testing.T) {
	dir := t.TempDir()
	cpu := []string{"samples", "cpu"}
	base := writeProfile(t, dir, "base.prof", cpu, [][2]any{{"main.main;main.(*Parser).Parse", []int64{2, 20000000}}})
	new := writeProfile(t, dir, "new.prof", cpu, [][2]any{{"main.main;main.(*Parser).Parse;main.(*ParserG[go.shape.uint8]).Parse", []int64{6, 60000000}}})
	out := filepath.Join(dir, "diff.html")
	require.NoError(t, writeDiffFlame([]string{base}, []string{new}, 100, 100, nil, out, "plain"))
	page, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(page), `"n":"main.(*ParserG).Parse","f":60000000,"c":60000000,"bf":0,"bc":0,"side":2`, "without -rename ParserG is new only")
	require.NoError(t, writeDiffFlame([]string{base}, []string{new}, 100, 100, renameFlags{{Old: "Parser", New: "ParserG"}}, out, "renamed"))
	page, err = os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(page), `"n":"main.(*ParserG).Parse","f":60000000,"c":60000000,"bf":20000000,"bc":20000000,"side":0`, "with -rename Parser=ParserG it is matched")
	assert.Error(t, writeDiffFlame([]string{base}, []string{new}, 0, 100, nil, out, "no iterations"), "zero base iterations")
}
