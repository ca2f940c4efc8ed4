package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reportRows decodes the rows of a -format json report.
func reportRows[R any](t *testing.T, b []byte) []R {
	t.Helper()
	var report struct {
		Rows []R `json:"rows"`
	}
	require.NoError(t, json.Unmarshal(b, &report), "json\n%s", b)
	return report.Rows
}

// statRun runs netbench stat in testdata and returns what it printed and
// its exit status.
func statRun(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	out, errOut, err := runIn(t, testdata, append([]string{"stat"}, args...)...)
	if err != nil {
		var se *statusError
		require.ErrorAs(t, err, &se)
		return out, errOut + "netbench: " + err.Error() + "\n", se.code
	}
	return out, errOut, 0
}

// TestStatGolden: stat on two fixed files, with the default projection and
// with each of -col, -row, -filter and -ignore, prints the tables,
// warnings and exit status in testdata/stat.golden. In the files, impl=tree
// is 30% slower in new and impl=map at size=64 10% faster; the files'
// commit and loadavg lines differ.
func TestStatGolden(t *testing.T) {
	var b strings.Builder
	for _, args := range [][]string{
		{"stat-old.txt", "stat-new.txt"},
		{"-format", "markdown", "old=stat-old.txt", "new=stat-new.txt"},
		{"-col", "/impl", "-filter", ".file:stat-new.txt", "stat-old.txt", "stat-new.txt"},
		{"-col", "/impl", "-row", "/size", "stat-old.txt", "stat-new.txt"},
		{"-row", ".name", "stat-old.txt", "stat-new.txt"},
		{"-row", ".name", "-ignore", ".fullname", "stat-old.txt", "stat-new.txt"},
		{"-filter", "/impl:map", "stat-old.txt", "stat-new.txt"},
		{"-filter", "/impl:map", "-format", "csv", "-threshold", "50", "stat-old.txt", "stat-new.txt"},
	} {
		out, errOut, code := statRun(t, args...)
		fmt.Fprintf(&b, "$ netbench stat %s\n%s-- stderr --\n%s-- exit status %d --\n\n", strings.Join(args, " "), out, errOut, code)
	}
	golden(t, "stat.golden", b.String())
}

// TestStatJSON: -format json carries both columns' names, full commits and
// configuration lines, the gate, and every row's samples.
func TestStatJSON(t *testing.T) {
	out, errOut, code := statRun(t, "-format", "json", "-gate", "B/op", "stat-old.txt", "stat-new.txt")
	require.Equal(t, exitRegression, code, "tree is slower\n%s", errOut)
	var got struct {
		Revisions []struct {
			Name   string   `json:"name"`
			Commit string   `json:"commit"`
			Config []string `json:"config"`
		} `json:"revisions"`
		Gate struct {
			Units []string `json:"units"`
		} `json:"gate"`
		Rows []struct {
			Name string `json:"name"`
			Old  struct {
				Samples []float64 `json:"samples"`
			} `json:"old"`
			New struct {
				Samples []float64 `json:"samples"`
			} `json:"new"`
		} `json:"rows"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got), "%s", out)
	require.Len(t, got.Revisions, 2)
	for i, want := range []string{"1", "2"} {
		r := got.Revisions[i]
		assert.Equal(t, "stat-"+[]string{"old", "new"}[i]+".txt", r.Name)
		assert.Equal(t, strings.Repeat(want, 40), r.Commit)
		for _, key := range []string{"commit: ", "go: ", "loadavg: ", "goos: ", "goarch: ", "pkg: ", "cpu: "} {
			assert.True(t, strings.Contains(strings.Join(r.Config, "\n"), key), "%s: no %q line in %q", r.Name, key, r.Config)
		}
	}
	assert.Equal(t, []string{"sec/op", "B/op"}, got.Gate.Units)
	require.NotEmpty(t, got.Rows)
	for _, r := range got.Rows {
		assert.Len(t, r.Old.Samples, 10, "%s", r.Name)
		assert.Len(t, r.New.Samples, 10, "%s", r.Name)
	}
}

// TestStatErrors: bad flags, files and projections are usage errors (exit
// status 2) that name the problem.
func TestStatErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "stat needs files"},
		{[]string{"missing.txt", "stat-new.txt"}, "missing.txt"},
		{[]string{"stat-old.txt"}, "not 2"},
		{[]string{"-col", "/impl,/size", "stat-old.txt", "stat-new.txt"}, `"tree 64"`},
		{[]string{"-col", "/impl@", "stat-old.txt", "stat-new.txt"}, "-col"},
		{[]string{"-filter", "(", "stat-old.txt", "stat-new.txt"}, "-filter"},
		{[]string{"-format", "xml", "stat-old.txt", "stat-new.txt"}, "xml"},
		{[]string{"-confidence", "1.5", "stat-old.txt", "stat-new.txt"}, "-confidence"},
		{[]string{"-gate", "widgets/op", "stat-old.txt", "stat-new.txt"}, "widgets/op"},
		{[]string{"-filter", "/impl:none", "stat-old.txt", "stat-new.txt"}, "not 2"},
		{[]string{"-col", "/impl", "-row", "/impl", "stat-new.txt"}, "nothing was compared"},
	} {
		_, errOut, code := statRun(t, c.args...)
		assert.Equal(t, exitFailure, code, "stat %v\n%s", c.args, errOut)
		assert.Contains(t, errOut, c.want, "stat %v", c.args)
	}
}

// keptCommand matches the netbench stat command that compare prints on
// stderr; keptArgs returns its two arguments, unquoted.
var keptCommand = regexp.MustCompile(`re-analysed by: netbench stat ('[^']*'|\S+) ('[^']*'|\S+)\n`)

func keptArgs(t *testing.T, stderr string) (old, new string) {
	t.Helper()
	m := keptCommand.FindStringSubmatch(stderr)
	require.NotNil(t, m, "no stat command on stderr:\n%s", stderr)
	return strings.Trim(m[1], "'"), strings.Trim(m[2], "'")
}

// TestCompareKeepsResults: compare keeps each revision's results with their
// configuration lines; netbench stat on them prints the same table as the
// compare did; benchstat reads them too; compare's JSON names the full
// commits and carries the samples.
func TestCompareKeepsResults(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs two revisions")
	}
	t.Setenv("NETBENCH_CACHE", t.TempDir())
	dir, oldCommit := newModule(t, map[string]string{"sum/sum_test.go": benchFile(500, 4000, false)})
	writeFiles(t, dir, map[string]string{"sum/sum_test.go": benchFile(4000, 500, true)})
	gitRun(t, dir, "commit", "-q", "-am", "change speeds")
	newCommit := strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD"))
	keep := t.TempDir()
	report := filepath.Join(t.TempDir(), "report.txt")
	args := []string{"compare", "-count", "6", "-benchtime", "2000x", "-threshold", "25", "-keep", keep, "-o", report, oldCommit[:7], "HEAD", "./sum"}
	_, errOut, err := runIn(t, dir, args...)
	wantStatus(t, err, exitRegression, "Slower")
	table, err := os.ReadFile(report)
	require.NoError(t, err)

	oldArg, newArg := keptArgs(t, errOut)
	assert.Equal(t, oldCommit[:12]+"="+filepath.Join(keep, "old.txt"), oldArg)
	assert.Equal(t, "HEAD ("+newCommit[:12]+")="+filepath.Join(keep, "new.txt"), newArg)
	for i, commit := range []string{oldCommit, newCommit} {
		kept, err := os.ReadFile(filepath.Join(keep, []string{"old.txt", "new.txt"}[i]))
		require.NoError(t, err)
		for _, want := range []string{"commit: " + commit + "\n", "go: go1.", "gomaxprocs: ", "loadavg: ", "goos: ", "goarch: ", "pkg: example.com/m/sum\n", "BenchmarkSlower-"} {
			assert.Contains(t, string(kept), want)
		}
	}

	out, statErr, err := runIn(t, dir, "stat", "-threshold", "25", oldArg, newArg)
	wantStatus(t, err, exitRegression, "Slower")
	assert.Equal(t, string(table), out, "stat on the kept files and the compare that kept them\n%s", statErr)

	// benchstat reads the kept files, given -ignore for the lines that
	// differ between the revisions (as compare says).
	ign := regexp.MustCompile(`-ignore (\S+)\)`).FindStringSubmatch(errOut)
	require.NotNil(t, ign, "no -ignore advice on stderr:\n%s", errOut)
	assert.Contains(t, ign[1], "commit")
	bench := exec.Command("go", "run", "golang.org/x/perf/cmd/benchstat", "-ignore", ign[1], filepath.Join(keep, "old.txt"), filepath.Join(keep, "new.txt"))
	bench.Dir = testdata
	bs, err := bench.CombinedOutput()
	require.NoError(t, err, "benchstat\n%s", bs)
	assert.NotContains(t, string(bs), "commit: ", "benchstat -ignore %s: tables split by commit\n%s", ign[1], bs)
	assert.Regexp(t, `old\.txt\s*│\s*\S*new\.txt`, string(bs), "benchstat -ignore %s: no table comparing both files\n%s", ign[1], bs)

	// JSON: revisions with full commits, samples per row.
	jsonReport := filepath.Join(t.TempDir(), "report.json")
	_, _, err = runIn(t, dir, "compare", "-count", "6", "-benchtime", "2000x", "-threshold", "25", "-format", "json", "-o", jsonReport, oldCommit, "HEAD", "./sum")
	wantStatus(t, err, exitRegression, "Slower")
	b, err := os.ReadFile(jsonReport)
	require.NoError(t, err)
	var got struct {
		Revisions []struct {
			Name   string   `json:"name"`
			Commit string   `json:"commit"`
			Config []string `json:"config"`
		} `json:"revisions"`
		Rows []struct {
			Old struct {
				Samples []float64 `json:"samples"`
			} `json:"old"`
		} `json:"rows"`
	}
	require.NoError(t, json.Unmarshal(b, &got), "%s", b)
	require.Len(t, got.Revisions, 2)
	assert.Equal(t, oldCommit, got.Revisions[0].Commit)
	assert.Equal(t, newCommit, got.Revisions[1].Commit)
	assert.Equal(t, oldCommit[:12], got.Revisions[0].Name)
	assert.Contains(t, got.Revisions[1].Config, "pkg: example.com/m/sum")
	require.NotEmpty(t, got.Rows)
	assert.Len(t, got.Rows[0].Old.Samples, 6)

	// Without -keep or -o: a new directory under the cache, every time.
	_, errOut, _ = runIn(t, dir, "compare", "-count", "6", "-benchtime", "2000x", "-threshold", "25", oldCommit, "HEAD", "./sum")
	_, errOut2, _ := runIn(t, dir, "compare", "-count", "6", "-benchtime", "2000x", "-threshold", "25", oldCommit, "HEAD", "./sum")
	old1, _ := keptArgs(t, errOut)
	old2, _ := keptArgs(t, errOut2)
	assert.Contains(t, old1, "="+filepath.Join(os.Getenv("NETBENCH_CACHE"), "results")+string(filepath.Separator))
	assert.NotEqual(t, old1, old2, "two comparisons keep their results apart")
}

// TestStatHTML: the HTML report's environment gives each configuration
// line the two files share once, and names the file of a line that
// differs.
func TestStatHTML(t *testing.T) {
	out, errOut, code := statRun(t, "-format", "html", "-threshold", "50", "stat-old.txt", "stat-new.txt")
	require.Equal(t, 0, code, errOut)
	for _, want := range []string{
		"<td>loadavg (stat-old.txt)</td><td>0.10 0.20 0.30</td>",
		"<td>loadavg (stat-new.txt)</td><td>6.00 5.00 4.00</td>",
		"<td>commit (stat-new.txt)</td><td>" + strings.Repeat("2", 40) + "</td>",
	} {
		assert.Contains(t, out, want)
	}
	assert.Equal(t, 1, strings.Count(out, "<td>cpu</td>"), "a shared line once")
}

// TestCompareInterruptedKeepsRuns: a compare stopped by ^C midway keeps
// the results of the runs that finished, with their configuration lines.
// The benchmark counts its runs in a file and stalls in the third, after
// one run of each revision.
func TestCompareInterruptedKeepsRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs revisions")
	}
	if signal.Ignored(syscall.SIGINT) {
		t.Skip("SIGINT is ignored in this process, so in netbench's too")
	}
	const stall = `package stall

import (
	"os"
	"strconv"
	"testing"
	"time"
)

func BenchmarkStall(b *testing.B) {
	f, _ := os.OpenFile(os.Getenv("NETBENCH_TEST_COUNTER"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	f.Write([]byte("x"))
	f.Close()
	runs, _ := os.ReadFile(os.Getenv("NETBENCH_TEST_COUNTER"))
	for b.Loop() {
		if len(runs) >= 3 {
			os.WriteFile(os.Getenv("NETBENCH_TEST_MARKER"), []byte(strconv.Itoa(os.Getpid())), 0o644)
			time.Sleep(time.Hour)
		}
	}
}
`
	dir, _ := newModule(t, map[string]string{"stall/stall_test.go": stall})
	tmp := t.TempDir()
	marker, keep := filepath.Join(tmp, "pid"), filepath.Join(tmp, "kept")
	cmd, out := netbenchCommand(t, dir, []string{"NETBENCH_CACHE=" + t.TempDir(), "NETBENCH_TEST_MARKER=" + marker, "NETBENCH_TEST_COUNTER=" + filepath.Join(tmp, "runs")},
		"compare", "-count", "6", "-benchtime", "1x", "-keep", keep, "HEAD", ".", "./stall")
	done := startUntilMarker(t, cmd, out, marker, "the third run started")
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	select {
	case <-done:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		require.Failf(t, "compare did not end after SIGINT", "%s", out)
	}
	assert.Equal(t, exitFailure, cmd.ProcessState.ExitCode(), "%s", out)
	assert.Contains(t, out.String(), "keeping the results of the runs that finished")
	keptArgs(t, out.String())
	for _, name := range []string{"old.txt", "new.txt"} {
		b, err := os.ReadFile(filepath.Join(keep, name))
		require.NoError(t, err, "%s", out)
		assert.Contains(t, string(b), "commit: ", name)
		assert.Equal(t, 1, strings.Count(string(b), "BenchmarkStall-"), "%s: one finished run\n%s", name, b)
	}
}
