package main

import (
	"encoding/json"
	"flag"
	"github.com/netkit/netkit/internal/benchrun"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
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
	if err != nil {
		t.Fatalf("A/A compare: %v\n%s", err, errOut)
	}
	if _, err := os.Stat(pass); !os.IsNotExist(err) {
		t.Errorf("a passing compare made %s (%v): %q", pass, err, pprofFiles(t, pass))
	}
	if strings.Contains(errOut, "profiling") {
		t.Errorf("a passing compare profiled:\n%s", errOut)
	}

	writeFiles(t, dir, map[string]string{"sum/sum_test.go": benchFile(6000, 1000, false)})
	gitRun(t, dir, "commit", "-q", "-am", "Slower: 6x the work")
	report := filepath.Join(t.TempDir(), "report.json")
	_, errOut, err = runIn(t, dir, append(gate, "-threshold", "50", "-profile", "-o", report, oldCommit, "HEAD", "./sum")...)
	wantStatus(t, err, exitRegression, "Slower")
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rows []verdictRow
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatalf("json: %v\n%s", err, b)
	}
	var want []string
	for _, r := range rows {
		if r.Fails && r.Unit == "sec/op" {
			s := slug(r.Name)
			want = append(want, "example.com_m_sum/"+s+".new.cpu.pprof", "example.com_m_sum/"+s+".old.cpu.pprof")
		}
	}
	slices.Sort(want)
	if !slices.ContainsFunc(want, func(f string) bool { return strings.Contains(f, "/Slower") }) {
		t.Fatalf("Slower does not fail the gate: %+v", rows)
	}
	got := pprofFiles(t, strings.TrimSuffix(report, ".json")+"-profiles")
	if !slices.Equal(got, want) {
		t.Errorf("profiles %q, want %q (2 per failing benchmark)\nstderr:\n%s", got, want, errOut)
	}
	for _, f := range got {
		cpuFuncs(t, filepath.Join(strings.TrimSuffix(report, ".json")+"-profiles", f)) // parses, as a CPU profile
	}
	if list := gitRun(t, dir, "worktree", "list"); strings.Count(list, "\n") != 0 {
		t.Errorf("worktrees left behind:\n%s", list)
	}

	// Without -o, the profiles go to netbench-profiles/compare-<old>-<new>
	// under the current directory, which git ignores: profiling leaves the
	// tree clean.
	_, errOut, err = runIn(t, dir, append(gate, "-threshold", "50", "-profile", oldCommit, "HEAD", "./sum")...)
	wantStatus(t, err, exitRegression, "Slower")
	def := filepath.Join(dir, "netbench-profiles", "compare-"+oldCommit[:12]+"-"+gitRun(t, dir, "rev-parse", "HEAD")[:12])
	if got := pprofFiles(t, def); len(got) == 0 {
		t.Errorf("no profiles in %s\nstderr:\n%s", def, errOut)
	}
	if st := gitRun(t, dir, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("git status after compare -profile:\n%s", st)
	}
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
		if err := fs.Parse(tt.args); err != nil || p.on != tt.on || p.dir != tt.dir || fs.NArg() != tt.rest {
			t.Errorf("%q: %v, on %v dir %q, %d args left; want on %v dir %q, %d args", tt.args, err, p.on, p.dir, fs.NArg(), tt.on, tt.dir, tt.rest)
		}
	}
}

// TestProfileOptions: compare's profiling runs last at least a second of
// benchmark time, so that set-up outside the loop stays a small part of
// the profile; an iteration count is kept as the user gave it.
func TestProfileOptions(t *testing.T) {
	for in, want := range map[string]string{"": "1s", "200ms": "1s", "1s": "1s", "3s": "3s", "1000x": "1000x"} {
		if got := profileOptions(benchrun.Options{Benchtime: in}).Benchtime; got != want {
			t.Errorf("-benchtime %q: profiling runs use %q, want %q", in, got, want)
		}
	}
}
