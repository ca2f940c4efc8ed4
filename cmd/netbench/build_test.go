package main

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// benchPackage is a test file of package name with one benchmark, bench.
func benchPackage(name, bench string) string {
	return "package " + name + "\n\nimport \"testing\"\n\nvar sink int\n\nfunc " + bench + "(b *testing.B) {\n\tfor b.Loop() {\n\t\tsink++\n\t}\n}\n"
}

// resultsByPackage maps each "pkg: " line of benchmark output to the names
// of the result lines that follow it, without the -GOMAXPROCS suffix.
func resultsByPackage(out string) map[string][]string {
	got := map[string][]string{}
	pkg := ""
	for line := range strings.Lines(out) {
		line = strings.TrimSpace(line)
		if p, ok := strings.CutPrefix(line, "pkg: "); ok {
			pkg = p
			continue
		}
		if m := resultLine.FindStringSubmatch(line); m != nil {
			got[pkg] = append(got[pkg], m[1])
		}
	}
	return got
}

// TestRunBinaryNamesDistinct: the packages a/b_c and a_b/c once shared one
// test binary file, so one package's benchmarks ran twice under both names
// and the other's never ran.
func TestRunBinaryNamesDistinct(t *testing.T) {
	dir, _ := newModule(t, map[string]string{
		"a/b_c/x_test.go": benchPackage("b_c", "BenchmarkUnderA"),
		"a_b/c/x_test.go": benchPackage("c", "BenchmarkUnderAB"),
	})
	out, errOut, err := runIn(t, dir, "run", "-benchtime", "1x", "./a/...", "./a_b/...")
	require.NoError(t, err, "run\n%s", errOut)
	got := resultsByPackage(out)
	want := map[string]string{"example.com/m/a/b_c": "BenchmarkUnderA", "example.com/m/a_b/c": "BenchmarkUnderAB"}
	for pkg, bench := range want {
		names := got[pkg]
		assert.Equal(t, []string{bench}, names, "package %s ran\n%s", pkg, out)
	}
}

// comparedBenchmarks runs compare with -format json in dir and returns the
// sorted "pkg name" of its sec/op rows, names without the -GOMAXPROCS
// suffix. -count 6 is the least at which -format json works (below it the
// median has no finite confidence interval, which JSON cannot encode).
func comparedBenchmarks(t *testing.T, dir string, args ...string) []string {
	t.Helper()
	args = append([]string{"compare", "-format", "json", "-count", "6", "-benchtime", "1x"}, args...)
	out, errOut, err := runIn(t, dir, args...)
	// 1x is noisy: a gated "regression" (exit 1) is no failure here.
	if se := (*statusError)(nil); !errors.As(err, &se) || se.code != exitRegression {
		require.NoError(t, err, "%v\nstderr:\n%s", args, errOut)
	}
	rows := reportRows[struct {
		Pkg  string `json:"pkg"`
		Name string `json:"name"`
		Unit string `json:"unit"`
	}](t, []byte(out))
	var names []string
	for _, r := range rows {
		if r.Unit == "sec/op" {
			names = append(names, r.Pkg+" "+strings.TrimSuffix(r.Name, "-"+lastField(r.Name)))
		}
	}
	slices.Sort(names)
	return names
}

// TestComparePatternsNotConfused: compare … ./foo, then compare … ./baz of
// the same commits once reported foo's results as baz's, from a cache
// keyed without the packages.
func TestComparePatternsNotConfused(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs revisions")
	}
	t.Setenv("NETBENCH_CACHE", t.TempDir())
	dir, _ := newModule(t, map[string]string{
		"foo/foo_test.go": benchPackage("foo", "BenchmarkFoo"),
		"baz/baz_test.go": benchPackage("baz", "BenchmarkBaz"),
	})
	for _, tc := range []struct{ pattern, want string }{
		{"./foo", "example.com/m/foo Foo"},
		{"./baz", "example.com/m/baz Baz"},
		{"./foo", "example.com/m/foo Foo"},
	} {
		got := comparedBenchmarks(t, dir, "HEAD", "HEAD", tc.pattern)
		assert.Equal(t, []string{tc.want}, got, "compare HEAD HEAD %s compared %q, want [%q]", tc.pattern, got, tc.want)
	}
}

// TestCompareBuildTags: GOFLAGS=-tags=… changes the test binary, so it
// must change the cache key; it once reused the untagged binaries.
func TestCompareBuildTags(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs revisions")
	}
	t.Setenv("NETBENCH_CACHE", t.TempDir())
	dir, _ := newModule(t, map[string]string{
		"tagged/plain_test.go": benchPackage("tagged", "BenchmarkPlain"),
		"tagged/extra_test.go": "//go:build extra\n\n" + strings.Replace(benchPackage("tagged", "BenchmarkExtra"), "var sink int\n", "", 1),
	})
	t.Setenv("GOFLAGS", "")
	plain := comparedBenchmarks(t, dir, "HEAD", "HEAD", "./tagged")
	t.Setenv("GOFLAGS", "-tags=extra")
	tagged := comparedBenchmarks(t, dir, "HEAD", "HEAD", "./tagged")
	want := []string{"example.com/m/tagged Plain"}
	assert.Equal(t, want, plain, "without tags: compared")
	assert.Equal(t, []string{"example.com/m/tagged Extra", "example.com/m/tagged Plain"}, tagged, "with GOFLAGS=-tags=extra: compared")
}

// TestCompareModuleInSubdirectory: a module in a subdirectory of the
// repository, compared from an empty cache, both from its real path and
// through a symbolic link to the repository (as macOS's /var is one). The
// module's place in the checkout was once computed against the link and
// pointed nowhere; only a cache filled before hid it.
func TestCompareModuleInSubdirectory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs revisions")
	}
	repo := t.TempDir()
	writeFiles(t, repo, map[string]string{
		"README":              "a repository with a module below its top\n",
		"mod/go.mod":          "module example.com/sub\n\ngo 1.26\n",
		"mod/sum/sum_test.go": benchPackage("sum", "BenchmarkSub"),
	})
	gitRun(t, repo, "init", "-q")
	gitRun(t, repo, "add", "-A")
	gitRun(t, repo, "commit", "-q", "-m", "initial")
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(repo, link); err != nil {
		t.Skip("no symbolic links:", err)
	}
	for _, top := range []string{repo, link} {
		t.Setenv("NETBENCH_CACHE", t.TempDir())
		got := comparedBenchmarks(t, filepath.Join(top, "mod"), "HEAD", ".", "./...")
		want := []string{"example.com/sub/sum Sub"}
		assert.Equal(t, want, got, "from %s: compared", top)
	}
}

// TestRunDirtyUntracked: an untracked .go file changes what is built, so
// it makes the commit line "-dirty"; an ignored file does not. Untracked
// files were once left out altogether.
func TestRunDirtyUntracked(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		dirty bool
	}{
		{"untracked go file", map[string]string{"sum/extra.go": "package sum\n\nconst Extra = 1\n"}, true},
		{"ignored file", map[string]string{"out.log": "noise\n"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, commit := newModule(t, map[string]string{".gitignore": "*.log\n"})
			writeFiles(t, dir, tc.files)
			out, errOut, err := runIn(t, dir, "run", "-bench", "Alloc", "-benchtime", "1x", "./sum")
			require.NoError(t, err, "run\n%s", errOut)
			want := "commit: " + commit + "\n"
			if tc.dirty {
				want = "commit: " + commit + "-dirty\n"
			}
			assert.Contains(t, out, want, "output lacks %q:\n%s", want, out)
		})
	}
}

// TestCompareRelativeCache: a relative $NETBENCH_CACHE, used from a
// subdirectory, is relative to where netbench runs, not to the top of the
// repository where git runs; the second run finds the binaries.
func TestCompareRelativeCache(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs revisions")
	}
	dir, _ := newModule(t, nil)
	t.Setenv("NETBENCH_CACHE", "cache")
	for range 2 {
		got := comparedBenchmarks(t, filepath.Join(dir, "sum"), "-bench", "Alloc", "HEAD", "HEAD", ".")
		want := []string{"example.com/m/sum Alloc"}
		assert.Equal(t, want, got, "compared")
	}
	_, errOut, _ := runIn(t, filepath.Join(dir, "sum"), "compare", "-count", "6", "-benchtime", "1x", "-bench", "Alloc", "HEAD", "HEAD", ".")
	assert.Equal(t, 2, strings.Count(errOut, "test binaries cached"), "third run rebuilt:\n%s", errOut)
	_, err := os.Stat(filepath.Join(dir, "sum", "cache", "bin"))
	assert.NoError(t, err, "no cache where NETBENCH_CACHE points")
}
