package benchrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
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
		if got := isResult(tt.line); got != tt.want {
			t.Errorf("isResult(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
}

func TestIsConfig(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{"goos: linux", true},
		{"goarch: amd64", true},
		{"pkg: example.com/m", true},
		{"cpu: AMD EPYC 7B13", true},
		{"cpu: Intel(R) Xeon(R) CPU @ 2.20GHz", true},
		{"commit: 0123abc", true},
		{"go-version: go1.26", true},
		{"note: a: b", true},    // a value may hold colons
		{"key:   spaced", true}, // several spaces

		{"Key: v", false}, // upper-case key
		{"PASS", false},
		{"no colon", false},
		{"a b: c", false},
		{"key:value", false}, // no space after the colon
		{": value", false},
		{"1key: v", false},
		{" key: v", false},
		{"\tkey: v", false},
		{"    x_test.go:3: broken", false},
		{"--- FAIL: BenchmarkBroken", false},
		{"ok  \texample.com/m\t0.1s", false},
		{"BenchmarkX-8 \t 1000 \t 12.5 ns/op", false},
		{"BenchmarkX: 1", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := isConfig(tt.line); got != tt.want {
			t.Errorf("isConfig(%q) = %v, want %v", tt.line, got, tt.want)
		}
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
		if !isResult(tt.line) {
			t.Errorf("isResult(%q) = false; topLevel is only called on result lines", tt.line)
		}
		if got := topLevel(tt.line); got != tt.want {
			t.Errorf("topLevel(%q) = %q, want %q", tt.line, got, tt.want)
		}
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
				if got, err := tb.Write(p); got != n || err != nil {
					t.Fatalf("Write of %d bytes = %d, %v", n, got, err)
				}
				if len(tb.b) > 2*maxKeep {
					t.Fatalf("holds %d bytes after %d written, want at most %d", len(tb.b), len(all), 2*maxKeep)
				}
			}
			want := string(all)
			if len(all) > maxKeep {
				want = "…\n" + string(all[len(all)-maxKeep:])
			}
			if got := tb.String(); got != want {
				t.Errorf("String() of %d bytes written: %d bytes starting %.20q, want %d bytes starting %.20q", len(all), len(got), got, len(want), want)
			}
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
	case "longline":
		b.Run("long", func(b *testing.B) {
			fmt.Println(strings.Repeat("x", 1<<20+100))
			for range b.N {
			}
		})
	}
	b.Run("size=64", func(b *testing.B) {
		for range b.N {
		}
	})
}

// runHelper runs BenchmarkHelperProcess in mode through Package.Run and
// returns what Run wrote, the names it reported and its error.
func runHelper(t *testing.T, mode string) (out string, names []string, err error) {
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
	err = p.Run(ctx, Options{Bench: "^BenchmarkHelperProcess$", Benchtime: "1x"}, &w, func(name string) {
		names = append(names, name)
	})
	if ctx.Err() != nil {
		t.Fatalf("Run did not end within a minute: %v", err)
	}
	return w.String(), names, err
}

func checkHelperOutput(t *testing.T, out string, names []string) {
	t.Helper()
	var results int
	for line := range strings.Lines(out) {
		line = strings.TrimSuffix(line, "\n")
		switch {
		case isResult(line):
			results++
			if !strings.HasPrefix(line, "BenchmarkHelperProcess/size=64") {
				t.Errorf("result line %q, want one of BenchmarkHelperProcess/size=64", line)
			}
		case isConfig(line):
		default:
			t.Errorf("Run wrote %q, neither a result nor a configuration line", line)
		}
	}
	if results != 1 || !strings.Contains(out, "goos: ") || !strings.Contains(out, "pkg: ") {
		t.Errorf("Run wrote %d result lines, want 1, and the configuration:\n%s", results, out)
	}
	if len(names) != 1 || names[0] != "BenchmarkHelperProcess" {
		t.Errorf("onResult got %q, want [BenchmarkHelperProcess]", names)
	}
}

func TestRun(t *testing.T) {
	out, names, err := runHelper(t, "ok")
	if err != nil {
		t.Fatal(err)
	}
	checkHelperOutput(t, out, names)
}

// TestRunStderr runs a binary that writes to its standard error while Run
// reads its standard output. Both end in Run's tailBuffer, which has no
// lock: exec.Cmd copies the standard error in a goroutine of its own while
// Run's loop writes the standard output lines, so the race detector
// reports a data race on tailBuffer.b.
func TestRunStderr(t *testing.T) {
	out, names, err := runHelper(t, "stderr")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "stderr line") {
		t.Errorf("the standard error went to the results:\n%s", out)
	}
	checkHelperOutput(t, out, names)
}

func TestRunFail(t *testing.T) {
	out, _, err := runHelper(t, "fail")
	var re *RunError
	if !errors.As(err, &re) {
		t.Fatalf("Run = %v (%T), want a *RunError", err, err)
	}
	if re.ImportPath != "example.com/helper" || re.Err == nil || !strings.Contains(re.Output, "broken") || !strings.Contains(re.Output, "--- FAIL: BenchmarkHelperProcess") {
		t.Errorf("RunError %+v, want the import path, an exit error and the output with the failure", re)
	}
	if strings.Contains(out, "FAIL") || strings.Contains(out, "broken") {
		t.Errorf("the failure went to the results:\n%s", out)
	}
}

// TestRunLongLine runs a binary that prints a line longer than Run's
// scanner accepts (1 MiB) before its results. Run ignores the scanner's
// error (bufio.ErrTooLong): it stops reading, the results after the long
// line are lost, and it returns nil as if the run had succeeded. (When
// more than a pipe buffer of output follows, the child blocks on the full
// pipe and Run hangs until the context ends.)
func TestRunLongLine(t *testing.T) {
	out, names, err := runHelper(t, "longline")
	if err != nil {
		return // reported, as it should be
	}
	if !strings.Contains(out, "BenchmarkHelperProcess/size=64") {
		t.Errorf("Run = nil, but the lines after the long one are lost: it wrote %d bytes %.200q and reported %q", len(out), out, names)
	}
}
