package benchrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIsResult(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		// go test -bench output.
		{"BenchmarkX-8   \t 1000000\t      1042 ns/op", true},
		{"BenchmarkX \t 1000 \t 12.5 ns/op", true},
		{"BenchmarkX 1000 12.5 ns/op", true},
		{"BenchmarkX-8 \t 1000 \t 12.5 ns/op \t 64 B/op \t 1 allocs/op", true},
		{"BenchmarkCopy-8 \t 30000 \t 41000 ns/op \t 99.90 MB/s", true},
		{"BenchmarkX-8 \t 1000 \t 12.5 ns/op \t 12.5 widgets/op", true},
		{"BenchmarkX-8 \t 1000 \t 12.5 widgets/op", true}, // a custom unit alone (b.ReportMetric with ns/op = 0)
		{"BenchmarkX-8 \t 1000 \t 1.25e+06 ns/op", true},
		{"BenchmarkGet/size=64/impl=pool-2 \t 1000000 \t 100.0 ns/op \t 64 B/op \t 1 allocs/op", true},
		{"BenchmarkA/k=v-1-2 \t 100 \t 7 ns/op", true},
		{"BenchmarkA/k=a-b/c=d/e-f-16 \t 100 \t 7 ns/op", true},
		{"BenchmarkA/#01-4 \t 100 \t 7 ns/op", true},
		{"Benchmark \t 100 \t 7 ns/op", true},
		{"BenchmarkX-8 \t 18446744073709551615 \t 1 ns/op", true},

		// Not result lines.
		{"BenchmarkX-8", false},                 // the name alone (go test -v)
		{"BenchmarkX-8   \t", false},            // the name before a run that prints
		{"BenchmarkX-8 \t 1000", false},         // no measurement
		{"BenchmarkX-8 \t 1000 \t 12.5", false}, // a value without its unit
		{"BenchmarkX-8 \t 1000 \t 12.5 ns/op \t 64", false},
		{"BenchmarkX-8 \t many \t 12.5 ns/op", false},
		{"BenchmarkX-8 \t -1 \t 12.5 ns/op", false},
		{"BenchmarkX-8 \t 1e3 \t 12.5 ns/op", false},
		{"BenchmarkBroken-8   \t--- FAIL: BenchmarkBroken-8", false},
		{"--- FAIL: BenchmarkBroken", false},
		{"--- FAIL: BenchmarkBroken-8 \t 1000 \t 1 ns/op", false},
		{"    x_test.go:3: broken", false},
		{"    bench_test.go:12: BenchmarkX 1 2 ns/op", false},
		{"benchmarkX-8 \t 1000 \t 12.5 ns/op", false},
		{"PASS", false},
		{"FAIL", false},
		{"ok  \texample.com/m\t0.1s", false},
		{"FAIL\texample.com/m\t0.1s", false},
		{"goos: linux", false},
		{"", false},
		{"   ", false},
	}
	for _, tt := range tests {
		got := isResult(tt.line)
		assert.Equal(t, tt.want, got, "isResult(%q)", tt.line)
	}
}

// TestScanner feeds scanner the output of a test binary run with
// -test.v=test2json (^V written as \x16) and checks which lines it keeps.
func TestScanner(t *testing.T) {
	const head = "goos: linux\ngoarch: amd64\npkg: example.com/m\ncpu: AMD EPYC\n"
	tests := []struct {
		name   string
		in     string
		want   []string
		failed bool
	}{
		{
			name: "plain",
			in:   head + "\x16=== RUN   BenchmarkX\nBenchmarkX\nBenchmarkX-2 \t 100 \t 5 ns/op\n\x16=== NAME  \n",
			want: []string{"goos: linux", "goarch: amd64", "pkg: example.com/m", "cpu: AMD EPYC", "BenchmarkX-2 \t 100 \t 5 ns/op"},
		},
		{
			name: "printed text before the result on its line",
			in:   "goos: linux\n\x16=== RUN   BenchmarkX\nBenchmarkX\nhello\nno newlineBenchmarkX-2    \t 100 \t 5 ns/op\n\x16=== NAME  \n",
			want: []string{"goos: linux", "BenchmarkX-2    \t 100 \t 5 ns/op"},
		},
		{
			name: "printed result-shaped lines",
			in: "goos: linux\n\x16=== RUN   BenchmarkX\nBenchmarkX\nBenchmarkX-2 \t 7 \t 1 ns/op\nBenchmarkY-2 \t 7 \t 1 ns/op\n" +
				"BenchmarkX-2 \t 100 \t 5 ns/op\n\x16=== NAME  \n" +
				"BenchmarkX-2 \t 7 \t 1 ns/op\nBenchmarkX-2 \t 101 \t 6 ns/op\n\x16=== NAME  \n",
			want: []string{"goos: linux", "BenchmarkX-2 \t 100 \t 5 ns/op", "BenchmarkX-2 \t 101 \t 6 ns/op"},
		},
		{
			name: "printed configuration-shaped lines",
			in:   "goos: fake\nnote: x\ngoos: linux\ngoarch: amd64\n\x16=== RUN   BenchmarkX\nBenchmarkX\ngoos: plan9\nkey: value\nBenchmarkX \t 1 \t 5 ns/op\n\x16=== NAME  \n",
			want: []string{"goos: linux", "goarch: amd64", "BenchmarkX \t 1 \t 5 ns/op"},
		},
		{
			name: "text printed before the configuration",
			in:   "starting\ngoos: linux\ngoarch: amd64\nlate\n\x16=== RUN   BenchmarkX\n",
			want: nil,
		},
		{
			name: "a framing line after text without a newline",
			in:   "goos: linux\n\x16=== RUN   BenchmarkX\nBenchmarkX\nBenchmarkX \t 1 \t 5 ns/op text\x16=== RUN   BenchmarkX/a\nBenchmarkX/a \t 1 \t 5 ns/op\n\x16=== NAME  \n",
			want: []string{"goos: linux", "BenchmarkX/a \t 1 \t 5 ns/op"},
		},
		{
			name: "skipped after printing a result-shaped line",
			in:   "goos: linux\n\x16=== RUN   BenchmarkX\nBenchmarkX\nBenchmarkX \t 1 \t 5 ns/op\n    x_test.go:3: skipped\n\x16--- SKIP: BenchmarkX\n",
			want: []string{"goos: linux"},
		},
		{
			name:   "failed",
			in:     "goos: linux\n\x16=== RUN   BenchmarkX\nBenchmarkX\nBenchmarkX \t 1 \t 5 ns/op\n    x_test.go:3: broken\n\x16--- FAIL: BenchmarkX\n\x16FAIL\n",
			want:   []string{"goos: linux"},
			failed: true,
		},
		{
			name: "FAIL printed by the benchmark is not a failure",
			in:   "goos: linux\n\x16=== RUN   BenchmarkX\nBenchmarkX\n--- FAIL: BenchmarkX\nFAIL\nBenchmarkX \t 1 \t 5 ns/op\n\x16=== NAME  \n",
			want: []string{"goos: linux", "BenchmarkX \t 1 \t 5 ns/op"},
		},
		{
			name: "logs after --- BENCH are not results",
			in:   "goos: linux\n\x16=== RUN   BenchmarkX\nBenchmarkX\nBenchmarkX \t 1 \t 5 ns/op\n\x16--- BENCH: BenchmarkX\n    x_test.go:3: BenchmarkX \t 9 \t 9 ns/op\n\x16=== NAME  \n",
			want: []string{"goos: linux"},
		},
		{
			name: "another benchmark's name is not a result",
			in:   "goos: linux\n\x16=== RUN   BenchmarkX/a\nBenchmarkX/a\nBenchmarkX/ab \t 1 \t 5 ns/op\nBenchmarkX/a-b \t 1 \t 5 ns/op\n\x16=== NAME  \n",
			want: []string{"goos: linux"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s scanner
			var got []string
			for line := range strings.Lines(tt.in) {
				for _, seg := range splitMarker(strings.TrimSuffix(line, "\n")) {
					got = append(got, s.line(seg)...)
				}
			}
			assert.Equal(t, tt.want, got, "kept %q\nwant %q", got, tt.want)
			assert.Equal(t, tt.failed, s.failed, "failed")
		})
	}
}

func TestTopLevel(t *testing.T) {
	tests := []struct {
		line, want string
	}{
		{"BenchmarkX-8   \t 1000000\t      1042 ns/op", "BenchmarkX"},
		{"BenchmarkX \t 1000 \t 12.5 ns/op", "BenchmarkX"},
		{"BenchmarkX 1000 12.5 ns/op", "BenchmarkX"},
		{"BenchmarkX-16 1000 12.5 ns/op", "BenchmarkX"},
		{"BenchmarkX-8 \t 1000 \t 12.5 ns/op \t 12.5 widgets/op", "BenchmarkX"},
		{"BenchmarkGet/size=64-2 \t 1000 \t 5 ns/op", "BenchmarkGet"},
		{"BenchmarkGet/size=64/impl=pool-2 \t 1000 \t 5 ns/op", "BenchmarkGet"},
		{"BenchmarkGet/size=64 \t 1000 \t 5 ns/op", "BenchmarkGet"},
		{"BenchmarkA/k=v-1-2 \t 100 \t 7 ns/op", "BenchmarkA"},
		{"BenchmarkA/k=a-b/c=d/e-f-16 \t 100 \t 7 ns/op", "BenchmarkA"},
		{"BenchmarkA-b/c-4 \t 100 \t 7 ns/op", "BenchmarkA-b"},
		{"BenchmarkFoo-bar-8 \t 100 \t 7 ns/op", "BenchmarkFoo-bar"},
		{"BenchmarkFoo-bar \t 100 \t 7 ns/op", "BenchmarkFoo-bar"},
		{"BenchmarkFoo- \t 100 \t 7 ns/op", "BenchmarkFoo-"},
		{"Benchmark-8 \t 100 \t 7 ns/op", "Benchmark"},
		{"Benchmark \t 100 \t 7 ns/op", "Benchmark"},
	}
	for _, tt := range tests {
		assert.True(t, isResult(tt.line), "isResult(%q) = false; topLevel is only called on result lines", tt.line)
		got := topLevel(tt.line)
		assert.Equal(t, tt.want, got, "topLevel(%q)", tt.line)
	}
}

// TestTailBuffer checks that tailBuffer keeps the last maxKeep bytes, holds
// at most 2*maxKeep, and marks a cut with "…\n". The cases whose last write
// makes the buffer trim itself (to exactly maxKeep bytes) check that the
// mark is not lost then.
func TestTailBuffer(t *testing.T) {
	tests := []struct {
		name   string
		writes []int // sizes of the writes
	}{
		{"empty", nil},
		{"short", []int{10, 20}},
		{"exactly maxKeep", []int{maxKeep}},
		{"maxKeep+1", []int{maxKeep, 1}},
		{"twice maxKeep", []int{maxKeep, maxKeep}},
		{"just over twice maxKeep", []int{maxKeep, maxKeep, 1}},
		{"one huge write", []int{5*maxKeep + 3}},
		{"many lines", func() []int {
			w := make([]int, 5000)
			for i := range w {
				w[i] = 1 + i%97
			}
			return w
		}()},
		{"huge after small", []int{10, 3 * maxKeep, 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tb tailBuffer
			var all []byte
			c := 0
			for _, n := range tt.writes {
				p := make([]byte, n)
				for i := range p {
					p[i] = byte('a' + c%26)
					c++
				}
				all = append(all, p...)
				got, err := tb.Write(p)
				require.Equal(t, n, got, "Write of %d bytes = %d, %v", n, got, err)
				require.NoError(t, err, "Write of %d bytes = %d", n, got)
				require.LessOrEqual(t, len(tb.b), 2*maxKeep, "holds %d bytes after %d written, want at most %d", len(tb.b), len(all), 2*maxKeep)
			}
			want := string(all)
			if len(all) > maxKeep {
				want = "…\n" + string(all[len(all)-maxKeep:])
			}
			got := tb.String()
			assert.Equal(t, want, got, "String() of %d bytes written: %d bytes starting %.20q, want %d bytes starting %.20q", len(all), len(got), got, len(want), want)
		})
	}
}

// helperEnv tells BenchmarkHelperProcess what to do when a test runs this
// very test binary as the benchmark binary of a Package.
const helperEnv = "BENCHRUN_TEST_HELPER"

// BenchmarkHelperProcess is not a benchmark: TestRun… run it in a child
// process, through Package.Run. It skips when run any other way.
func BenchmarkHelperProcess(b *testing.B) {
	mode := os.Getenv(helperEnv)
	switch mode {
	case "":
		b.Skip("a helper process for TestRun")
	case "stderr":
		for i := range 200 {
			fmt.Fprintf(os.Stderr, "stderr line %d\n", i)
		}
	case "fail":
		b.Fatal("broken")
	case "hang":
		// A result, then a sub-benchmark that would run for an hour.
		b.Run("size=64", func(b *testing.B) {
			for range b.N {
			}
		})
		b.Run("hang", func(b *testing.B) {
			time.Sleep(time.Hour)
		})
		return
	case "longline":
		b.Run("long", func(b *testing.B) {
			fmt.Println(strings.Repeat("x", 1<<20+100))
			for range b.N {
			}
		})
	case "print":
		// Everything a benchmark may print that Run must not take for a
		// result or a configuration line, around and inside the runs.
		fmt.Println("key: value")
		fmt.Println("goos: plan9")
		fmt.Fprintln(os.Stderr, "on stderr")
		b.Run("skip", func(b *testing.B) {
			fmt.Println("BenchmarkHelperProcess/skip \t 7 \t 1 ns/op")
			b.Skip("skipped")
		})
		b.Run("size=64", func(b *testing.B) {
			fmt.Println("hello")
			fmt.Println("pkg: fake")
			fmt.Println("BenchmarkHelperProcess/size=64 \t 7 \t 1 ns/op")
			fmt.Println("BenchmarkHelperProcess/size=64-2 \t 7 \t 1 ns/op")
			fmt.Fprintln(os.Stderr, "BenchmarkHelperProcess/size=64 \t 7 \t 1 ns/op")
			fmt.Print("no newline")
			for range b.N {
			}
		})
		return
	}
	b.Run("size=64", func(b *testing.B) {
		for range b.N {
		}
	})
}

// runHelper runs BenchmarkHelperProcess in mode through Package.Run and
// returns what Run wrote, the names it reported and its error.
func runHelper(t *testing.T, mode string, opts Options) (out string, names []string, err error) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	t.Setenv(helperEnv, mode)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p := Package{ImportPath: "example.com/helper", Dir: t.TempDir(), Binary: exe}
	var w bytes.Buffer
	opts.Bench, opts.Benchtime = "^BenchmarkHelperProcess$", "1x"
	if opts.CPU == "" {
		opts.CPU = "1" // result names without a -GOMAXPROCS suffix
	}
	err = p.Run(ctx, opts, &w, func(name string) {
		names = append(names, name)
	})
	require.NoError(t, ctx.Err(), "Run did not end within a minute: %v", err)
	return w.String(), names, err
}

// checkHelperOutput checks that out is the configuration block the testing
// package prints, then exactly the result lines of wantNames, in order,
// each with one iteration (the helper runs with -benchtime 1x; the lines
// it prints itself claim 7), and that onResult got a name per result.
func checkHelperOutput(t *testing.T, out string, names []string, wantNames ...string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for i, key := range []string{"goos: ", "goarch: ", "pkg: "} {
		require.Less(t, i, len(lines), "Run wrote no %q line where the configuration belongs:\n%s", key, out)
		require.True(t, strings.HasPrefix(lines[i], key), "Run wrote no %q line where the configuration belongs:\n%s", key, out)
	}
	assert.Equal(t, "goos: "+runtime.GOOS, lines[0], "configuration")
	assert.Equal(t, "pkg: github.com/netkit/netkit/internal/benchrun", lines[2], "configuration")
	lines = lines[3:]
	if len(lines) > 0 && strings.HasPrefix(lines[0], "cpu: ") {
		lines = lines[1:]
	}
	var got []string
	for _, line := range lines {
		f := strings.Fields(line)
		if assert.True(t, isResult(line), "Run wrote %q, not a result line", line) &&
			assert.Equal(t, "1", f[1], "Run wrote %q, not a result line of one iteration", line) {
			got = append(got, f[0])
		}
	}
	assert.Equal(t, wantNames, got, "results:\n%s", out)
	var want []string
	for range wantNames {
		want = append(want, "BenchmarkHelperProcess")
	}
	assert.Equal(t, want, names, "onResult: want BenchmarkHelperProcess once per result")
}

func TestRun(t *testing.T) {
	out, names, err := runHelper(t, "ok", Options{})
	require.NoError(t, err)
	checkHelperOutput(t, out, names, "BenchmarkHelperProcess/size=64")
}

// TestRunPrints runs a benchmark that prints, with and without a newline
// at the end, lines shaped like configuration and result lines, on standard
// output and standard error, around a sub-benchmark that skips and one that
// runs -count 2 times at -cpu 1,2. Run must write exactly the four real
// results and the testing package's configuration.
func TestRunPrints(t *testing.T) {
	out, names, err := runHelper(t, "print", Options{Count: 2, CPU: "1,2"})
	require.NoError(t, err)
	const n = "BenchmarkHelperProcess/size=64"
	checkHelperOutput(t, out, names, n, n, n+"-2", n+"-2")
}

// TestRunStderr runs a binary that writes 200 lines to its standard error.
// Run merges them into the stream it scans (as go test -json does): none may
// reach the results, and the one result must.
func TestRunStderr(t *testing.T) {
	out, names, err := runHelper(t, "stderr", Options{})
	require.NoError(t, err)
	assert.NotContains(t, out, "stderr line", "the standard error went to the results:\n%s", out)
	checkHelperOutput(t, out, names, "BenchmarkHelperProcess/size=64")
}

func TestRunFail(t *testing.T) {
	out, _, err := runHelper(t, "fail", Options{})
	var re *RunError
	require.ErrorAs(t, err, &re, "Run = %v (%T), want a *RunError", err, err)
	assert.False(t, re.ImportPath != "example.com/helper" || re.Err == nil || !strings.Contains(re.Output, "broken") || !strings.Contains(re.Output, "--- FAIL: BenchmarkHelperProcess"), "RunError %+v, want the import path, an exit error and the output with the failure", re)
	assert.NotContains(t, out, "FAIL", "the failure went to the results:\n%s", out)
	assert.NotContains(t, out, "broken", "the failure went to the results:\n%s", out)
}

// TestRunLongLine runs a binary that prints a line longer than Run keeps
// (maxLine) inside a sub-benchmark, before its result and the next
// sub-benchmark. Run must succeed, drop the long line, and write both
// results.
func TestRunLongLine(t *testing.T) {
	out, names, err := runHelper(t, "longline", Options{})
	require.NoError(t, err, "Run")
	assert.NotContains(t, out, "xxx", "the long line went to the results (%d bytes written)", len(out))
	checkHelperOutput(t, out, names, "BenchmarkHelperProcess/long", "BenchmarkHelperProcess/size=64")
}

// failWriter fails every write, as standard output does once its reader
// has gone.
type failWriter struct{}

var errGone = errors.New("the reader has gone")

func (failWriter) Write([]byte) (int, error) { return 0, errGone }

// TestRunWriteError: when the results cannot be written (netbench run |
// head -1 with SIGPIPE ignored), Run went on reading the binary to its
// end, running every benchmark for nobody, before it reported the write
// error. It stops the binary at the first failed write.
func TestRunWriteError(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	t.Setenv(helperEnv, "hang")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := Package{ImportPath: "example.com/helper", Dir: t.TempDir(), Binary: exe}
	err = p.Run(ctx, Options{Bench: "^BenchmarkHelperProcess$", Benchtime: "1x", CPU: "1"}, failWriter{}, nil)
	require.NoError(t, ctx.Err(), "Run ran the hour-long benchmark after the write failed (until the test's deadline): %v", err)
	assert.ErrorIs(t, err, errGone)
	var re *RunError
	assert.False(t, errors.As(err, &re), "a write error, not a failed run: %v", err)
}
