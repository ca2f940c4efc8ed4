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
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return write("old.txt", 1.0, "D"), write("new.txt", 1.1, "C")
}

func compareFiles(t *testing.T, oldPath, newPath string) []Row {
	t.Helper()
	o, err := os.Open(oldPath)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	n, err := os.Open(newPath)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	rows, err := Compare(o, n, DefaultConfidence)
	if err != nil {
		t.Fatal(err)
	}
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
	a, ok := find(rows, "A/size=64-2", "sec/op")
	if !ok || !a.Significant(DefaultAlpha) || a.Delta < 0.05 || a.Delta > 0.15 {
		t.Errorf("A sec/op: %+v, want a significant slowdown near +10%%", a)
	}
	b, ok := find(rows, "B-2", "sec/op")
	if !ok || b.Significant(DefaultAlpha) {
		t.Errorf("B sec/op: %+v, want no significant change", b)
	}
	if tp, ok := find(rows, "B-2", "B/s"); !ok || !tp.HigherIsBetter() {
		t.Errorf("B B/s: %+v, want a higher-is-better throughput row", tp)
	}
	if al, ok := find(rows, "A/size=64-2", "allocs/op"); !ok || !al.Constant() || al.Delta != 0 {
		t.Errorf("A allocs/op: %+v, want constant and unchanged", al)
	}
	if c, ok := find(rows, "C-2", "sec/op"); !ok || c.Old.N != 0 || c.New.N != 10 || !math.IsNaN(c.P) {
		t.Errorf("C (added): %+v", c)
	}
	if d, ok := find(rows, "D-2", "sec/op"); !ok || d.Old.N != 10 || d.New.N != 0 {
		t.Errorf("D (removed): %+v", d)
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
	if err != nil {
		t.Fatalf("benchstat: %v\n%s", err, stderr.String())
	}
	rows := compareFiles(t, oldPath, newPath)
	checked, deltas := 0, 0
	var unit string
	for _, tbl := range strings.Split(string(out), "\n\n") {
		r := csv.NewReader(strings.NewReader(tbl))
		r.FieldsPerRecord = -1
		recs, err := r.ReadAll()
		if err != nil {
			t.Fatalf("benchstat csv: %v\n%s", err, tbl)
		}
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
					if ok {
						t.Errorf("%s: benchstat has no geomean, Compare has %v %v", unit, o.Center, n.Center)
					}
					continue
				}
				if !ok {
					t.Errorf("%s: benchstat has a geomean, Compare has none", unit)
					continue
				}
				checkNum(t, unit+" old geomean", rec[1], o.Center)
				checkNum(t, unit+" new geomean", rec[3], n.Center)
				if got := geoDelta(Judge(rows, Gate{Alpha: DefaultAlpha}), table{"example.com/m", unit}); rec[5] != got {
					t.Errorf("%s geomean: benchstat's change %q, Compare's %q", unit, rec[5], got)
				}
				checked++
				deltas++
				continue
			}
			if rec[0] == "" {
				continue
			}
			row, ok := find(rows, rec[0], unit)
			if !ok {
				t.Errorf("benchstat has %s %s, Compare has not", rec[0], unit)
				continue
			}
			checkNum(t, rec[0]+" "+unit+" old median", rec[1], row.Old.Center)
			checkNum(t, rec[0]+" "+unit+" new median", rec[3], row.New.Center)
			if rec[2] != row.Old.PctRange() || rec[4] != row.New.PctRange() {
				t.Errorf("%s %s: intervals %s, %s; Compare %s, %s", rec[0], unit, rec[2], rec[4], row.Old.PctRange(), row.New.PctRange())
			}
			if want := fmt.Sprintf("p=%.3f n=10", row.P); rec[6] != want {
				t.Errorf("%s %s: benchstat %q, Compare %q", rec[0], unit, rec[6], want)
			}
			switch got := fmt.Sprintf("%+.2f%%", 100*row.Delta); {
			case rec[5] == "~":
				if row.Significant(DefaultAlpha) {
					t.Errorf("%s %s: benchstat finds no significant change, Compare finds %s (p=%v)", rec[0], unit, got, row.P)
				}
			case !row.Significant(DefaultAlpha):
				t.Errorf("%s %s: benchstat's change %q, Compare finds none significant (p=%v)", rec[0], unit, rec[5], row.P)
			case rec[5] != got:
				t.Errorf("%s %s: benchstat's change %q, Compare's %q", rec[0], unit, rec[5], got)
			default:
				deltas++
			}
			checked++
		}
	}
	if checked < 5 || deltas < 2 {
		t.Fatalf("only %d rows compared with benchstat, %d of them with a change:\n%s", checked, deltas, out)
	}
}

func checkNum(t *testing.T, what, s string, got float64) {
	t.Helper()
	want, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Errorf("%s: benchstat printed %q", what, s)
		return
	}
	if math.Abs(want-got) > 1e-9*math.Abs(want) {
		t.Errorf("%s: benchstat %v, Compare %v", what, want, got)
	}
}
