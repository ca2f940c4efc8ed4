package flame

import (
	"bytes"
	"maps"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// parseFolded reads folded stacks and returns the total of every path
// prefix ("" is the root), as a flame graph tool would draw them. With
// diff, lines have a base and a new value, and the new one counts.
func parseFolded(t *testing.T, s string, diff bool) map[string]int64 {
	t.Helper()
	m := map[string]int64{}
	for line := range strings.SplitSeq(strings.TrimSuffix(s, "\n"), "\n") {
		fields := strings.Split(line, " ")
		want := 2
		if diff {
			want = 3
		}
		if len(fields) != want || fields[0] == "" {
			t.Fatalf("folded line %q: want a path and %d value(s)", line, want-1)
		}
		v, err := strconv.ParseInt(fields[len(fields)-1], 10, 64)
		if err != nil {
			t.Fatalf("folded line %q: %v", line, err)
		}
		frames := strings.Split(fields[0], ";")
		m[""] += v
		for i := range frames {
			m[strings.Join(frames[:i+1], ";")] += v
		}
	}
	return m
}

func TestFoldedRoundTrip(t *testing.T) {
	p := synth(t, []string{"samples"}, map[string][]int64{
		"main;a;b;a;b": {1},
		"main;a;b":     {2},
		"main;a":       {4},
		"main;c+d;e":   {8},
		"main":         {16},
	})
	g, err := FromProfiles([]*profile.Profile{p}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := g.WriteFolded(&buf); err != nil {
		t.Fatal(err)
	}
	want := "main 16\nmain;a 4\nmain;a;b 2\nmain;a;b;a;b 1\nmain;c;d;e 8\n"
	if buf.String() != want {
		t.Errorf("folded:\n%s\nwant\n%s", buf.String(), want)
	}
	if got, want := parseFolded(t, buf.String(), false), pathTotals(g); !maps.Equal(got, want) {
		t.Errorf("per-path totals %v, want %v", got, want)
	}
}
