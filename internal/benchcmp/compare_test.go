package benchcmp

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixture writes two result files: A is 10% slower on the new side, B is
// unchanged, C is new only, D is old only, and every benchmark reports
// B/op and allocs/op (constant) and B has a throughput.
func fixture(t *testing.T, dir string) (oldPath, newPath string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 7))
	write := func(name string, slow float64, extra string) string {
		var b strings.Builder
		b.WriteString("goos: linux\ngoarch: amd64\npkg: example.com/m\n")
		for range 10 {
			fmt.Fprintf(&b, "BenchmarkA/size=64-2 \t 1000 \t %.2f ns/op \t 64 B/op \t 1 allocs/op\n", 100*slow*(0.97+0.06*rng.Float64()))
			fmt.Fprintf(&b, "BenchmarkB-2 \t 1000 \t %.2f ns/op \t %.2f MB/s \t 0 B/op \t 0 allocs/op\n", 50*(0.9+0.2*rng.Float64()), 100*(0.9+0.2*rng.Float64()))
			if extra != "" {
				fmt.Fprintf(&b, "Benchmark%s-2 \t 1000 \t %.2f ns/op\n", extra, 10*(0.9+0.2*rng.Float64()))
			}
		}
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
		return p
	}
	return write("old.txt", 1.0, "D"), write("new.txt", 1.1, "C")
}

func compareFiles(t *testing.T, oldPath, newPath string) []Row {
	t.Helper()
	o, err := os.Open(oldPath)
	require.NoError(t, err)
	defer o.Close()
	n, err := os.Open(newPath)
	require.NoError(t, err)
	defer n.Close()
	rows, err := Compare(o, n, DefaultConfidence)
	require.NoError(t, err)
	return rows
}

func find(rows []Row, name, unit string) (Row, bool) {
	for _, r := range rows {
		if r.Name == name && r.Unit == unit {
			return r, true
		}
	}
	return Row{}, false
}

func TestCompareVerdicts(t *testing.T) {
	oldPath, newPath := fixture(t, t.TempDir())
	rows := compareFiles(t, oldPath, newPath)
	if a, ok := find(rows, "A/size=64-2", "sec/op"); assert.True(t, ok, "no A sec/op row") {
		assert.True(t, a.Significant(DefaultAlpha), "A sec/op: %+v, want a significant slowdown", a)
		assert.InDelta(t, 0.10, a.Delta, 0.05, "A sec/op: %+v, want a slowdown near +10%%", a)
	}
	if b, ok := find(rows, "B-2", "sec/op"); assert.True(t, ok, "no B sec/op row") {
		assert.False(t, b.Significant(DefaultAlpha), "B sec/op: %+v, want no significant change", b)
	}
	if tp, ok := find(rows, "B-2", "B/s"); assert.True(t, ok, "no B B/s row") {
		assert.True(t, tp.HigherIsBetter(), "B B/s: %+v, want a higher-is-better throughput row", tp)
	}
	if al, ok := find(rows, "A/size=64-2", "allocs/op"); assert.True(t, ok, "no A allocs/op row") {
		assert.True(t, al.Constant(), "A allocs/op: %+v, want constant", al)
		assert.Zero(t, al.Delta, "A allocs/op: %+v, want unchanged", al)
	}
	if c, ok := find(rows, "C-2", "sec/op"); assert.True(t, ok, "no C (added) row") {
		assert.Zero(t, c.Old.N, "C (added): %+v", c)
		assert.Equal(t, 10, c.New.N, "C (added): %+v", c)
		assert.True(t, math.IsNaN(c.P), "C (added): %+v, want no p-value", c)
	}
	if d, ok := find(rows, "D-2", "sec/op"); assert.True(t, ok, "no D (removed) row") {
		assert.Equal(t, 10, d.Old.N, "D (removed): %+v", d)
		assert.Zero(t, d.New.N, "D (removed): %+v", d)
	}
}

// TestMatchesBenchstat runs the real benchstat (golang.org/x/perf, a
// dependency of this module) on the same files and checks that medians,
// intervals, deltas and p-values agree with Compare's: every row's
// "vs base" column is "~" exactly when Compare finds no significant change
// at benchstat's alpha, and otherwise the change of the median that
// Compare computes, to benchstat's two decimals; the geomean rows' changes
// agree too.
func TestMatchesBenchstat(t *testing.T) {
	if testing.Short() {
		t.Skip("builds benchstat")
	}
	oldPath, newPath := fixture(t, t.TempDir())
	cmd := exec.Command("go", "run", "golang.org/x/perf/cmd/benchstat", "-format", "csv", oldPath, newPath)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "benchstat\n%s", stderr.String())
	rows := compareFiles(t, oldPath, newPath)
	checked, deltas := 0, 0
	var unit string
	for _, tbl := range strings.Split(string(out), "\n\n") {
		r := csv.NewReader(strings.NewReader(tbl))
		r.FieldsPerRecord = -1
		recs, err := r.ReadAll()
		require.NoError(t, err, "benchstat csv\n%s", tbl)
		for _, rec := range recs {
			if len(rec) < 7 {
				continue
			}
			if rec[0] == "" && rec[1] != "" && !strings.HasSuffix(rec[1], ".txt") {
				unit = rec[1]
				continue
			}
			if rec[0] == "geomean" {
				o, n, ok := geomean(Judge(rows, Gate{Alpha: DefaultAlpha}), table{"example.com/m", unit})
				if rec[1] == "" || strings.Contains(rec[5], "?") {
					assert.False(t, ok, "%s: benchstat has no geomean, Compare has %v %v", unit, o.Center, n.Center)
					continue
				}
				if !assert.True(t, ok, "%s: benchstat has a geomean, Compare has none", unit) {
					continue
				}
				checkNum(t, unit+" old geomean", rec[1], o.Center)
				checkNum(t, unit+" new geomean", rec[3], n.Center)
				got := geoDelta(Judge(rows, Gate{Alpha: DefaultAlpha}), table{"example.com/m", unit})
				assert.Equal(t, rec[5], got, "%s geomean: benchstat's change and Compare's", unit)
				checked++
				deltas++
				continue
			}
			if rec[0] == "" {
				continue
			}
			row, ok := find(rows, rec[0], unit)
			if !assert.True(t, ok, "benchstat has %s %s, Compare has not", rec[0], unit) {
				continue
			}
			checkNum(t, rec[0]+" "+unit+" old median", rec[1], row.Old.Center)
			checkNum(t, rec[0]+" "+unit+" new median", rec[3], row.New.Center)
			assert.Equal(t, rec[2], row.Old.PctRange(), "%s %s: old interval, benchstat's and Compare's", rec[0], unit)
			assert.Equal(t, rec[4], row.New.PctRange(), "%s %s: new interval, benchstat's and Compare's", rec[0], unit)
			assert.Equal(t, rec[6], fmt.Sprintf("p=%.3f n=10", row.P), "%s %s: p-value, benchstat's and Compare's", rec[0], unit)
			got := fmt.Sprintf("%+.2f%%", 100*row.Delta)
			if rec[5] == "~" {
				assert.False(t, row.Significant(DefaultAlpha), "%s %s: benchstat finds no significant change, Compare finds %s (p=%v)", rec[0], unit, got, row.P)
			} else if assert.True(t, row.Significant(DefaultAlpha), "%s %s: benchstat's change %q, Compare finds none significant (p=%v)", rec[0], unit, rec[5], row.P) &&
				assert.Equal(t, rec[5], got, "%s %s: change, benchstat's and Compare's", rec[0], unit) {
				deltas++
			}
			checked++
		}
	}
	require.GreaterOrEqual(t, checked, 5, "only %d rows compared with benchstat, %d of them with a change:\n%s", checked, deltas, out)
	require.GreaterOrEqual(t, deltas, 2, "only %d rows compared with benchstat, %d of them with a change:\n%s", checked, deltas, out)
}

func checkNum(t *testing.T, what, s string, got float64) {
	t.Helper()
	want, err := strconv.ParseFloat(s, 64)
	if assert.NoError(t, err, "%s: benchstat printed %q", what, s) {
		assert.InDelta(t, want, got, 1e-9*math.Abs(want), "%s: benchstat's and Compare's", what)
	}
}
