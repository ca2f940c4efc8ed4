package main

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/netkit/netkit/internal/benchrun"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pprofFiles returns the .pprof files under dir, relative to it.
func pprofFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".pprof") {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(files)
	return files
}

// TestCompareProfile: compare -profile profiles nothing when the gate
// passes, and exactly the benchmarks that fail it, once on each revision,
// when it fails: here a benchmark made 6x slower in the second commit (a margin that
// other packages' tests sharing a 2-core machine cannot blur).
func TestCompareProfile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs two revisions")
	}
	t.Setenv("NETBENCH_CACHE", t.TempDir())
	dir, oldCommit := newModule(t, map[string]string{"sum/sum_test.go": benchFile(1000, 1000, false)})
	gate := []string{"compare", "-format", "json", "-count", "6", "-benchtime", "100ms", "-alpha", "0.01", "-seed", "1"}

	// Nothing fails: no profiling, not even a directory.
	pass := filepath.Join(t.TempDir(), "pass")
	_, errOut, err := runIn(t, dir, append(gate, "-threshold", "1000", "-profile="+pass, oldCommit, "HEAD", "./sum")...)
	require.NoError(t, err, "A/A compare\n%s", errOut)
	assert.NoDirExists(t, pass, "a passing compare made it")
	assert.NotContains(t, errOut, "profiling", "a passing compare profiled:\n%s", errOut)

	writeFiles(t, dir, map[string]string{"sum/sum_test.go": benchFile(6000, 1000, false)})
	gitRun(t, dir, "commit", "-q", "-am", "Slower: 6x the work")
	report := filepath.Join(t.TempDir(), "report.json")
	_, errOut, err = runIn(t, dir, append(gate, "-threshold", "50", "-profile", "-o", report, oldCommit, "HEAD", "./sum")...)
	wantStatus(t, err, exitRegression, "Slower")
	b, err := os.ReadFile(report)
	require.NoError(t, err)
	rows := reportRows[verdictRow](t, b)
	var want []string
	for _, r := range rows {
		if r.Fails && r.Unit == "sec/op" {
			s := slug(r.Name)
			want = append(want, "example.com_m_sum/"+s+".new.cpu.pprof", "example.com_m_sum/"+s+".new.cpu.small.pprof",
				"example.com_m_sum/"+s+".old.cpu.pprof", "example.com_m_sum/"+s+".old.cpu.small.pprof")
		}
	}
	slices.Sort(want)
	require.True(t, slices.ContainsFunc(want, func(f string) bool { return strings.Contains(f, "/Slower") }), "Slower does not fail the gate: %+v", rows)
	got := pprofFiles(t, strings.TrimSuffix(report, ".json")+"-profiles")
	assert.Equal(t, want, got, "profiles %q, want %q (4 per failing benchmark: two runs on each side)\nstderr:\n%s", got, want, errOut)
	for _, f := range got {
		cpuFuncs(t, filepath.Join(strings.TrimSuffix(report, ".json")+"-profiles", f)) // parses, as a CPU profile
	}
	list := gitRun(t, dir, "worktree", "list")
	assert.Equal(t, 0, strings.Count(list, "\n"), "worktrees left behind:\n%s", list)

	// Without -o, the profiles go to netbench-profiles/compare-<old>-<new>
	// under the current directory, which git ignores: profiling leaves the
	// tree clean.
	_, errOut, err = runIn(t, dir, append(gate, "-threshold", "50", "-profile", oldCommit, "HEAD", "./sum")...)
	wantStatus(t, err, exitRegression, "Slower")
	def := filepath.Join(dir, "netbench-profiles", "compare-"+oldCommit[:12]+"-"+gitRun(t, dir, "rev-parse", "HEAD")[:12])
	assert.NotEmpty(t, pprofFiles(t, def), "no profiles in %s\nstderr:\n%s", def, errOut)
	st := gitRun(t, dir, "status", "--porcelain", "--untracked-files=all")
	assert.Equal(t, "", st, "git status after compare -profile:\n%s", st)
}

func TestProfileFlag(t *testing.T) {
	for _, tt := range []struct {
		args []string
		on   bool
		dir  string
		rest int
	}{
		{nil, false, "", 0},
		{[]string{"-profile"}, true, "", 0},
		{[]string{"-profile", "a", "b"}, true, "", 2},
		{[]string{"-profile=out/p"}, true, "out/p", 0},
		{[]string{"-profile=true"}, true, "", 0},
		{[]string{"-profile=x", "-profile=false"}, false, "", 0},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		var p profileFlag
		fs.Var(&p, "profile", "")
		if assert.NoError(t, fs.Parse(tt.args), "%q", tt.args) {
			assert.Equal(t, tt.on, p.on, "%q: on", tt.args)
			assert.Equal(t, tt.dir, p.dir, "%q: dir", tt.args)
			assert.Equal(t, tt.rest, fs.NArg(), "%q: arguments left", tt.args)
		}
	}
}

// TestProfileOptions: compare's profiling runs last at least a second of
// benchmark time, so that set-up outside the loop stays a small part of
// the profile; an iteration count is kept as the user gave it.
func TestProfileOptions(t *testing.T) {
	for in, want := range map[string]string{"": "1s", "200ms": "1s", "1s": "1s", "3s": "3s", "1000x": "1000x"} {
		got := profileOptions(benchrun.Options{Benchtime: in}).Benchtime
		assert.Equal(t, want, got, "-benchtime %q: profiling runs use", in)
	}
}
