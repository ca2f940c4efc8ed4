package benchcmp

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stat is a side with n samples around center that are not all equal, so
// that a row of two stat sides is judged by the statistical rule.
func stat(n int, center float64) Side {
	if n == 0 {
		return Side{}
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = center * (1 + 0.001*float64(i-n/2))
	}
	return Side{N: n, Center: center, Lo: center * 0.99, Hi: center * 1.01, Values: v}
}

// exact is a side of n samples that all measured v.
func exact(n int, v float64) Side {
	vs := make([]float64, n)
	for i := range vs {
		vs[i] = v
	}
	return Side{N: n, Center: v, Lo: v, Hi: v, Values: vs}
}

// row builds a row of unit with the given sides; Delta follows from the
// centers and P is p (NaN when a side is missing, as Compare leaves it).
func row(name, unit string, old, new Side, p float64) Row {
	r := Row{Name: name, Unit: unit, Old: old, New: new, Delta: math.NaN(), P: math.NaN()}
	if old.N > 0 && new.N > 0 {
		r.P = p
		if old.Center != 0 {
			r.Delta = (new.Center - old.Center) / old.Center
		}
	}
	return r
}

func TestJudge(t *testing.T) {
	gate := Gate{Alpha: 0.05, Threshold: 0.05}
	withUnits := func(units ...string) Gate {
		g := gate
		g.Units = units
		return g
	}
	tests := []struct {
		name    string
		row     Row
		gate    Gate
		verdict string
		fails   bool
	}{
		// sec/op is always gated.
		{"slowdown above threshold", row("A", "sec/op", stat(10, 100), stat(10, 110), 0.001), gate, Worse, true},
		{"slowdown below threshold", row("A", "sec/op", stat(10, 100), stat(10, 103), 0.001), gate, Worse, false},
		{"slowdown at threshold", Row{Name: "A", Unit: "sec/op", Old: stat(10, 100), New: stat(10, 105), Delta: 0.05, P: 0.001}, gate, Worse, false},
		{"slowdown not significant", row("A", "sec/op", stat(10, 100), stat(10, 150), 0.2), gate, Unchanged, false},
		{"p equal to alpha", row("A", "sec/op", stat(10, 100), stat(10, 150), 0.05), gate, Unchanged, false},
		{"speedup", row("A", "sec/op", stat(10, 100), stat(10, 80), 0.001), gate, Better, false},
		{"p NaN with both sides", row("A", "sec/op", stat(10, 100), stat(10, 150), math.NaN()), gate, Unchanged, false},
		{"zero threshold", row("A", "sec/op", stat(10, 100), stat(10, 100.5), 0.001), Gate{Alpha: 0.05}, Worse, true},

		// Throughputs: higher is better; gated only when listed.
		{"B/s down, not gated", row("A", "B/s", stat(10, 100e6), stat(10, 80e6), 0.001), gate, Worse, false},
		{"B/s down, gated", row("A", "B/s", stat(10, 100e6), stat(10, 80e6), 0.001), withUnits("B/s"), Worse, true},
		{"B/s down below threshold, gated", row("A", "B/s", stat(10, 100e6), stat(10, 97e6), 0.001), withUnits("B/s"), Worse, false},
		{"B/s down, not significant", row("A", "B/s", stat(10, 100e6), stat(10, 80e6), 0.3), withUnits("B/s"), Unchanged, false},
		{"B/s up, gated", row("A", "B/s", stat(10, 100e6), stat(10, 130e6), 0.001), withUnits("B/s"), Better, false},
		{"other unit listed does not gate B/s", row("A", "B/s", stat(10, 100e6), stat(10, 80e6), 0.001), withUnits("widgets/op"), Worse, false},

		// Custom units: lower is better, gated only when listed.
		{"custom unit up, not gated", row("A", "widgets/op", stat(10, 12.5), stat(10, 15), 0.001), gate, Worse, false},
		{"custom unit up, gated", row("A", "widgets/op", stat(10, 12.5), stat(10, 15), 0.001), withUnits("widgets/op"), Worse, true},
		{"custom unit down", row("A", "widgets/op", stat(10, 12.5), stat(10, 10), 0.001), withUnits("widgets/op"), Better, false},

		// allocs/op and B/op constant on both sides: any increase fails,
		// whatever the p-value, the sample count and the threshold.
		{"allocs up, n=1", row("A", "allocs/op", exact(1, 1), exact(1, 2), 1), gate, Worse, true},
		{"allocs up from zero", row("A", "allocs/op", exact(10, 0), exact(10, 1), 0.0001), gate, Worse, true},
		{"allocs up, huge threshold", row("A", "allocs/op", exact(10, 100), exact(10, 101), 0.0001), Gate{Alpha: 0.05, Threshold: 10}, Worse, true},
		{"allocs down", row("A", "allocs/op", exact(3, 2), exact(3, 1), 0.1), gate, Better, false},
		{"allocs equal", row("A", "allocs/op", exact(10, 3), exact(10, 3), 1), gate, Unchanged, false},
		{"allocs zero both", row("A", "allocs/op", exact(10, 0), exact(10, 0), 1), gate, Unchanged, false},
		{"B/op up, n=1", row("A", "B/op", exact(1, 64), exact(1, 65), 1), gate, Worse, true},
		{"B/op down", row("A", "B/op", exact(10, 128), exact(10, 96), 0.0001), gate, Better, false},
		{"B/op equal", row("A", "B/op", exact(2, 64), exact(2, 64), 1), gate, Unchanged, false},
		{"B/op of other sizes", row("A", "B/op", exact(10, 64), exact(5, 72), 0.001), gate, Worse, true},

		// allocs/op or B/op varying on a side: the statistical rule.
		{"allocs varying, not significant", row("A", "allocs/op", stat(10, 10), stat(10, 12), 0.3), gate, Unchanged, false},
		{"allocs varying, significant, not gated", row("A", "allocs/op", stat(10, 10), stat(10, 12), 0.001), gate, Worse, false},
		{"allocs varying, significant, gated", row("A", "allocs/op", stat(10, 10), stat(10, 12), 0.001), withUnits("allocs/op"), Worse, true},
		{"allocs varying, below threshold, gated", row("A", "allocs/op", stat(10, 100), stat(10, 102), 0.001), withUnits("allocs/op"), Worse, false},
		{"allocs constant old only", row("A", "allocs/op", exact(10, 10), stat(10, 12), 0.3), gate, Unchanged, false},
		{"allocs constant new only", row("A", "allocs/op", stat(10, 10), exact(10, 12), 0.3), gate, Unchanged, false},
		{"B/op varying down", row("A", "B/op", stat(10, 100), stat(10, 80), 0.001), withUnits("B/op"), Better, false},
		{"custom unit constant is not exact", row("A", "widgets/op", exact(1, 1), exact(1, 2), 1), gate, Unchanged, false},

		// instructions/op: differences under its resolution (0.5%) are ~
		// however significant; larger ones are judged as usual.
		{"instructions +0.1%, significant", row("A", "instructions/op", stat(10, 5000), stat(10, 5005), 0.001), withUnits("instructions/op"), Unchanged, false},
		{"instructions -0.4%, significant", row("A", "instructions/op", stat(10, 5000), stat(10, 4980), 0.001), withUnits("instructions/op"), Unchanged, false},
		{"instructions +1%, significant", row("A", "instructions/op", stat(10, 5000), stat(10, 5050), 0.001), withUnits("instructions/op"), Worse, false},
		{"instructions +12%, gated", row("A", "instructions/op", stat(10, 5000), stat(10, 5600), 0.001), withUnits("instructions/op"), Worse, true},
		{"sec/op +0.1% is not held to it", row("A", "sec/op", stat(10, 100), stat(10, 100.1), 0.001), Gate{Alpha: 0.05}, Worse, true},

		// A side missing.
		{"added", row("A", "sec/op", Side{}, stat(10, 100), 0), gate, Added, false},
		{"removed", row("A", "sec/op", stat(10, 100), Side{}, 0), gate, Removed, false},
		{"added allocs", row("A", "allocs/op", Side{}, exact(10, 5), 0), gate, Added, false},
		{"removed allocs", row("A", "allocs/op", exact(10, 5), Side{}, 0), gate, Removed, false},
		{"added with Holm", row("A", "sec/op", Side{}, stat(10, 100), 0), Gate{Alpha: 0.05, Threshold: 0.05, Holm: true}, Added, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Judge([]Row{tt.row}, tt.gate)
			require.Len(t, got, 1, "Judge returned %d rows, want 1", len(got))
			j := got[0]
			assert.Equal(t, tt.verdict, j.Verdict, "verdict %q fails %v, want %q fails %v (row %+v)", j.Verdict, j.Fails, tt.verdict, tt.fails, tt.row)
			assert.Equal(t, tt.fails, j.Fails, "verdict %q fails %v, want %q fails %v (row %+v)", j.Verdict, j.Fails, tt.verdict, tt.fails, tt.row)
			if !tt.gate.Holm {
				assert.True(t, sameFloat(j.PAdj, tt.row.P), "PAdj = %v without correction, want P = %v", j.PAdj, tt.row.P)
			}
			assert.Equal(t, tt.row.Name, j.Name, "the Judged row carries the Row's name")
			assert.Equal(t, tt.row.Unit, j.Unit, "the Judged row carries the Row's unit")
			assert.True(t, sameFloat(j.Delta, tt.row.Delta), "Judged row %+v does not carry the Row's delta %v", j.Row, tt.row.Delta)
		})
	}
}

func sameFloat(a, b float64) bool {
	return a == b || math.IsNaN(a) && math.IsNaN(b)
}

// TestJudgeOrder checks that Judge keeps the rows and their order and does
// not modify its input.
func TestJudgeOrder(t *testing.T) {
	rows := []Row{
		row("A", "sec/op", stat(10, 100), stat(10, 120), 0.001),
		row("B", "sec/op", Side{}, stat(10, 1), 0),
		row("A", "allocs/op", exact(10, 1), exact(10, 2), 1),
		row("C", "sec/op", stat(10, 1), Side{}, 0),
	}
	before := fmt.Sprintf("%+v", rows)
	got := Judge(rows, Gate{Alpha: 0.05, Threshold: 0.05, Holm: true})
	after := fmt.Sprintf("%+v", rows)
	assert.Equal(t, before, after, "Judge modified its input")
	want := []string{Worse, Added, Worse, Removed}
	require.Len(t, got, len(want), "judged rows")
	for i, j := range got {
		assert.Equal(t, rows[i].Name, j.Name, "row %d: name", i)
		assert.Equal(t, rows[i].Unit, j.Unit, "row %d: unit", i)
		assert.Equal(t, want[i], j.Verdict, "row %d: verdict", i)
	}
	assert.Empty(t, Judge(nil, Gate{Alpha: 0.05, Holm: true}), "Judge(nil)")
}

// TestJudgeHolm checks the Holm-Bonferroni adjustment against a hand
// computation. The five gated sec/op rows have, in row order,
//
//	P = 0.01, 0.03, 0.004, 0.7, 0.6   (m = 5)
//
// Sorted ascending, with k from 0, min(1, (m-k)·p_(k)) and its running max:
//
//	k=0 p=0.004  5·0.004 = 0.02  → 0.02
//	k=1 p=0.01   4·0.01  = 0.04  → 0.04
//	k=2 p=0.03   3·0.03  = 0.09  → 0.09
//	k=3 p=0.6    2·0.6   = 1.2   → 1 (capped)
//	k=4 p=0.7    1·0.7   = 0.7   → 1 (running max)
//
// The rows of ungated units (B/s here), and added or removed rows, are not
// part of the family: their PAdj stays P and they do not count in m.
func TestJudgeHolm(t *testing.T) {
	slower := func(name string, p float64) Row {
		return row(name, "sec/op", stat(10, 100), stat(10, 120), p)
	}
	rows := []Row{
		slower("P01", 0.01),
		slower("P03", 0.03),
		slower("P004", 0.004),
		slower("P7", 0.7),
		slower("P6", 0.6),
		row("Tput", "B/s", stat(10, 100e6), stat(10, 50e6), 0.001),
		row("New", "sec/op", Side{}, stat(10, 100), 0),
		row("Old", "sec/op", stat(10, 100), Side{}, 0),
	}
	tests := []struct {
		name             string
		pAdj             float64
		verdict, holm    string // without and with the correction
		fails, holmFails bool
	}{
		{"P01", 0.04, Worse, Worse, true, true},
		{"P03", 0.09, Worse, Unchanged, true, false}, // significant only without correction
		{"P004", 0.02, Worse, Worse, true, true},
		{"P7", 1, Unchanged, Unchanged, false, false},
		{"P6", 1, Unchanged, Unchanged, false, false},
		{"Tput", 0.001, Worse, Worse, false, false},
		{"New", math.NaN(), Added, Added, false, false},
		{"Old", math.NaN(), Removed, Removed, false, false},
	}
	plain := Judge(rows, Gate{Alpha: 0.05, Threshold: 0.05})
	holm := Judge(rows, Gate{Alpha: 0.05, Threshold: 0.05, Holm: true})
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, h := plain[i], holm[i]
			require.Equal(t, tt.name, p.Name, "row %d is %s/%s, want %s", i, p.Name, h.Name, tt.name)
			require.Equal(t, tt.name, h.Name, "row %d is %s/", i, p.Name)
			assert.True(t, sameFloat(p.PAdj, rows[i].P), "without correction PAdj = %v, want P = %v", p.PAdj, rows[i].P)
			if math.IsNaN(tt.pAdj) {
				assert.True(t, math.IsNaN(h.PAdj), "Holm PAdj = %v, want NaN", h.PAdj)
			} else {
				assert.InDelta(t, tt.pAdj, h.PAdj, 1e-12, "Holm PAdj")
			}
			if !math.IsNaN(rows[i].P) {
				assert.Equal(t, rows[i].P, h.P, "Holm changed P")
			}
			assert.Equal(t, tt.verdict, p.Verdict, "without correction: %q fails %v, want %q fails %v", p.Verdict, p.Fails, tt.verdict, tt.fails)
			assert.Equal(t, tt.fails, p.Fails, "without correction: %q fails %v, want %q fails %v", p.Verdict, p.Fails, tt.verdict, tt.fails)
			assert.Equal(t, tt.holm, h.Verdict, "with Holm: %q fails %v, want %q fails %v", h.Verdict, h.Fails, tt.holm, tt.holmFails)
			assert.Equal(t, tt.holmFails, h.Fails, "with Holm: %q fails %v, want %q fails %v", h.Verdict, h.Fails, tt.holm, tt.holmFails)
		})
	}
}

// TestJudgeHolmUnits checks that the units of Gate.Units join the family:
// with B/s gated, m grows to 2.
func TestJudgeHolmUnits(t *testing.T) {
	rows := []Row{
		row("A", "sec/op", stat(10, 100), stat(10, 120), 0.02),
		row("A", "B/s", stat(10, 100e6), stat(10, 50e6), 0.04),
		row("A", "widgets/op", stat(10, 1), stat(10, 2), 0.03), // not gated
	}
	tests := []struct {
		name  string
		units []string
		pAdj  []float64
		fails []bool
	}{
		// m=1: sec/op alone.
		{"sec/op only", nil, []float64{0.02, 0.04, 0.03}, []bool{true, false, false}},
		// m=2: sorted 0.02 → 2·0.02 = 0.04, 0.04 → max(0.04, 1·0.04) = 0.04.
		{"with B/s", []string{"B/s"}, []float64{0.04, 0.04, 0.03}, []bool{true, true, false}},
		// m=3: 0.02 → 0.06, 0.03 → max(0.06, 0.06), 0.04 → max(0.06, 0.04).
		{"all", []string{"B/s", "widgets/op"}, []float64{0.06, 0.06, 0.06}, []bool{false, false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Judge(rows, Gate{Alpha: 0.05, Threshold: 0.05, Units: tt.units, Holm: true})
			for i, j := range got {
				assert.InDelta(t, tt.pAdj[i], j.PAdj, 1e-12, "%s %s: PAdj", j.Name, j.Unit)
				assert.Equal(t, tt.fails[i], j.Fails, "%s %s: fails the gate (PAdj %v)", j.Name, j.Unit, j.PAdj)
			}
		})
	}
}

// TestJudgeHolmRandom compares the adjustment with a slow reference, the
// textbook definition: PAdj of the row of rank k is the max over j ≤ k of
// min(1, (m-j)·p_(j)).
func TestJudgeHolmRandom(t *testing.T) {
	ps := []float64{0.5, 0.001, 0.02, 0.02, 0.3, 0.0001, 0.049, 0.2, 0.011, 0.9, 0.02, 0.0}
	rows := make([]Row, len(ps))
	for i, p := range ps {
		rows[i] = row(fmt.Sprint(i), "sec/op", stat(5, 1), stat(5, 2), p)
	}
	got := Judge(rows, Gate{Alpha: 0.05, Threshold: 0.05, Holm: true})
	// rank[i] is the place of row i in ascending order of P, ties in row
	// order; byRank[k] is the P of rank k.
	m := len(ps)
	rank := make([]int, m)
	byRank := make([]float64, m)
	for i, p := range ps {
		for j, q := range ps {
			if q < p || q == p && j < i {
				rank[i]++
			}
		}
		byRank[rank[i]] = p
	}
	for i, p := range ps {
		want := 0.0
		for j := 0; j <= rank[i]; j++ {
			want = max(want, min(1, float64(m-j)*byRank[j]))
		}
		assert.LessOrEqual(t, math.Abs(got[i].PAdj-want), 1e-12, "row %d (P=%v): PAdj %v, want %v", i, p, got[i].PAdj, want)
		assert.GreaterOrEqual(t, got[i].PAdj, p, "row %d: PAdj %v below P %v", i, got[i].PAdj, p)
	}
}

func TestSampleWarning(t *testing.T) {
	tests := []struct {
		n1, n2 int
		alpha  float64
		minP   string // "" for no warning
	}{
		{3, 3, 0.05, "0.100"}, // 2/C(6,3) = 2/20
		{6, 6, 0.05, ""},      // 2/C(12,6) = 2/924
		{4, 4, 0.05, ""},      // 2/C(8,4) = 2/70 ≈ 0.029
		{4, 4, 0.01, "0.029"},
		{5, 5, 0.01, ""}, // 2/252 ≈ 0.0079
		{2, 5, 0.05, "0.095"},
		{5, 2, 0.05, "0.095"},
		{1, 39, 0.05, "0.050"}, // 2/40: exactly alpha, p < alpha impossible
		{1, 40, 0.05, ""},      // 2/41
		{1, 1, 0.05, "1.000"},
		{10, 10, 0.05, ""},
		{0, 0, 0.05, ""},
		{0, 10, 0.05, ""},
		{10, 0, 0.05, ""},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d+%d@%v", tt.n1, tt.n2, tt.alpha), func(t *testing.T) {
			w := SampleWarning(tt.n1, tt.n2, tt.alpha)
			if tt.minP == "" {
				assert.Empty(t, w, "warning")
				return
			}
			assert.Contains(t, w, "smallest possible p is "+tt.minP, "warning %q, want one with %d and %d samples and smallest p %s", w, tt.n1, tt.n2, tt.minP)
			assert.Contains(t, w, fmt.Sprintf("with %d and %d samples", tt.n1, tt.n2), "warning %q, want one with %d and %d samples and smallest p %s", w, tt.n1, tt.n2, tt.minP)
		})
	}
}

// TestSampleWarningMatchesCompare checks SampleWarning's smallest p-value
// against the p-value Compare finds for two samples that do not overlap.
func TestSampleWarningMatchesCompare(t *testing.T) {
	tests := []struct {
		n    int
		minP float64
	}{
		{3, 2.0 / 20},
		{4, 2.0 / 70},
		{6, 2.0 / 924},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.n), func(t *testing.T) {
			var o, n strings.Builder
			for i := range tt.n {
				fmt.Fprintf(&o, "BenchmarkA 1 %d ns/op\n", 100+i)
				fmt.Fprintf(&n, "BenchmarkA 1 %d ns/op\n", 200+i)
			}
			rows, err := Compare(strings.NewReader(o.String()), strings.NewReader(n.String()), DefaultConfidence)
			require.NoError(t, err)
			require.Len(t, rows, 1, "rows %+v, want one with P = %v", rows, tt.minP)
			require.LessOrEqual(t, math.Abs(rows[0].P-tt.minP), 1e-9, "rows %+v, want one with P = %v", rows, tt.minP)
			warns := SampleWarning(tt.n, tt.n, DefaultAlpha) != ""
			assert.Equal(t, tt.minP >= DefaultAlpha, warns, "SampleWarning(%d, %d) warns %v, smallest p %v", tt.n, tt.n, warns, tt.minP)
		})
	}
}

// TestJudgeAllocsOneSample checks the exact rule end to end: one run per
// side, where the U-test can say nothing, still fails on one more
// allocation.
func TestJudgeAllocsOneSample(t *testing.T) {
	old := "BenchmarkA-2 1000 100 ns/op 64 B/op 1 allocs/op\n"
	new := "BenchmarkA-2 1000 100 ns/op 64 B/op 2 allocs/op\n"
	rows, err := Compare(strings.NewReader(old), strings.NewReader(new), DefaultConfidence)
	require.NoError(t, err)
	want := map[string]struct {
		verdict string
		fails   bool
	}{
		"sec/op":    {Unchanged, false},
		"B/op":      {Unchanged, false},
		"allocs/op": {Worse, true},
	}
	got := Judge(rows, Gate{Alpha: 0.05, Threshold: 0.05})
	require.Equal(t, len(want), len(got), "got %d rows, want %d: %+v", len(got), len(want), got)
	for _, j := range got {
		w := want[j.Unit]
		assert.Equal(t, w.verdict, j.Verdict, "%s: %q fails %v, want %q fails %v (P %v)", j.Unit, j.Verdict, j.Fails, w.verdict, w.fails, j.P)
		assert.Equal(t, w.fails, j.Fails, "%s: %q fails %v, want %q fails %v (P %v)", j.Unit, j.Verdict, j.Fails, w.verdict, w.fails, j.P)
	}
}

// TestJudgeAllocsFewIters: CI's TestOutputFileKeptOnFailure failed on
// "Sum/n=10-2 B/op +NaN%": a -benchtime 1x run of an allocation-free
// benchmark reported the one allocation some goroutine made in its timed
// region as B/op, and the exact rule failed the 0 -> 16 change. Runs of
// fewer than ExactMinIters iterations are judged by significance; runs of
// more keep the exact rule, and the failure names the change, not NaN.
func TestJudgeAllocsFewIters(t *testing.T) {
	judge := func(iters int) Judged {
		t.Helper()
		old := fmt.Sprintf("BenchmarkA-2 %d 100 ns/op 0 B/op 0 allocs/op\n", iters)
		new := fmt.Sprintf("BenchmarkA-2 %d 100 ns/op 16 B/op 0 allocs/op\n", iters)
		rows, err := Compare(strings.NewReader(old), strings.NewReader(new), DefaultConfidence)
		require.NoError(t, err)
		for _, j := range Judge(rows, Gate{Alpha: 0.05, Threshold: 0.05}) {
			if j.Unit == "B/op" {
				assert.Equal(t, iters, j.Old.MinIters)
				assert.Equal(t, iters, j.New.MinIters)
				return j
			}
		}
		require.FailNow(t, "no B/op row")
		return Judged{}
	}
	for _, iters := range []int{1, 2, ExactMinIters - 1} {
		j := judge(iters)
		assert.False(t, j.Fails, "%d iterations: 0 -> 16 B/op, one run a side, is not evidence", iters)
		assert.Equal(t, Unchanged, j.Verdict, "%d iterations", iters)
	}
	for _, iters := range []int{ExactMinIters, 1000} {
		j := judge(iters)
		assert.True(t, j.Fails, "%d iterations: 0 -> 16 B/op is a new allocation", iters)
		assert.Equal(t, Worse, j.Verdict, "%d iterations", iters)
	}
	// The smallest iteration count of a side decides.
	rows, err := Compare(strings.NewReader("BenchmarkA-2 1000 1 ns/op 0 B/op\nBenchmarkA-2 1 1 ns/op 0 B/op\n"),
		strings.NewReader("BenchmarkA-2 1000 1 ns/op 16 B/op\nBenchmarkA-2 1000 1 ns/op 16 B/op\n"), DefaultConfidence)
	require.NoError(t, err)
	for _, j := range Judge(rows, Gate{Alpha: 0.05, Threshold: 0.05}) {
		if j.Unit == "B/op" {
			assert.Equal(t, 1, j.Old.MinIters)
			assert.False(t, j.Fails, "an old run of 1 iteration")
		}
	}
}

func TestCoverage(t *testing.T) {
	side := func(n int) Side { return Side{N: n, Center: 1, Values: make([]float64, n)} }
	rows := []Row{
		{Name: "A", Unit: "sec/op", Old: side(5), New: side(5)},
		{Name: "A", Unit: "B/op", Old: side(5), New: side(5)},
		{Name: "B", Unit: "sec/op", Old: side(5)},
		{Name: "B", Unit: "B/op", Old: side(5)},
		{Name: "C", Unit: "sec/op", New: side(5)},
		{Pkg: "p", Name: "C", Unit: "sec/op", New: side(5)},
	}
	compared, one := Coverage(Judge(rows, Gate{Alpha: DefaultAlpha}))
	assert.Equal(t, 2, compared, "compared")
	var got []string
	for _, o := range one {
		got = append(got, o.Pkg+"."+o.Name+":"+o.Verdict)
	}
	assert.Equal(t, []string{".B:removed", ".C:added", "p.C:added"}, got, "one-sided")
	compared, one = Coverage(Judge(rows[2:], Gate{Alpha: DefaultAlpha}))
	assert.Zero(t, compared, "without A: compared")
	assert.Len(t, one, 3, "without A: one-sided")
}

// TestJudgeAllocsFromZero: B/op that was 0 in every old run and is 64 or
// 65 in the new ones (the runtime allocated a little during one run) is
// not constant, yet a new allocation on an allocation-free path: it fails
// when significant. Runtime noise alone (a stray byte in one new run) is
// not significant and does not fail.
func TestJudgeAllocsFromZero(t *testing.T) {
	judge := func(newBOp []int) Judged {
		t.Helper()
		var old, new strings.Builder
		for i, b := range newBOp {
			fmt.Fprintf(&old, "BenchmarkA-2 1000 %d ns/op 0 B/op 0 allocs/op\n", 100+i)
			fmt.Fprintf(&new, "BenchmarkA-2 1000 %d ns/op %d B/op 0 allocs/op\n", 100+i, b)
		}
		rows, err := Compare(strings.NewReader(old.String()), strings.NewReader(new.String()), DefaultConfidence)
		require.NoError(t, err)
		for _, j := range Judge(rows, Gate{Alpha: 0.01, Threshold: 0.25}) {
			if j.Unit == "B/op" {
				return j
			}
		}
		require.FailNow(t, "no B/op row")
		return Judged{}
	}
	j := judge([]int{64, 64, 65, 64, 64, 64})
	assert.Equal(t, Worse, j.Verdict, "0 -> 64/65 B/op (p %v)", j.PAdj)
	assert.True(t, j.Fails, "0 -> 64/65 B/op: %q (p %v), want failing", j.Verdict, j.PAdj)
	j = judge([]int{0, 0, 1, 0, 0, 0})
	assert.False(t, j.Fails, "0 -> one stray byte: %q fails (p %v), want no failure", j.Verdict, j.PAdj)
}

// TestSampleWarningHugeCount: SampleWarning looped once per sample, and
// with -count 100000000000 spun for minutes; the binomial coefficient
// passes any alpha after a few dozen steps. (math.MaxInt is 2^31-1 on
// 32-bit systems, 2^63-1 on 64-bit ones: huge either way.)
func TestSampleWarningHugeCount(t *testing.T) {
	done := make(chan string, 1)
	go func() { done <- SampleWarning(math.MaxInt, math.MaxInt, 1e-300) }()
	select {
	case w := <-done:
		assert.Empty(t, w)
	case <-time.After(10 * time.Second):
		require.FailNow(t, "SampleWarning(MaxInt, MaxInt) has not returned after 10s")
	}
}

// TestGateWarning: under Holm over m gated rows the smallest adjusted
// p-value is m times the smallest raw one, so a count that passes
// SampleWarning can still leave every row unable to reach alpha. Each row
// here is a 3x change measured as clearly as n samples allow (P is the
// smallest possible), so Judge fails a row exactly when no warning is
// given.
func TestGateWarning(t *testing.T) {
	best := func(name, unit string, n int) Row {
		return row(name, unit, stat(n, 100), stat(n, 300), 2/binomial(2*n, n))
	}
	secs := func(n, m int) []Row {
		var rows []Row
		for i := range m {
			rows = append(rows, best(fmt.Sprint("A", i), "sec/op", n))
		}
		return rows
	}
	holm := Gate{Alpha: 0.05, Threshold: 0.05, Holm: true}
	tests := []struct {
		name string
		rows []Row
		gate Gate
		want []string // in the warning; none for no warning
	}{
		{"holm, 8 rows of 5", secs(5, 8), holm, []string{"-correct holm over 8 gated rows", "0.063", "-count 6"}}, // 8 × 2/252; 8 × 2/924 ≈ 0.017
		{"holm, 7 rows of 5", secs(5, 7), holm, []string{"over 7 gated rows", "0.056", "-count 6"}},
		{"holm, 6 rows of 5", secs(5, 6), holm, nil}, // 6 × 2/252 ≈ 0.048
		{"holm, 8 rows of 7", secs(7, 8), holm, nil},
		{"no holm, 8 rows of 5", secs(5, 8), Gate{Alpha: 0.05}, nil},
		{"no holm, 3 samples", secs(3, 1), Gate{Alpha: 0.05}, []string{"with 3 and 3 samples", "0.100", "-count 4"}},
		{"holm, 1000 rows of 8", secs(8, 1000), holm, []string{"over 1000 gated rows", "-count 9"}}, // 2000/C(16,8) ≈ 0.16, 2000/C(18,9) ≈ 0.041
		// Rows that are not gated do not count; one-sided rows neither.
		{"holm, B/op and B/s not gated", append(secs(5, 6), best("B", "B/op", 5), best("C", "B/s", 5)), holm, nil},
		{"holm, B/s gated", append(secs(5, 6), best("B", "B/op", 5), best("C", "B/s", 5)), Gate{Alpha: 0.05, Holm: true, Units: []string{"B/s"}}, []string{"over 7 gated rows"}},
		{"holm, one-sided rows", append(secs(5, 6), row("B", "sec/op", Side{}, stat(5, 2), 0), row("C", "sec/op", stat(5, 1), Side{}, 0)), holm, nil},
		// The best row decides: one with enough samples can still fail.
		{"holm, one row of 10", append(secs(5, 7), best("B", "sec/op", 10)), holm, nil},
		{"no rows", nil, holm, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := GateWarning(tt.rows, tt.gate)
			failed := false
			for _, j := range Judge(tt.rows, tt.gate) {
				failed = failed || j.Fails
			}
			if tt.want == nil {
				assert.Empty(t, w)
				assert.Equal(t, len(tt.rows) > 0, failed, "no warning, so a row fails")
				return
			}
			for _, want := range tt.want {
				assert.Contains(t, w, want)
			}
			assert.False(t, failed, "warned that no row can fail, yet one did")
		})
	}
}

func binomial(n, k int) float64 {
	c := 1.0
	for i := 1; i <= k; i++ {
		c = c * float64(n-k+i) / float64(i)
	}
	return c
}
