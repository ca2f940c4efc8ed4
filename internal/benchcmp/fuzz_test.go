package benchcmp

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzCompare feeds arbitrary text to Compare as both sides. It must never
// panic, and a set of results compared with itself must show no change:
// every row has both sides with equal medians, and Judge finds nothing
// better, worse or failing.
func FuzzCompare(f *testing.F) {
	f.Add([]byte("pkg: example.com/m\nBenchmarkA-2 \t 100 \t 12.5 ns/op \t 8 B/op \t 1 allocs/op\nBenchmarkA-2 \t 100 \t 13 ns/op \t 8 B/op \t 1 allocs/op\n"))
	f.Add([]byte("goos: linux\nBenchmarkX/k=v-4 10 5 widgets/op 3 MB/s\nBenchmarkX/k=v-4 10 6 widgets/op 4 MB/s\nPASS\n"))
	f.Add([]byte("BenchmarkBad 1 2\n"))
	f.Add([]byte("Unit ns/op assume=exact\nBenchmarkZ 1 0 ns/op\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, err := Compare(bytes.NewReader(in), bytes.NewReader(in), DefaultConfidence)
		if err != nil {
			return // a syntax error, reported rather than panicking
		}
		for _, j := range Judge(rows, Gate{Alpha: DefaultAlpha, Threshold: 0.05, Holm: true}) {
			require.NotEqual(t, 0, j.Old.N, "%s %s compared with itself: old %+v new %+v", j.Name, j.Unit, j.Old, j.New)
			require.Equal(t, j.New.N, j.Old.N, "%s %s compared with itself: old %+v new %+v", j.Name, j.Unit, j.Old, j.New)
			require.Equal(t, j.New.Center, j.Old.Center, "%s %s compared with itself: old %+v new %+v", j.Name, j.Unit, j.Old, j.New)
			require.Equal(t, Unchanged, j.Verdict, "%s %s compared with itself: verdict %q fails %v (p %v)", j.Name, j.Unit, j.Verdict, j.Fails, j.P)
			require.False(t, j.Fails, "%s %s compared with itself: verdict %q fails %v (p %v)", j.Name, j.Unit, j.Verdict, j.Fails, j.P)
		}
	})
}
