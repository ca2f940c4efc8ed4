package flame

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		require.Len(t, fields, want, "folded line %q: want a path and %d value(s)", line, want-1)
		require.NotEqual(t, "", fields[0], "folded line %q: want a path and %d value(s)", line, want-1)
		v, err := strconv.ParseInt(fields[len(fields)-1], 10, 64)
		require.NoError(t, err, "folded line %q", line)
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
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, g.WriteFolded(&buf))
	want := "main 16\nmain;a 4\nmain;a;b 2\nmain;a;b;a;b 1\nmain;c;d;e 8\n"
	assert.Equal(t, want, buf.String(), "folded")
	assert.Equal(t, pathTotals(g), parseFolded(t, buf.String(), false), "per-path totals")
}
