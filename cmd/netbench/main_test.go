package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeFiles writes files (path → content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
}

// gitRun runs git in dir with a fixed identity.
func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=netbench test", "-c", "user.email=test@example.invalid", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v\n%s", args, out)
	return strings.TrimSpace(string(out))
}

// newModule makes a throwaway module in a git repository with one commit:
// package sum has benchmarks (with key=value sub-benchmarks), package
// plain has tests but no benchmarks. It returns the directory and commit.
func newModule(t *testing.T, extra map[string]string) (dir, commit string) {
	t.Helper()
	dir = t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.26\n",
		"sum/sum.go": `package sum

// Sum adds p up.
func Sum(p []int) (s int) {
	for _, v := range p {
		s += v
	}
	return s
}
`,
		"sum/sum_test.go": `package sum

import (
	"fmt"
	"testing"
)

var sink int

func BenchmarkSum(b *testing.B) {
	for _, n := range []int{10, 1000} {
		p := make([]int, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				sink = Sum(p)
			}
		})
	}
}

func BenchmarkAlloc(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sink += len(make([]byte, 64+sink%2))
	}
}
`,
		"plain/plain.go":      "package plain\n\nfunc One() int { return 1 }\n",
		"plain/plain_test.go": "package plain\n\nimport \"testing\"\n\nfunc TestOne(t *testing.T) {\n\tif One() != 1 {\n\t\tt.Fatal()\n\t}\n}\n",
	}
	for k, v := range extra {
		files[k] = v
	}
	writeFiles(t, dir, files)
	gitRun(t, dir, "init", "-q")
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-q", "-m", "initial")
	return dir, gitRun(t, dir, "rev-parse", "HEAD")
}

// runIn runs the command in dir and returns its output and error.
func runIn(t *testing.T, dir string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	t.Chdir(dir)
	var o, e bytes.Buffer
	err = run(&o, &e, args)
	return o.String(), e.String(), err
}

var resultLine = regexp.MustCompile(`^(Benchmark[^\s]+)-\d+\s+\d+\s+[\d.]+ ns/op\s+\d+ B/op\s+\d+ allocs/op$`)

func TestRunWritesBenchmarkFormat(t *testing.T) {
	dir, commit := newModule(t, nil)
	out, errOut, err := runIn(t, filepath.Join(dir, "sum"), "run", "-benchtime", "1x", "-count", "2", "../...")
	require.NoError(t, err, "run\nstderr:\n%s", errOut)
	for _, want := range []string{"commit: " + commit + "\n", "go: go1.", "gomaxprocs: ", "goos: ", "goarch: ", "pkg: example.com/m/sum\n"} {
		assert.Contains(t, out, want, "output lacks %q:\n%s", want, out)
	}
	assert.NotContains(t, out, "example.com/m/plain", "package without benchmarks in the output:\n%s", out)
	counts := map[string]int{}
	for line := range strings.Lines(out) {
		if m := resultLine.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			counts[m[1]]++
		} else {
			assert.False(t, strings.HasPrefix(line, "Benchmark"), "malformed result line %q", line)
		}
	}
	want := map[string]int{"BenchmarkSum/n=10": 2, "BenchmarkSum/n=1000": 2, "BenchmarkAlloc": 2}
	for name, n := range want {
		assert.Equal(t, n, counts[name], "%s: %d results, want %d (all: %v)", name, counts[name], n, counts)
	}
	assert.Contains(t, errOut, "ran 2 benchmarks in 1 packages", "no summary on stderr:\n%s", errOut)
}

func TestRunOutputFileAndFilter(t *testing.T) {
	dir, _ := newModule(t, nil)
	file := filepath.Join(t.TempDir(), "out.txt")
	stdout, errOut, err := runIn(t, dir, "run", "-bench", "Alloc", "-benchtime", "1x", "-o", file)
	require.NoError(t, err, "run\n%s", errOut)
	assert.Equal(t, "", stdout, "stdout not empty with -o:\n%s", stdout)
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Contains(t, string(b), "BenchmarkAlloc-", "-bench Alloc output:\n%s", b)
	assert.NotContains(t, string(b), "BenchmarkSum", "-bench Alloc output:\n%s", b)
}

func TestRunDirtyCommit(t *testing.T) {
	dir, commit := newModule(t, nil)
	writeFiles(t, dir, map[string]string{"sum/sum.go": "package sum\n\nfunc Sum(p []int) int { return len(p) }\n"})
	out, errOut, err := runIn(t, dir, "run", "-benchtime", "1x", "./sum")
	require.NoError(t, err, "run\n%s", errOut)
	assert.Contains(t, out, "commit: "+commit+"-dirty\n", "modified work tree not marked dirty:\n%s", out)
}

func TestRunFailures(t *testing.T) {
	tests := []struct {
		name  string
		extra map[string]string
		args  []string
		want  string // in the error
	}{
		{
			name:  "benchmark fails",
			extra: map[string]string{"sum/fail_test.go": "package sum\n\nimport \"testing\"\n\nfunc BenchmarkBroken(b *testing.B) { b.Fatal(\"broken on purpose\") }\n"},
			args:  []string{"run", "-benchtime", "1x"},
			want:  "broken on purpose",
		},
		{
			name:  "does not build",
			extra: map[string]string{"sum/bad_test.go": "package sum\n\nfunc BenchmarkBad(b *testing.B) { undefinedThing() }\n"},
			args:  []string{"run"},
			want:  "undefined",
		},
		{
			name: "no benchmarks match",
			args: []string{"run", "-bench", "NoSuchBenchmark"},
			want: "no benchmarks match",
		},
		{
			name: "unknown command",
			args: []string{"frobnicate"},
			want: `unknown command "frobnicate"`,
		},
		{
			name: "bad flag",
			args: []string{"run", "-count", "0"},
			want: "-count must be at least 1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, _ := newModule(t, tt.extra)
			_, errOut, err := runIn(t, dir, tt.args...)
			var se *statusError
			require.ErrorAs(t, err, &se, "error %v, want exit status %d\nstderr:\n%s", err, exitFailure, errOut)
			require.Equal(t, exitFailure, se.code, "error %v, want exit status %d\nstderr:\n%s", err, exitFailure, errOut)
			require.Contains(t, err.Error(), tt.want, "error does not mention %q:\n%v", tt.want, err)
			assert.NotContains(t, errOut, "netbench: ran ", "a failed run printed its summary:\n%s", errOut)
		})
	}
}

func TestRunOutsideGit(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"go.mod": "module example.com/x\n\ngo 1.26\n"})
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	_, _, err := runIn(t, dir, "run")
	require.ErrorContains(t, err, "not inside a git repository", "error %v, want a clear message about git", err)
}

func TestHelp(t *testing.T) {
	out, _, err := runIn(t, t.TempDir(), "help")
	require.NoError(t, err, "help\n%s", out)
	require.Contains(t, out, "netbench run [flags] [packages]", "help: %v\n%s", err, out)
}

// printingBench is a benchmark that prints to standard output, with and
// without a newline, lines shaped like configuration and result lines, and
// to standard error.
const printingBench = `package sum

import (
	"fmt"
	"os"
	"testing"
)

func BenchmarkPrints(b *testing.B) {
	fmt.Println("key: value")
	b.Run("size=64", func(b *testing.B) {
		fmt.Println("hello")
		fmt.Println("BenchmarkPrints/size=64 \t 7 \t 1 ns/op")
		fmt.Fprintln(os.Stderr, "on stderr")
		fmt.Print("no newline")
		for b.Loop() {
			sink = Sum(nil)
		}
	})
}
`

// TestRunBenchmarkPrints: a benchmark that prints must keep its results,
// and nothing it prints may reach the output as a result or configuration
// line.
func TestRunBenchmarkPrints(t *testing.T) {
	dir, _ := newModule(t, map[string]string{"sum/print_test.go": printingBench})
	out, errOut, err := runIn(t, dir, "run", "-bench", "Prints", "-benchtime", "1x", "-count", "3", "-cpu", "1", "./sum")
	require.NoError(t, err, "run\nstderr:\n%s", errOut)
	results := 0
	for line := range strings.Lines(out) {
		line = strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(line, "Benchmark") {
			f := strings.Fields(line)
			assert.Equal(t, []string{"BenchmarkPrints/size=64", "1"}, f[:2], "result line %q: want the name and 1 iteration", line)
			results++
		}
	}
	assert.Equal(t, 3, results, "%d results, want 3:\n%s", results, out)
	for _, bad := range []string{"key: value", "hello", "no newline", "on stderr"} {
		assert.NotContains(t, out, bad, "output holds %q, printed by the benchmark:\n%s", bad, out)
	}
}

// TestRunSubBenchmarkPattern: -bench is split at "/" as go test splits it,
// so a pattern naming a sub-benchmark runs just that sub-benchmark.
func TestRunSubBenchmarkPattern(t *testing.T) {
	dir, _ := newModule(t, nil)
	out, errOut, err := runIn(t, dir, "run", "-bench", "Sum/n=10$", "-benchtime", "1x", "-cpu", "1", "./sum")
	require.NoError(t, err, "run\nstderr:\n%s", errOut)
	var names []string
	for line := range strings.Lines(out) {
		if strings.HasPrefix(line, "Benchmark") {
			names = append(names, strings.Fields(line)[0])
		}
	}
	assert.Equal(t, []string{"BenchmarkSum/n=10"}, names, "-bench Sum/n=10$ ran:\n%s", out)
}

// TestOutputFileKeptOnFailure: -o was opened with O_TRUNC before anything
// was built, so a compare or run that failed (a benchmark that fails, a
// build error, ^C) left an empty file where the previous report was. The
// output is now written to a temporary file beside it and renamed over it
// at the end: a failure leaves the previous file as it was and no
// temporary file; a success replaces it, through a symbolic link if -o is
// one, with the mode a new file gets.
func TestOutputFileKeptOnFailure(t *testing.T) {
	t.Setenv("NETBENCH_CACHE", t.TempDir())
	dir, _ := newModule(t, nil)
	gitRun(t, dir, "commit", "-q", "--allow-empty", "-m", "second")
	writeFiles(t, dir, map[string]string{"sum/fail_test.go": "package sum\n\nimport \"testing\"\n\nfunc BenchmarkSumBroken(b *testing.B) { b.Fatal(\"broken on purpose\") }\n"})
	outDir := t.TempDir()
	const previous = "the previous report\n"
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"compare", []string{"compare", "-bench", "Sum", "-benchtime", "1x", "-count", "1", "-allow-low-count", "HEAD~1", ".", "./sum"}},
		{"run", []string{"run", "-bench", "Sum", "-benchtime", "1x", "./sum"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(outDir, tc.name+".txt")
			require.NoError(t, os.WriteFile(file, []byte(previous), 0o644))
			args := append([]string{tc.args[0], "-o", file}, tc.args[1:]...)
			_, errOut, err := runIn(t, dir, args...)
			wantStatus(t, err, exitFailure, "broken on purpose")
			b, rerr := os.ReadFile(file)
			require.NoError(t, rerr)
			assert.Equal(t, previous, string(b), "-o after a failed %s (stderr:\n%s)", tc.name, errOut)
		})
	}
	ents, err := os.ReadDir(outDir)
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{"compare.txt", "run.txt"}, names, "temporary files left beside -o")

	// Success replaces the file; through a symbolic link, the file it
	// names.
	require.NoError(t, os.Remove(filepath.Join(dir, "sum/fail_test.go")))
	target := filepath.Join(outDir, "compare.txt")
	link := filepath.Join(outDir, "link.txt")
	require.NoError(t, os.Symlink("compare.txt", link))
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	for _, out := range []string{target, link} {
		_, errOut, err := runIn(t, dir, "compare", "-o", out, "-bench", "Sum", "-benchtime", "1x", "-count", "1", "-allow-low-count", "HEAD~1", ".", "./sum")
		require.NoError(t, err, "stderr:\n%s", errOut)
		b, err := os.ReadFile(target)
		require.NoError(t, err)
		assert.Contains(t, string(b), "Sum/n=10")
		fi, err := os.Lstat(out)
		require.NoError(t, err)
		if out == link {
			assert.Equal(t, os.ModeSymlink, fi.Mode().Type(), "-o replaced the symbolic link")
		} else {
			assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
		}
	}
	ents, err = os.ReadDir(outDir)
	require.NoError(t, err)
	assert.Len(t, ents, 3, "compare.txt, run.txt, link.txt")
}
