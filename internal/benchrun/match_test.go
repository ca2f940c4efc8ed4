package benchrun

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitBench(t *testing.T) {
	tests := []struct {
		in   string
		want [][]string
	}{
		{".", [][]string{{"."}}},
		{"Foo/size=64", [][]string{{"Foo", "size=64"}}},
		{"Foo/", [][]string{{"Foo", ""}}},
		{"A/x=1|B", [][]string{{"A", "x=1"}, {"B"}}},
		{"[/]x", [][]string{{"[/]x"}}},              // inside brackets
		{"(a/b|c)/d", [][]string{{"(a/b|c)", "d"}}}, // inside parentheses
		{`a\/b/c`, [][]string{{`a\/b`, "c"}}},       // escaped
		{"a]/b", [][]string{{"a]", "b"}}},           // an unmatched ']'
		{"[(]/x", [][]string{{"[(]", "x"}}},         // '(' inside brackets
	}
	for _, tt := range tests {
		got := splitBench(tt.in)
		assert.Equal(t, tt.want, got, "splitBench(%q)", tt.in)
	}
}

func TestCheckFlags(t *testing.T) {
	for _, ok := range []string{"", ".", "Foo/size=64", "A|B/c", "[/]"} {
		assert.NoError(t, CheckBench(ok), "CheckBench(%q)", ok)
	}
	for _, bad := range []string{"[", "Foo/[", "A|(", "x/*"} {
		assert.Error(t, CheckBench(bad), "CheckBench(%q) = nil, want an error", bad)
	}
	for _, ok := range []string{"", "1", "1,2,4", " 2 , 4 "} {
		assert.NoError(t, CheckCPU(ok), "CheckCPU(%q)", ok)
	}
	for _, bad := range []string{"0", "x", "1,0", "-1", "1.5"} {
		assert.Error(t, CheckCPU(bad), "CheckCPU(%q) = nil, want an error", bad)
	}
	for _, ok := range []string{"", "1x", "100x", "1s", "250ms"} {
		assert.NoError(t, CheckBenchtime(ok), "CheckBenchtime(%q)", ok)
	}
	for _, bad := range []string{"0x", "-1x", "x", "0s", "-1s", "fast"} {
		assert.Error(t, CheckBenchtime(bad), "CheckBenchtime(%q) = nil, want an error", bad)
	}
}

// TestListBenchmarksSubPattern lists the benchmarks of this test binary
// with patterns that name a sub-benchmark: the top-level benchmark must be
// listed, as go test would run it.
func TestListBenchmarksSubPattern(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	p := Package{ImportPath: "example.com/helper", Dir: t.TempDir(), Binary: exe}
	for _, tt := range []struct {
		bench string
		want  []string
	}{
		{"HelperProcess/size=64", []string{"BenchmarkHelperProcess"}},
		{"^BenchmarkHelperProcess$/^size=64$", []string{"BenchmarkHelperProcess"}},
		{"NoSuch|HelperProcess/x", []string{"BenchmarkHelperProcess"}},
		{"NoSuch/HelperProcess", nil},
	} {
		got, err := listBenchmarks(context.Background(), p, tt.bench)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, "listBenchmarks(%q)", tt.bench)
	}
}
