package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hotBench is a test file of package pkg whose benchmarks spend their time
// in functions of their own: hot<Name> for each benchmark or
// sub-benchmark, and a benchmark that skips.
func hotBench(pkg string, subs bool) string {
	s := `package ` + pkg + `

import "testing"

var sink int

func spin(n int) int {
	s := 1
	for i := 0; i < n; i++ {
		s = s*31 + i ^ s>>3
	}
	return s
}

//go:noinline
func hotX(n int) int { return spin(n) }

//go:noinline
func hotY(n int) int { return spin(n) }

//go:noinline
func hotB(n int) int { return spin(n) }

func BenchmarkSkip(b *testing.B) { b.Skip("not today") }
`
	if subs {
		return s + `
func BenchmarkA(b *testing.B) {
	b.Run("k=x", func(b *testing.B) {
		for b.Loop() {
			sink = hotX(5000)
		}
	})
	b.Run("k=y", func(b *testing.B) {
		for b.Loop() {
			sink = hotY(5000)
		}
	})
}
`
	}
	return s + `
func BenchmarkB(b *testing.B) {
	for b.Loop() {
		sink = hotB(5000)
	}
}
`
}

// profileModule makes a throwaway module with packages alpha (BenchmarkA
// with two sub-benchmarks) and beta (BenchmarkB), each with a benchmark
// that skips.
func profileModule(t *testing.T) string {
	t.Helper()
	dir, _ := newModule(t, map[string]string{
		"alpha/a_test.go": hotBench("alpha", true),
		"beta/b_test.go":  hotBench("beta", false),
	})
	return dir
}

// readIndex reads the index.json of a profile directory.
func readIndex(t *testing.T, dir string) []profileEntry {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "index.json"))
	require.NoError(t, err)
	var entries []profileEntry
	require.NoError(t, json.Unmarshal(b, &entries), "index.json\n%s", b)
	return entries
}

// cpuFuncs parses the CPU profile at path and returns the names (without
// the package path) of the functions on the stacks of its samples.
func cpuFuncs(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	p, err := profile.Parse(f)
	require.NoError(t, err, "%s", path)
	require.Len(t, p.SampleType, 2, "%s: sample types %v, want samples and cpu", path, p.SampleType)
	require.Equal(t, "cpu", p.SampleType[1].Type, "%s: sample types %v, want samples and cpu", path, p.SampleType)
	funcs := map[string]bool{}
	for _, s := range p.Sample {
		for _, loc := range s.Location {
			for _, l := range loc.Line {
				funcs[l.Function.Name[strings.LastIndexByte(l.Function.Name, '.')+1:]] = true
			}
		}
	}
	return funcs
}

// TestProfile: every leaf benchmark of two packages, at each -cpu value,
// gets a CPU profile that holds its own hot function and no other's, and
// an allocation profile; the index lists exactly those leaves.
func TestProfile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and profiles a module")
	}
	dir := profileModule(t)
	out := filepath.Join(t.TempDir(), "profiles")
	_, errOut, err := runIn(t, dir, "profile", "-benchtime", "200ms", "-cpu", "1,2", "-o", out, "./alpha", "./beta")
	require.NoError(t, err, "profile\n%s", errOut)
	entries := readIndex(t, out)
	hot := map[string]string{"BenchmarkA/k=x": "hotX", "BenchmarkA/k=y": "hotY", "BenchmarkB": "hotB"}
	var got []string
	for _, e := range entries {
		got = append(got, e.Pkg+" "+e.Benchmark)
		want := hot[strings.TrimSuffix(e.Benchmark, "-2")]
		funcs := cpuFuncs(t, filepath.Join(out, filepath.FromSlash(e.CPU)))
		for _, h := range []string{"hotX", "hotY", "hotB"} {
			assert.Equal(t, h == want, funcs[h], "CPU profile of %s (%s): %s on a stack", e.Benchmark, e.CPU, h)
		}
		if !assert.NotEmpty(t, e.Alloc, "%s: no allocation profile in the index", e.Benchmark) {
			continue
		}
		if f, err := os.Open(filepath.Join(out, filepath.FromSlash(e.Alloc))); assert.NoError(t, err) {
			_, err := profile.Parse(f)
			assert.NoError(t, err, "%s", e.Alloc)
			f.Close()
		}
	}
	slices.Sort(got)
	want := []string{
		"example.com/m/alpha BenchmarkA/k=x", "example.com/m/alpha BenchmarkA/k=x-2",
		"example.com/m/alpha BenchmarkA/k=y", "example.com/m/alpha BenchmarkA/k=y-2",
		"example.com/m/beta BenchmarkB", "example.com/m/beta BenchmarkB-2",
	}
	assert.Equal(t, want, got, "index lists")
	txt, err := os.ReadFile(filepath.Join(out, "index.txt"))
	require.NoError(t, err)
	for _, e := range entries {
		assert.Contains(t, string(txt), e.Benchmark+" ", "index.txt lacks %s %s:\n%s", e.Benchmark, e.CPU, txt)
		assert.Contains(t, string(txt), e.CPU, "index.txt lacks %s %s:\n%s", e.Benchmark, e.CPU, txt)
		if e.Flame != "" {
			assert.Contains(t, string(txt), outsideCell(e), "index.txt lacks the share outside the timed region of %s:\n%s", e.Benchmark, txt)
		}
	}
	// Nothing but the index and the listed profiles.
	listed := map[string]bool{"index.json": true, "index.txt": true}
	for _, e := range entries {
		listed[e.CPU], listed[e.Alloc] = true, true
		listed[e.CPUSmall], listed[e.AllocSmall] = true, true
		assert.NotEmpty(t, e.CPUSmall, "%s: no profile of the smaller run", e.Benchmark)
		for _, f := range []string{e.Flame, e.Folded, e.AllocFlame} {
			if f != "" {
				listed[f] = true
				_, err := os.Stat(filepath.Join(out, f))
				assert.NoError(t, err, "index lists %s", f)
			}
		}
		if e.Flame != "" {
			page, err := os.ReadFile(filepath.Join(out, e.Flame))
			require.NoError(t, err)
			assert.Contains(t, string(page), "outside the timed region", "%s states the share outside the timed region", e.Flame)
			assert.Positive(t, e.Ops, "%s: iterations of the difference", e.Benchmark)
		}
	}
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(out, p)
			assert.True(t, listed[filepath.ToSlash(rel)], "unlisted file %s", rel)
		}
		return nil
	})

	// The directory is not empty now: refused before anything is built.
	_, _, err = runIn(t, dir, "profile", "-o", out, "./beta")
	wantStatus(t, err, exitFailure, "is not empty")
}

// TestProfileDefaultDir: without -o, profiles go to
// netbench-profiles/<first 12 digits of HEAD>, "-dirty" when the tree has
// changes; -mem=false writes CPU profiles only. The directory is ignored
// by git (a .gitignore of "*" in netbench-profiles, as go's and pytest's
// caches do), so profiling leaves the tree clean: the profiles once made
// the next run's commit "-dirty", and a second profile of the same commit
// went to <commit>-dirty.
func TestProfileDefaultDir(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and profiles a module")
	}
	dir := profileModule(t)
	commit := gitRun(t, dir, "rev-parse", "HEAD")
	_, errOut, err := runIn(t, dir, "profile", "-benchtime", "1x", "-mem=false", "./beta")
	require.NoError(t, err, "profile\n%s", errOut)
	out := filepath.Join(dir, "netbench-profiles", commit[:12])
	entries := readIndex(t, out)
	require.Len(t, entries, 1, "index %+v, want BenchmarkB only", entries)
	assert.Equal(t, "BenchmarkB", strings.TrimSuffix(entries[0].Benchmark, "-"+lastField(entries[0].Benchmark)), "index: the benchmark (at this GOMAXPROCS)")
	assert.Empty(t, entries[0].Alloc, "index: want a CPU profile only")
	assert.Empty(t, gitRun(t, dir, "status", "--porcelain", "--untracked-files=all"), "git status after profile")
	runOut, errOut, err := runIn(t, dir, "run", "-benchtime", "1x", "./beta")
	require.NoError(t, err, "run: %s", errOut)
	assert.Contains(t, runOut, "commit: "+commit+"\n", "run after profile")

	// A second profile of the commit names the same directory: refused
	// without -force, written into with it.
	_, _, err = runIn(t, dir, "profile", "-benchtime", "1x", "./beta")
	wantStatus(t, err, exitFailure, filepath.Join("netbench-profiles", commit[:12])+" is not empty")
	_, errOut, err = runIn(t, dir, "profile", "-benchtime", "1x", "-force", "./beta")
	require.NoError(t, err, "profile -force: %s", errOut)
	assert.NotEmpty(t, readIndex(t, out)[0].Alloc, "the second profile wrote into %s", out)
	assert.Equal(t, []string{".gitignore", commit[:12]}, leftovers(t, filepath.Join(dir, "netbench-profiles")))
	assert.Empty(t, gitRun(t, dir, "status", "--porcelain", "--untracked-files=all"), "git status after two profiles")

	// A tree with changes is still dirty, and says so.
	writeFiles(t, dir, map[string]string{"beta/new.go": "package beta\n"})
	_, errOut, err = runIn(t, dir, "profile", "-benchtime", "1x", "-mem=false", "./beta")
	require.NoError(t, err, "profile: %s", errOut)
	readIndex(t, filepath.Join(dir, "netbench-profiles", commit[:12]+"-dirty"))
}

func TestProfileErrors(t *testing.T) {
	dir := profileModule(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"profile", "-bench", "NoSuch", "-o", t.TempDir(), "./beta"}, "no benchmarks match"},
		{[]string{"profile", "-bench", "Skip", "-benchtime", "1x", "-o", t.TempDir(), "./beta"}, "printed a result"},
		{[]string{"profile", "-count", "3", "./beta"}, "-count does not apply"},
		{[]string{"profile", "-cpu", "0", "./beta"}, "invalid -cpu"},
	} {
		_, _, err := runIn(t, dir, tc.args...)
		wantStatus(t, err, exitFailure, tc.want)
	}
}

func TestSlugs(t *testing.T) {
	for in, want := range map[string]string{
		"example.com/m/sum":     "example.com_m_sum",
		"Get/size=64/impl=a-2":  "Get_size=64_impl=a-2",
		"..":                    "_.",
		"":                      "_",
		"a b\t<c>*?|\\:\"'%#&~": "a_b__c____________",
		"n=1,2+3":               "n=1,2+3",
	} {
		got := slug(in)
		assert.Equal(t, want, got, "slug(%q)", in)
	}
	var s slugs
	var got []string
	for _, n := range []string{"a_b", "a/b", "A_B", "c", "a_b~2"} {
		got = append(got, s.file("p", slug(n)))
	}
	want := []string{"p/a_b", "p/a_b~2", "p/A_B~3", "p/c", "p/a_b_2"}
	assert.Equal(t, want, got, "file names")
}
