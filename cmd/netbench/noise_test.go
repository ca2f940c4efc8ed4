package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/benchnoise"
)

// fakeLoad makes the noise monitor read load, whatever the machine's.
func fakeLoad(t *testing.T, load float64) {
	t.Helper()
	old, oldOthers := readLoad, readOthers
	readLoad, readOthers = func() (float64, error) { return load, nil }, nil
	t.Cleanup(func() { readLoad, readOthers = old, oldOthers })
}

func requireUsageError(t *testing.T, err error, errOut string) {
	t.Helper()
	var se *statusError
	require.ErrorAs(t, err, &se, "error %v\nstderr:\n%s", err, errOut)
	require.Equal(t, exitFailure, se.code)
}

func TestRunNoiseBusyMachine(t *testing.T) {
	dir, _ := newModule(t, nil)
	busy := float64(benchnoise.AvailableCPUs()) + 6
	fakeLoad(t, busy)
	out, errOut, err := runIn(t, dir, "run", "-bench", "Sum", "-benchtime", "1x", "-count", "2", "./sum")
	require.NoError(t, err, "stderr:\n%s", errOut)
	want := fmt.Sprintf("machine busy before the runs: 1-min load average %.2f on %d CPUs", busy, benchnoise.AvailableCPUs())
	assert.Contains(t, errOut, "netbench: warning: noise: "+want)
	assert.Contains(t, out, "\nnoise: "+want)
	assert.Contains(t, out, "noise: machine busy during the runs")
	assert.Contains(t, out, "noise: machine busy after the runs")

	fakeLoad(t, 0.1)
	out, errOut, err = runIn(t, dir, "run", "-bench", "Sum", "-benchtime", "1x", "-count", "2", "./sum")
	require.NoError(t, err, "stderr:\n%s", errOut)
	assert.NotContains(t, errOut, "machine busy")
	assert.NotContains(t, out, "noise:")
}

func TestRunNoiseOutliers(t *testing.T) {
	// The benchmark reports a metric that is 10 in every run but the
	// fifth (the package counts its runs), where it is 100: Tukey's fences
	// must find that one sample, whatever the machine's timing noise.
	dir, _ := newModule(t, map[string]string{"sum/outlier_test.go": `package sum

import "testing"

var runs int

func BenchmarkOutlier(b *testing.B) {
	runs++
	for b.Loop() {
	}
	v := 10.0 + float64(runs%2)/10
	if runs == 5 {
		v = 100
	}
	b.ReportMetric(v, "widgets/op")
}
`})
	fakeLoad(t, 0)
	out, errOut, err := runIn(t, dir, "run", "-bench", "Outlier", "-benchtime", "5x", "-count", "8", "./sum")
	require.NoError(t, err, "stderr:\n%s", errOut)
	assert.Regexp(t, `netbench: warning: noise: outliers: example.com/m/sum Outlier(-\d+)? widgets/op: 1 of 8 samples outside Tukey's fences`, errOut)
	assert.Regexp(t, `\nnoise: outliers: example.com/m/sum Outlier(-\d+)? widgets/op: 1 of 8`, out)

	// With -count 3 there are too few samples for quartiles.
	out, errOut, err = runIn(t, dir, "run", "-bench", "Outlier", "-benchtime", "5x", "-count", "3", "./sum")
	require.NoError(t, err, "stderr:\n%s", errOut)
	assert.NotContains(t, out, "noise: outliers")
}

func TestCPUListUsageErrors(t *testing.T) {
	dir, _ := newModule(t, nil)
	for _, list := range []string{"x", "1-0", "-1", " ", "1,,2", "99999"} {
		for _, cmd := range [][]string{{"run"}, {"compare"}} {
			args := append(cmd, "-cpu-list="+list)
			if cmd[0] == "compare" {
				args = append(args, "HEAD", "HEAD")
			}
			args = append(args, "./sum")
			_, errOut, err := runIn(t, dir, args...)
			requireUsageError(t, err, errOut)
			assert.Contains(t, err.Error(), "-cpu-list", "%v", args)
			assert.NotContains(t, errOut, "building", "%v: built before refusing the flag", args)
		}
	}
}

// pinFixture is a benchmark that reports, as its "cpu" metric, the CPU
// every thread of its process is allowed on when that is one and the
// same CPU for all of them, and -1 otherwise.
const pinFixture = `package sum

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func BenchmarkPinned(b *testing.B) {
	for b.Loop() {
	}
	tasks, _ := filepath.Glob("/proc/self/task/*/status")
	cpu := -1.0
	for i, task := range tasks {
		data, err := os.ReadFile(task)
		if err != nil {
			continue // the thread ended
		}
		list := ""
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
				list = strings.TrimSpace(v)
			}
		}
		n, err := strconv.Atoi(list)
		if err != nil || i > 0 && float64(n) != cpu {
			cpu = -1
			break
		}
		cpu = float64(n)
	}
	b.ReportMetric(float64(len(tasks)), "threads")
	b.ReportMetric(cpu, "cpu")
}
`

func TestRunCPUListPinsEveryThread(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pinning needs Linux")
	}
	cpus, err := benchnoise.AllowedCPUs()
	require.NoError(t, err)
	if len(cpus) < 2 {
		t.Skip("needs two CPUs to pin to one of them")
	}
	last := cpus[len(cpus)-1]
	dir, _ := newModule(t, map[string]string{"sum/pin_test.go": pinFixture})
	fakeLoad(t, 0)
	out, errOut, err := runIn(t, dir, "run", "-bench", "Pinned", "-benchtime", "1x", "-cpu-list", fmt.Sprint(last), "./sum")
	require.NoError(t, err, "stderr:\n%s", errOut)
	assert.Contains(t, out, fmt.Sprintf("\ncpulist: %d\n", last))
	assert.Contains(t, out, "\ngomaxprocs: 1\n", "a child pinned to one CPU runs at GOMAXPROCS 1")
	assert.Regexp(t, fmt.Sprintf(`(?m)^BenchmarkPinned\s+1\s+.*\s%d\.000 cpu\s+([2-9]|\d\d+)\.000 threads`, last), out, "every thread (more than one) on CPU %d", last)

	// Unpinned, the threads may run on every CPU.
	out, errOut, err = runIn(t, dir, "run", "-bench", "Pinned", "-benchtime", "1x", "./sum")
	require.NoError(t, err, "stderr:\n%s", errOut)
	assert.Regexp(t, `(?m)^BenchmarkPinned-\d+\s+1\s+.*\s-1\.000 cpu`, out)
	assert.NotContains(t, out, "cpulist:")
}

func TestCompareAA(t *testing.T) {
	dir, _ := newModule(t, nil)
	t.Setenv("NETBENCH_CACHE", t.TempDir())
	fakeLoad(t, 0)
	args := []string{"compare", "-bench", "Sum", "-benchtime", "1x", "-count", "6", "-format", "json", "HEAD", "HEAD", "./sum"}
	out, errOut, err := runIn(t, dir, args...)
	if err != nil { // a false positive that fails the gate is exit status 1
		var se *statusError
		require.ErrorAs(t, err, &se, "stderr:\n%s", errOut)
		require.Equal(t, exitRegression, se.code, "stderr:\n%s", errOut)
	}
	assert.Regexp(t, `netbench: A/A comparison \(both sides are the same code\): false-positive rate \d+\.\d% \(\d+ of 6 compared rows judged significant at alpha 0\.05\), [\d.]+% of gated rows fail the gate \(\d+ of 6\)`, errOut)
	type row struct {
		Noise struct {
			AA *struct {
				Rate     *float64 `json:"false_positive_rate"`
				Compared int      `json:"compared"`
			} `json:"aa"`
		} `json:"noise"`
	}
	rows := reportRows[row](t, []byte(out))
	require.NotEmpty(t, rows)
	for _, r := range rows {
		require.NotNil(t, r.Noise.AA, "%s", out)
		assert.Equal(t, 6, r.Noise.AA.Compared, "2 benchmarks in sec/op, B/op and allocs/op")
		require.NotNil(t, r.Noise.AA.Rate)
	}

	// Two different commits are not A/A.
	writeFiles(t, dir, map[string]string{"sum/extra.go": "package sum\n\nfunc Extra() {}\n"})
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-q", "-m", "second")
	_, errOut, err = runIn(t, dir, "compare", "-bench", "Sum", "-benchtime", "1x", "-count", "6", "HEAD~1", "HEAD", "./sum")
	if err != nil {
		var se *statusError
		require.ErrorAs(t, err, &se)
		require.Equal(t, exitRegression, se.code, "stderr:\n%s", errOut)
	}
	assert.NotContains(t, errOut, "A/A")
}

func TestCompareNoiseReportHTML(t *testing.T) {
	dir, _ := newModule(t, nil)
	t.Setenv("NETBENCH_CACHE", t.TempDir())
	fakeLoad(t, 50)
	report := filepath.Join(t.TempDir(), "report.html")
	_, errOut, err := runIn(t, dir, "compare", "-bench", "Sum", "-benchtime", "1x", "-count", "6", "-format", "html", "-o", report, "HEAD", "HEAD", "./sum")
	if err != nil {
		var se *statusError
		require.ErrorAs(t, err, &se)
		require.Equal(t, exitRegression, se.code, "stderr:\n%s", errOut)
	}
	assert.Contains(t, errOut, "netbench: warning: noise: machine busy during the runs: 1-min load average 50.00")
	b, err := os.ReadFile(report)
	require.NoError(t, err)
	page := string(b)
	assert.Contains(t, page, `<div class="noise-banner" role="alert">`)
	assert.Contains(t, page, "machine busy during the runs: 1-min load average 50.00")
	assert.Contains(t, page, "A/A comparison")
	// Every sec/op row is marked busy; B/op and allocs/op rows, counts
	// the load does not change, are not.
	assert.Equal(t, strings.Count(page, `<tr class="row `)/3, strings.Count(page, `<span class="noise-mark" title="noise">⚠ busy`), "every sec/op row marked busy, and no other:\n%s", page)
	assert.Contains(t, page, "<td>load</td><td>before 50.00, during 50.00")
}

func TestNoiseLoadUnreadable(t *testing.T) {
	old, oldOthers := readLoad, readOthers
	readLoad, readOthers = func() (float64, error) { return 0, errors.New("no load average here") }, nil
	t.Cleanup(func() { readLoad, readOthers = old, oldOthers })
	dir, _ := newModule(t, nil)
	out, errOut, err := runIn(t, dir, "run", "-bench", "Sum", "-benchtime", "1x", "./sum")
	require.NoError(t, err, "stderr:\n%s", errOut)
	assert.Contains(t, errOut, "the load average could not be read (no load average here)")
	assert.Contains(t, out, "noise: the load average could not be read")
}

// withoutNoise returns stderr without the noise warnings, which depend on
// the machine's load and the samples' spread, for tests of other warnings.
func withoutNoise(stderr string) string {
	var b strings.Builder
	for line := range strings.Lines(stderr) {
		if !strings.HasPrefix(line, "netbench: warning: noise: ") {
			b.WriteString(line)
		}
	}
	return b.String()
}
