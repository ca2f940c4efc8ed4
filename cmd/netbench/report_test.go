package main

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
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
	if !errors.As(err, &se) || se.code != exitRegression {
		t.Fatalf("compare: %v, want exit status %d (Slower regressed)\nstderr:\n%s", err, exitRegression, errOut)
	}
	if out != "" {
		t.Errorf("standard output with -o:\n%s", out)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	if !strings.HasPrefix(page, "<!DOCTYPE html>") || !strings.HasSuffix(page, "</html>\n") {
		t.Errorf("not a whole page:\n%.300s", page)
	}

	// One sec/op chart per benchmark, and one more of Alloc's allocs/op
	// and B/op, which fail the gate.
	var charts []string
	for _, m := range regexp.MustCompile(`<svg class="chart" data-bench="([^"]*)" data-unit="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		charts = append(charts, strings.TrimSuffix(m[1], "-"+lastField(m[1]))+" "+m[2])
	}
	slices.Sort(charts)
	want := []string{"Alloc B/op", "Alloc allocs/op", "Alloc sec/op", "Faster sec/op", "Same sec/op", "Slower sec/op"}
	if !slices.Equal(charts, want) {
		t.Errorf("charts %q, want %q", charts, want)
	}
	// The regression's section comes first.
	if i, j := strings.Index(page, `data-bench="Slower`), strings.Index(page, `data-bench="Faster`); i < 0 || j < 0 || i > j {
		t.Errorf("Slower's chart at %d, Faster's at %d: the regression should come first", i, j)
	}

	envRow := func(k, v string) string { return "<tr><td>" + k + "</td><td>" + v + "</td></tr>" }
	if strings.Contains(page, "<tr><td>commit</td>") {
		t.Error("the environment has a commit line: the HEAD netbench ran in, which is neither revision")
	}
	if !strings.Contains(page, head[:12]) {
		t.Errorf("the page does not name the new revision %s", head[:12])
	}
	for _, row := range []string{
		envRow("goos", runtime.GOOS),
		envRow("goarch", runtime.GOARCH),
		envRow("pkg", "example.com/m/sum"),
	} {
		if n := strings.Count(page, row); n != 1 {
			t.Errorf("%d times in the page, want once: %s", n, row)
		}
	}
	for _, key := range []string{"go", "gomaxprocs"} {
		if !strings.Contains(page, "<tr><td>"+key+"</td><td>") {
			t.Errorf("no %s line in the environment", key)
		}
	}
}

func TestEnvironment(t *testing.T) {
	config := []string{"commit: abc", "go: go1.26.0"}
	old := "goos: linux\ngoarch: amd64\npkg: m/a\ncpu: X\nBenchmarkA 1 1 ns/op\ngoos: linux\ngoarch: amd64\npkg: m/b\ncpu: X\n"
	new := "goos: linux\r\ngoarch: arm64\npkg: m/a\nBenchmarkA 1 1 ns/op\nnotes: x\n"
	got := environment(config, []byte(old), []byte(new))
	want := []string{"go: go1.26.0", "goos: linux", "goarch: amd64", "pkg: m/a", "cpu: X", "pkg: m/b", "goarch: arm64"}
	if !slices.Equal(got, want) {
		t.Errorf("environment\n%q, want\n%q", got, want)
	}
}
