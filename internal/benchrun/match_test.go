package benchrun

import (
	"context"
	"os"
	"reflect"
	"slices"
	"testing"
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
		if got := splitBench(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("splitBench(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCheckFlags(t *testing.T) {
	for _, ok := range []string{"", ".", "Foo/size=64", "A|B/c", "[/]"} {
		if err := CheckBench(ok); err != nil {
			t.Errorf("CheckBench(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"[", "Foo/[", "A|(", "x/*"} {
		if err := CheckBench(bad); err == nil {
			t.Errorf("CheckBench(%q) = nil, want an error", bad)
		}
	}
	for _, ok := range []string{"", "1", "1,2,4", " 2 , 4 "} {
		if err := CheckCPU(ok); err != nil {
			t.Errorf("CheckCPU(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"0", "x", "1,0", "-1", "1.5"} {
		if err := CheckCPU(bad); err == nil {
			t.Errorf("CheckCPU(%q) = nil, want an error", bad)
		}
	}
	for _, ok := range []string{"", "1x", "100x", "1s", "250ms"} {
		if err := CheckBenchtime(ok); err != nil {
			t.Errorf("CheckBenchtime(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"0x", "-1x", "x", "0s", "-1s", "fast"} {
		if err := CheckBenchtime(bad); err == nil {
			t.Errorf("CheckBenchtime(%q) = nil, want an error", bad)
		}
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
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("listBenchmarks(%q) = %q, want %q", tt.bench, got, tt.want)
		}
	}
}
