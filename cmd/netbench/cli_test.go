package main

import (
	"bytes"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/netkit/netkit/internal/benchrun"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wantStatus fails t unless err carries exit status code and mentions want.
func wantStatus(t *testing.T, err error, code int, want string) {
	t.Helper()
	var se *statusError
	require.ErrorAs(t, err, &se, "error %v, want exit status %d", err, code)
	require.Equal(t, code, se.code, "error %v, want exit status %d", err, code)
	require.Contains(t, err.Error(), want, "error %q does not mention %q", err, want)
}

// TestBadFlagsBuildNothing: bad flags are reported before anything runs.
// PATH holds only a go and a git that record being called, and neither
// may be.
func TestBadFlagsBuildNothing(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts")
	}
	bin := t.TempDir()
	called := filepath.Join(t.TempDir(), "called")
	for _, name := range []string{"go", "git"} {
		script := "#!/bin/sh\necho " + name + " >> " + called + "\nexit 1\n"
		require.NoError(t, os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755))
	}
	t.Setenv("PATH", bin)
	unwritable := filepath.Join(t.TempDir(), "no-such-dir", "out.txt")
	common := []struct {
		args []string
		want string
	}{
		{[]string{"-bench", "["}, "invalid -bench"},
		{[]string{"-bench", "Foo/("}, "invalid -bench"},
		{[]string{"-cpu", "0"}, "invalid -cpu"},
		{[]string{"-cpu", "x"}, "invalid -cpu"},
		{[]string{"-benchtime", "0x"}, "invalid -benchtime"},
		{[]string{"-count", "0"}, "-count must be at least 1"},
		{[]string{"-o", unwritable}, "no-such-dir"},
		{[]string{"-no-such-flag"}, "flag provided but not defined"},
	}
	for _, tc := range common {
		_, _, err := runIn(t, t.TempDir(), append([]string{"run"}, tc.args...)...)
		wantStatus(t, err, exitFailure, tc.want)
		args := append([]string{"compare"}, tc.args...)
		if tc.args[0] != "-count" {
			args = append(args, "-count", "10")
		}
		_, _, err = runIn(t, t.TempDir(), append(args, "HEAD", ".")...)
		wantStatus(t, err, exitFailure, tc.want)
		if tc.args[0] != "-count" && tc.args[0] != "-o" { // profile: -o is a directory
			_, _, err = runIn(t, t.TempDir(), append([]string{"profile"}, tc.args...)...)
			wantStatus(t, err, exitFailure, tc.want)
		}
	}
	nonEmpty := t.TempDir()
	writeFiles(t, nonEmpty, map[string]string{"old.cpu.pprof": "x"})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-count", "3"}, "-count does not apply"},
		{[]string{"-o", nonEmpty}, "is not empty"},
	} {
		_, _, err := runIn(t, t.TempDir(), append([]string{"profile"}, tc.args...)...)
		wantStatus(t, err, exitFailure, tc.want)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-threshold", "x"}, "percentage"},
		{[]string{"-threshold", "-1%"}, "percentage"},
		{[]string{"-alpha", "2"}, "-alpha must be between 0 and 1"},
		{[]string{"-count", "3"}, "-allow-low-count"},
		{[]string{"-format", "xml"}, "unknown -format"},
		{[]string{"-profile="}, "-profile=dir"},
		{[]string{"-rename", "a=b"}, "-rename needs -profile"},
		{[]string{"-profile", "-rename", "a"}, "want old=new"},
	} {
		_, _, err := runIn(t, t.TempDir(), append(append([]string{"compare"}, tc.args...), "HEAD", ".")...)
		wantStatus(t, err, exitFailure, tc.want)
	}
	b, err := os.ReadFile(called)
	assert.Error(t, err, "commands ran despite bad flags: %q", b)
	assert.NoDirExists(t, filepath.Dir(unwritable), "-o created a directory")
}

func TestPercentFlag(t *testing.T) {
	for in, want := range map[string]float64{"5": 5, "5%": 5, "0.5%": 0.5, "0": 0, "12.5": 12.5} {
		var p percent
		err := p.Set(in)
		assert.NoError(t, err, "Set(%q) = %v, %v; want %v", in, float64(p), err, want)
		assert.Equal(t, want, float64(p), "Set(%q) = %v, %v; want %v", in, float64(p), err, want)
	}
	for _, in := range []string{"", "x", "5%%", "%", "-1", "-1%", "NaN", "Inf", "5 percent"} {
		var p percent
		assert.Error(t, p.Set(in), "Set(%q) = nil (%v), want an error", in, float64(p))
	}
}

// TestHelpFlag: -h and -help of each command print the usage on standard
// output and succeed.
func TestHelpFlag(t *testing.T) {
	for _, args := range [][]string{{"run", "-h"}, {"run", "-help"}, {"compare", "-h"}, {"compare", "-count", "3", "-help"}, {"profile", "-h"}, {"-h"}, {"help"}} {
		out, errOut, err := runIn(t, t.TempDir(), args...)
		assert.NoError(t, err, "%v: error %v, stdout %d bytes, stderr %q; want nil, the usage on stdout, nothing on stderr", args, err, len(out), errOut)
		assert.Contains(t, out, "netbench compare [flags] OLD NEW", "%v: error %v, stdout %d bytes, stderr %q; want nil, the usage on stdout, nothing on stderr", args, err, len(out), errOut)
		assert.Equal(t, "", errOut, "%v: error %v, stdout %d bytes, stderr %q; want nil, the usage on stdout, nothing on stderr", args, err, len(out), errOut)
	}
}

// TestNoCommits: a repository without commits gets a plain message, for
// run and compare.
func TestNoCommits(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"go.mod": "module example.com/x\n\ngo 1.26\n"})
	gitRun(t, dir, "init", "-q")
	for _, args := range [][]string{{"run"}, {"compare", "HEAD", "."}} {
		_, _, err := runIn(t, dir, args...)
		require.ErrorIs(t, err, benchrun.ErrNoCommits, "%v", args)
		assert.NotContains(t, err.Error(), "rev-parse", "%v: want no git command line in the error", args)
		wantStatus(t, err, exitFailure, "repository has no commits")
	}
}

// TestGomaxprocsLine: the gomaxprocs line gives the -cpu list under -cpu,
// and this process's GOMAXPROCS (the benchmarks' too) without it.
func TestGomaxprocsLine(t *testing.T) {
	dir, _ := newModule(t, nil)
	for _, tc := range []struct {
		cpu, want string
	}{
		{"1, 2", "gomaxprocs: 1,2\n"},
		{"", "gomaxprocs: " + strconv.Itoa(runtime.GOMAXPROCS(0)) + "\n"},
	} {
		args := []string{"run", "-bench", "Alloc", "-benchtime", "1x"}
		if tc.cpu != "" {
			args = append(args, "-cpu", tc.cpu)
		}
		args = append(args, "./sum")
		out, errOut, err := runIn(t, dir, args...)
		require.NoError(t, err, "%v\n%s", args, errOut)
		assert.Equal(t, 1, strings.Count(out, "gomaxprocs: "), "-cpu %q: want one line %q:\n%s", tc.cpu, tc.want, out)
		assert.Contains(t, out, tc.want, "-cpu %q: want one line %q:\n%s", tc.cpu, tc.want, out)
	}
}

// devFull opens /dev/full, where every write fails with ENOSPC.
func devFull(t *testing.T) *os.File {
	t.Helper()
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full:", err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestWriteErrors: results that cannot be written (-o /dev/full, standard
// output on /dev/full) fail run and compare with exit status 2.
func TestWriteErrors(t *testing.T) {
	t.Setenv("NETBENCH_CACHE", t.TempDir())
	dir, _ := newModule(t, nil)
	t.Chdir(dir)
	full := devFull(t)
	runArgs := []string{"run", "-bench", "Alloc", "-benchtime", "1x", "./sum"}
	cmpArgs := []string{"compare", "-bench", "Sum", "-benchtime", "1x", "-count", "1", "-allow-low-count", "HEAD", ".", "./sum"}
	for _, tc := range []struct {
		name   string
		stdout *os.File
		args   []string
	}{
		{"run > /dev/full", full, runArgs},
		{"run -o /dev/full", nil, append([]string{"run", "-o", "/dev/full"}, runArgs[1:]...)},
		{"compare > /dev/full", full, cmpArgs},
		{"compare -o /dev/full", nil, append([]string{"compare", "-o", "/dev/full"}, cmpArgs[1:]...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout bytes.Buffer
			var errOut bytes.Buffer
			var err error
			if tc.stdout != nil {
				err = run(tc.stdout, &errOut, tc.args)
			} else {
				err = run(&stdout, &errOut, tc.args)
			}
			require.ErrorIs(t, err, syscall.ENOSPC, "error %v, want ENOSPC\nstderr:\n%s", err, errOut.String())
			wantStatus(t, err, exitFailure, "writing")
			assert.NotContains(t, errOut.String(), "netbench: ran ", "a failed run printed its summary:\n%s", errOut.String())
		})
	}
}

// TestCompareOneSided: benchmarks that ran in one revision only are listed
// on standard error and marked in the table; with nothing left to compare,
// compare fails with exit status 2.
func TestCompareOneSided(t *testing.T) {
	t.Setenv("NETBENCH_CACHE", t.TempDir())
	dir, first := newModule(t, nil)
	writeFiles(t, dir, map[string]string{"sum/extra_test.go": "package sum\n\nimport \"testing\"\n\nfunc BenchmarkSumExtra(b *testing.B) {\n\tfor b.Loop() {\n\t\tsink = Sum(nil)\n\t}\n}\n"})
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-q", "-m", "extra")
	second := gitRun(t, dir, "rev-parse", "HEAD")
	gitRun(t, dir, "rm", "-q", "sum/sum_test.go")
	writeFiles(t, dir, map[string]string{"sum/extra_test.go": "package sum\n\nimport \"testing\"\n\nvar sink int\n\nfunc BenchmarkSumOther(b *testing.B) {\n\tfor b.Loop() {\n\t\tsink = Sum(nil)\n\t}\n}\n"})
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-q", "-m", "renamed")
	flags := []string{"compare", "-bench", "Sum", "-benchtime", "1x", "-count", "1", "-allow-low-count", "-cpu", "1"}

	out, errOut, err := runIn(t, dir, append(flags, first, second, "./sum")...)
	require.NoError(t, err, "compare with one added benchmark, want success\n%s", errOut)
	assert.Contains(t, errOut, "1 benchmark(s) ran in one revision only", "stderr does not list SumExtra as only in the new revision:\n%s", errOut)
	assert.Contains(t, errOut, "SumExtra (only in "+second+")", "stderr does not list SumExtra as only in the new revision:\n%s", errOut)
	assert.Contains(t, out, "SumExtra", "table does not mark SumExtra as added:\n%s", out)
	assert.Contains(t, out, "added", "table does not mark SumExtra as added:\n%s", out)

	_, errOut, err = runIn(t, dir, append(flags, first, "HEAD", "./sum")...)
	wantStatus(t, err, exitFailure, "nothing was compared")
	for _, want := range []string{"Sum/n=10 (only in " + first + ")", "SumOther (only in HEAD)"} {
		assert.Contains(t, errOut, want, "stderr lacks %q:\n%s", want, errOut)
	}
}

// TestDocListsCommands: the package doc and the usage text name every
// command and the exit statuses.
func TestDocListsCommands(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	require.NoError(t, err)
	doc := f.Doc.Text()
	for _, want := range []string{"netbench run [flags] [packages]", "netbench compare [flags] OLD NEW [packages]", "netbench stat [flags] FILE...", "netbench profile [flags] [packages]", "netbench clean", "netbench help", "Exit status: 0", "1 when compare", "2 on"} {
		assert.Contains(t, doc, want, "package doc lacks %q", want)
		if want != "Exit status: 0" {
			assert.Contains(t, usage, strings.TrimSuffix(want, " [packages]"), "usage lacks %q", want)
		}
	}
}

// TestHugeCount: `compare -count 100000000000` spun for minutes in the
// sample-size warning (a loop over the count) before anything else,
// deaf to ^C. A count no run could reach is refused at once, by run and
// compare, before go or git is called.
func TestHugeCount(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts")
	}
	bin := t.TempDir()
	called := filepath.Join(t.TempDir(), "called")
	for _, name := range []string{"go", "git"} {
		script := "#!/bin/sh\necho " + name + " >> " + called + "\nexit 1\n"
		require.NoError(t, os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755))
	}
	t.Setenv("PATH", bin)
	t.Chdir(t.TempDir())
	for _, args := range [][]string{
		{"run", "-count", "100000000000"},
		{"compare", "-count", "100000000000", "HEAD", "."},
		{"compare", "-count", "100000000000", "-allow-low-count", "HEAD", "."},
		{"compare", "-count", "1000001", "HEAD", "."},
	} {
		done := make(chan error, 1)
		go func() { done <- run(io.Discard, io.Discard, args) }()
		select {
		case err := <-done:
			wantStatus(t, err, exitFailure, "-count must be at most 1000000")
		case <-time.After(10 * time.Second):
			require.Failf(t, "no answer after 10s", "netbench %v", args)
		}
	}
	_, err := os.ReadFile(called)
	assert.ErrorIs(t, err, os.ErrNotExist, "go or git ran")
}
