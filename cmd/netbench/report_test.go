package main

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCompareHTML: compare -format html -o writes one page with a chart
// of every benchmark and the environment — the configuration lines and,
// once each, the lines the test binaries printed — and nothing to standard
// output.
func TestCompareHTML(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs two revisions")
	}
	t.Setenv("NETBENCH_CACHE", t.TempDir())
	dir, oldCommit := newModule(t, map[string]string{"sum/sum_test.go": benchFile(1000, 4000, false)})
	writeFiles(t, dir, map[string]string{"sum/sum_test.go": benchFile(4000, 1000, true)})
	gitRun(t, dir, "commit", "-q", "-am", "change speeds")
	head := strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD"))
	file := filepath.Join(t.TempDir(), "report.html")

	out, errOut, err := runIn(t, dir, "compare", "-format", "html", "-o", file, "-count", "6", "-benchtime", "100ms", "-alpha", "0.01", "-threshold", "25%", "-seed", "1", oldCommit, "HEAD", "./sum")
	var se *statusError
	require.ErrorAs(t, err, &se, "compare: %v, want exit status %d (Slower regressed)\nstderr:\n%s", err, exitRegression, errOut)
	require.Equal(t, exitRegression, se.code, "compare: %v, want exit status %d (Slower regressed)\nstderr:\n%s", err, exitRegression, errOut)
	assert.Equal(t, "", out, "standard output with -o:\n%s", out)
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	page := string(b)
	assert.True(t, strings.HasPrefix(page, "<!DOCTYPE html>"), "not a whole page:\n%.300s", page)
	assert.True(t, strings.HasSuffix(page, "</html>\n"), "not a whole page:\n%.300s", page)

	// One sec/op chart per benchmark, and one more of Alloc's allocs/op
	// and B/op, which fail the gate.
	var charts []string
	for _, m := range regexp.MustCompile(`<svg class="chart" data-bench="([^"]*)" data-unit="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		charts = append(charts, strings.TrimSuffix(m[1], "-"+lastField(m[1]))+" "+m[2])
	}
	slices.Sort(charts)
	want := []string{"Alloc B/op", "Alloc allocs/op", "Alloc sec/op", "Faster sec/op", "Same sec/op", "Slower sec/op"}
	assert.Equal(t, want, charts, "charts")
	// The regression's section comes first.
	i, j := strings.Index(page, `data-bench="Slower`), strings.Index(page, `data-bench="Faster`)
	assert.GreaterOrEqual(t, i, 0, "Slower's chart at %d, Faster's at %d: the regression should come first", i, j)
	assert.GreaterOrEqual(t, j, 0, "Slower's chart at %d, Faster's at %d: the regression should come first", i, j)
	assert.LessOrEqual(t, i, j, "Slower's chart at %d, Faster's at %d: the regression should come first", i, j)

	envRow := func(k, v string) string { return "<tr><td>" + k + "</td><td>" + v + "</td></tr>" }
	assert.NotContains(t, page, "<tr><td>commit</td>", "the environment has a commit line: the HEAD netbench ran in, which is neither revision")
	assert.Contains(t, page, head[:12], "the page does not name the new revision")
	for _, row := range []string{
		envRow("goos", runtime.GOOS),
		envRow("goarch", runtime.GOARCH),
		envRow("pkg", "example.com/m/sum"),
	} {
		n := strings.Count(page, row)
		assert.Equal(t, 1, n, "%d times in the page, want once: %s", n, row)
	}
	for _, key := range []string{"go", "gomaxprocs"} {
		assert.Contains(t, page, "<tr><td>"+key+"</td><td>", "no %s line in the environment", key)
	}
}

func TestEnvironment(t *testing.T) {
	config := []string{"commit: abc", "go: go1.26.0"}
	old := "goos: linux\ngoarch: amd64\npkg: m/a\ncpu: X\nBenchmarkA 1 1 ns/op\ngoos: linux\ngoarch: amd64\npkg: m/b\ncpu: X\n"
	new := "goos: linux\r\ngoarch: arm64\npkg: m/a\nBenchmarkA 1 1 ns/op\nnotes: x\n"
	got := environment(config, []byte(old), []byte(new))
	want := []string{"go: go1.26.0", "goos: linux", "goarch: amd64", "pkg: m/a", "cpu: X", "pkg: m/b", "goarch: arm64"}
	assert.Equal(t, want, got, "environment\n%q, want\n%q", got, want)
}
