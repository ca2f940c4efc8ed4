package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// benchFile is a package whose benchmarks do work(n) iterations of a loop.
func benchFile(slower, faster int, alloc bool) string {
	a := ""
	if alloc {
		a = "\n\t\tsinkBytes = make([]byte, 64)"
	}
	return `package sum

import "testing"

var (
	sink      int
	sinkBytes []byte
)

func work(n int) int {
	s := 1
	for i := 0; i < n; i++ {
		s = s*31 + i ^ s>>3
	}
	return s
}

func BenchmarkSlower(b *testing.B) {
	for b.Loop() {
		sink = work(` + strconv.Itoa(slower) + `)
	}
}

func BenchmarkFaster(b *testing.B) {
	for b.Loop() {
		sink = work(` + strconv.Itoa(faster) + `)
	}
}

func BenchmarkAlloc(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sink = work(10)` + a + `
	}
}

func BenchmarkSame(b *testing.B) {
	for b.Loop() {
		sink = work(1000)
	}
}
`
}

type verdictRow struct {
	Name    string  `json:"name"`
	Unit    string  `json:"unit"`
	Verdict string  `json:"verdict"`
	Fails   bool    `json:"fails_gate"`
	Delta   float64 `json:"delta_pct"`
}

// TestCompareFixture: a repository with two commits in which one benchmark
// gets twice as slow, one twice as fast, one gains an allocation and one is
// unchanged. compare must say so and exit 1.
func TestCompareFixture(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs two revisions")
	}
	t.Setenv("NETBENCH_CACHE", t.TempDir())
	// 8x apart and ten samples a side: on a loaded 2-core host a sample
	// can run several times slower, and with six samples at 4x one such
	// sample was enough to make a 4x change "not significant" at 0.01.
	dir, oldCommit := newModule(t, map[string]string{"sum/sum_test.go": benchFile(500, 4000, false)})
	writeFiles(t, dir, map[string]string{"sum/sum_test.go": benchFile(4000, 500, true)})
	gitRun(t, dir, "commit", "-q", "-am", "change speeds")

	args := []string{"compare", "-format", "json", "-count", "10", "-benchtime", "100ms", "-alpha", "0.01", "-threshold", "25%", "-seed", "1", oldCommit, "HEAD", "./sum"}
	out, errOut, err := runIn(t, dir, args...)
	var se *statusError
	require.ErrorAs(t, err, &se, "compare: %v, want exit status %d\nstderr:\n%s\nstdout:\n%s", err, exitRegression, errOut, out)
	require.Equal(t, exitRegression, se.code, "compare: %v, want exit status %d\nstderr:\n%s\nstdout:\n%s", err, exitRegression, errOut, out)
	rows := reportRows[verdictRow](t, []byte(out))
	var report struct {
		Environment []string `json:"environment"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &report))
	assert.True(t, slices.ContainsFunc(report.Environment, func(l string) bool { return strings.HasPrefix(l, "load: before ") }),
		"the report's environment has the load summary: %q", report.Environment)
	got := map[string]verdictRow{}
	var table strings.Builder
	for _, r := range rows {
		got[strings.TrimSuffix(r.Name, "-"+lastField(r.Name))+" "+r.Unit] = r
		fmt.Fprintf(&table, "%-10s %-10s %+8.1f%%  %-9s fails_gate=%v\n", r.Name, r.Unit, r.Delta, r.Verdict, r.Fails)
	}
	t.Logf("verdicts:\n%s", table.String())
	want := []struct {
		key     string
		verdict string
		fails   bool
	}{
		{"Slower sec/op", "worse", true},
		{"Faster sec/op", "better", false},
		{"Alloc allocs/op", "worse", true},
		{"Alloc B/op", "worse", true},
		{"Same sec/op", "", false}, // any verdict, but within the gate
	}
	sameFailed := false
	for _, w := range want {
		r, ok := got[w.key]
		if !assert.True(t, ok, "no row %q in %v", w.key, got) {
			continue
		}
		if w.verdict != "" {
			assert.Equal(t, w.verdict, r.Verdict, "%s: verdict (delta %.1f%%)", w.key, r.Delta)
		}
		if w.key == "Same sec/op" && r.Fails {
			// An unchanged benchmark failing the gate is either a false
			// positive of the statistics or a host that slowed one
			// revision's samples more than the other's (a CI run saw
			// +31.6% on a busy machine). The second run below decides:
			// a false positive twice over is the statistics' fault.
			t.Logf("Same sec/op failed the gate (delta %.1f%%): looking again in the second run", r.Delta)
			sameFailed = true
			continue
		}
		assert.Equal(t, w.fails, r.Fails, "%s: fails the gate (verdict %q, delta %.1f%%)", w.key, r.Verdict, r.Delta)
	}
	list := gitRun(t, dir, "worktree", "list")
	assert.Equal(t, 0, strings.Count(list, "\n"), "worktrees left behind:\n%s", list)

	// Second run: binaries come from the cache.
	out, errOut, _ = runIn(t, dir, args...)
	assert.Equal(t, 2, strings.Count(errOut, "test binaries cached"), "second run rebuilt:\n%s", errOut)
	if sameFailed {
		for _, r := range reportRows[verdictRow](t, []byte(out)) {
			if strings.HasPrefix(r.Name, "Same-") && r.Unit == "sec/op" {
				assert.False(t, r.Fails, "Same sec/op failed the gate in both runs (second: verdict %q, delta %.1f%%)", r.Verdict, r.Delta)
			}
		}
	}
}

// TestCompareSame: comparing a revision with itself reports no failure.
func TestCompareSame(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs two revisions")
	}
	t.Setenv("NETBENCH_CACHE", t.TempDir())
	dir, _ := newModule(t, nil)
	out, errOut, err := runIn(t, dir, "compare", "-bench", "Sum", "-count", "6", "-benchtime", "20000x", "-alpha", "0.01", "-threshold", "50", "HEAD", ".", "./...")
	require.NoError(t, err, "A/A compare\n%s\n%s", errOut, out)
	assert.Contains(t, out, "sec/op", "text table:\n%s", out)
	assert.Contains(t, out, "Sum/n=10-", "text table:\n%s", out)
}

func TestCompareErrors(t *testing.T) {
	t.Setenv("NETBENCH_CACHE", t.TempDir())
	dir, _ := newModule(t, nil)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", "HEAD"}, "needs two revisions"},
		{[]string{"compare", "no-such-rev", "HEAD"}, `unknown revision "no-such-rev"`},
		{[]string{"compare", "-format", "xml", "HEAD", "HEAD"}, "unknown -format"},
		{[]string{"compare", "-correct", "bonferroni", "HEAD", "HEAD"}, "unknown -correct"},
	} {
		_, _, err := runIn(t, dir, tc.args...)
		var se *statusError
		if assert.ErrorAs(t, err, &se, "%v", tc.args) {
			assert.Equal(t, exitFailure, se.code, "%v: exit status", tc.args)
			assert.Contains(t, err.Error(), tc.want, "%v", tc.args)
		}
	}
}

func TestClean(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "cache")
	t.Setenv("NETBENCH_CACHE", cache)
	writeFiles(t, cache, map[string]string{"bin/x": "x"})
	out, _, err := runIn(t, t.TempDir(), "clean")
	require.NoError(t, err, "clean %s", out)
	require.Contains(t, out, "removed", "clean: %v %s", err, out)
	m, _ := filepath.Glob(filepath.Join(cache, "*"))
	require.Empty(t, m, "cache not removed: %v", m)
}

func lastField(name string) string {
	if i := strings.LastIndexByte(name, '-'); i >= 0 {
		return name[i+1:]
	}
	return ""
}

// TestCompareBrokenRevision: a revision whose tests do not build is
// reported with the compiler's output and exit status 2, never an empty
// table.
func TestCompareBrokenRevision(t *testing.T) {
	t.Setenv("NETBENCH_CACHE", t.TempDir())
	dir, good := newModule(t, nil)
	writeFiles(t, dir, map[string]string{"sum/bad_test.go": "package sum\n\nfunc BenchmarkBad(b *testing.B) { undefinedThing() }\n"})
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-q", "-m", "broken")
	out, _, err := runIn(t, dir, "compare", "-count", "1", "-allow-low-count", "-benchtime", "1x", good, "HEAD", "./...")
	var se *statusError
	require.ErrorAs(t, err, &se, "compare with a broken revision: %v, want exit %d naming the revision and the compiler error", err, exitFailure)
	require.Equal(t, exitFailure, se.code, "compare with a broken revision: %v, want exit %d naming the revision and the compiler error", err, exitFailure)
	require.Contains(t, err.Error(), "revision HEAD", "compare with a broken revision: %v, want exit %d naming the revision and the compiler error", err, exitFailure)
	require.Contains(t, err.Error(), "undefined", "compare with a broken revision: %v, want exit %d naming the revision and the compiler error", err, exitFailure)
	assert.Equal(t, "", out, "a table was printed for a failed comparison:\n%s", out)
	list := gitRun(t, dir, "worktree", "list")
	assert.Equal(t, 0, strings.Count(list, "\n"), "worktrees left behind:\n%s", list)
}

// sleepSubs is a package with one benchmark of eight sub-benchmarks, each
// sleeping d per iteration.
func sleepSubs(d time.Duration) string {
	return `package slow

import (
	"fmt"
	"testing"
	"time"
)

func BenchmarkSleep(b *testing.B) {
	for i := range 8 {
		b.Run(fmt.Sprintf("i=%d", i), func(b *testing.B) {
			for b.Loop() {
				time.Sleep(` + strconv.FormatInt(int64(d), 10) + `)
			}
		})
	}
}
`
}

// TestCompareHolmLowCount: with -count 5, each row's smallest possible
// p-value is 2/C(10,5) ≈ 0.0079, below alpha 0.05, so the up-front check
// let it pass; but under -correct holm over the eight gated rows the
// smallest adjusted p-value is 8 × 0.0079 ≈ 0.063, and a 3x slowdown of
// every benchmark passed the gate silently, with exit status 0. Such a
// comparison cannot gate: it is refused with exit status 2 after the
// report is written, or warned about under -allow-low-count.
func TestCompareHolmLowCount(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs two revisions")
	}
	t.Setenv("NETBENCH_CACHE", t.TempDir())
	dir, _ := newModule(t, map[string]string{"slow/slow_test.go": sleepSubs(2 * time.Millisecond)})
	writeFiles(t, dir, map[string]string{"slow/slow_test.go": sleepSubs(6 * time.Millisecond)})
	args := []string{"compare", "-benchtime", "1x", "-cpu", "1", "-count", "5", "-format", "json", "HEAD", ".", "./slow"}

	// Without the correction the 3x slowdowns fail the gate: the fixture
	// measures what it should. (Not necessarily all eight: on a loaded
	// host one sleep can overrun by more than 4ms.)
	_, errOut, err := runIn(t, dir, args...)
	wantStatus(t, err, exitRegression, "regression(s) beyond the gate")
	require.NotContains(t, withoutNoise(errOut), "warning")

	out, errOut, err := runIn(t, dir, append([]string{args[0], "-correct", "holm"}, args[1:]...)...)
	wantStatus(t, err, exitFailure, "-correct holm")
	for _, want := range []string{"8 gated rows", "-count 6", "-allow-low-count"} {
		assert.Contains(t, err.Error(), want)
	}
	require.NotEmpty(t, out, "the report is written all the same:\n%s", errOut)
	rows := reportRows[verdictRow](t, []byte(out))
	assert.Len(t, rows, 8*3) // sec/op, B/op, allocs/op

	_, errOut, err = runIn(t, dir, append([]string{args[0], "-correct", "holm", "-allow-low-count"}, args[1:]...)...)
	require.NoError(t, err, "-allow-low-count: only allocs/op and B/op gate, and they did not change")
	assert.Contains(t, errOut, "warning: with -correct holm over 8 gated rows")

	// At -count 6, as suggested, the smallest p-value, 2/C(12,6) ≈ 0.0022,
	// times 8 is below alpha: no refusal, and the slowdowns fail the gate.
	args[6] = "6"
	_, errOut, err = runIn(t, dir, append([]string{args[0], "-correct", "holm"}, args[1:]...)...)
	wantStatus(t, err, exitRegression, "regression(s) beyond the gate")
	assert.NotContains(t, withoutNoise(errOut), "warning")
}

// TestCompareGateUnits: a -gate unit that no benchmark measured gated
// nothing, silently: `-gate B/S` (for B/s) passed whatever the throughput
// did. It is an error (exit status 2, after the report), naming the units
// that were measured. Units are tidied as benchstat tidies them, so ns/op
// is sec/op and MB/s is B/s; an empty unit is refused before anything runs.
func TestCompareGateUnits(t *testing.T) {
	t.Setenv("NETBENCH_CACHE", t.TempDir())
	dir, _ := newModule(t, nil)
	base := []string{"compare", "-bench", "Sum", "-benchtime", "1x", "-count", "1", "-allow-low-count", "-cpu", "1"}
	for _, tc := range []struct {
		gate string
		code int    // 0 for success
		want string // in the error
	}{
		{"B/S", exitFailure, `-gate unit "B/S" was not measured`},
		{"B/s,widgets/op", exitFailure, `-gate units "B/s", "widgets/op" were not measured`},
		{"ns/op", 0, ""},
		{"sec/op,allocs/op", 0, ""},
		{"B/op, allocs/op", 0, ""},
		{"B/op,", exitFailure, "empty unit"},
		{",", exitFailure, "empty unit"},
	} {
		t.Run(tc.gate, func(t *testing.T) {
			out, errOut, err := runIn(t, dir, append(base, "-gate", tc.gate, "HEAD", ".", "./sum")...)
			if tc.code == 0 {
				require.NoError(t, err, "stderr:\n%s", errOut)
				// -count 1 is warned about once, before the runs, not
				// again after them.
				assert.Equal(t, 1, strings.Count(errOut, "warning: with 1 and 1 samples"), "stderr:\n%s", errOut)
				return
			}
			wantStatus(t, err, tc.code, tc.want)
			if strings.Contains(tc.want, "measured") {
				assert.Contains(t, err.Error(), "sec/op, B/op, allocs/op")
				assert.Contains(t, out, "Sum/n=10", "the report is written")
			}
		})
	}
}
