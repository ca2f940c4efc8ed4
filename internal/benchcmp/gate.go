package benchcmp

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// Verdicts of a row.
const (
	Better    = "better"
	Worse     = "worse"
	Unchanged = "~"
	Added     = "added"
	Removed   = "removed"
)

// A Gate decides which changes fail a comparison.
type Gate struct {
	Alpha     float64  // significance level (benchstat's default 0.05)
	Threshold float64  // smallest gated slowdown, as a fraction (0.05 for 5%)
	Units     []string // gated units besides sec/op
	Holm      bool     // Holm-Bonferroni correction over the gated rows
}

// A Judged row is a Row with its verdict.
type Judged struct {
	Row
	PAdj    float64 // p-value after the correction (P without one)
	Verdict string
	Fails   bool // a gated regression

	// Noise is the row's noise diagnosis, filled in by Diagnose.
	Noise RowNoise
}

// exactUnits regress on any increase when both sides are constant.
var exactUnits = []string{"allocs/op", "B/op"}

// resolution is, per unit, the smallest relative difference a verdict
// calls: instruction counts of the same code differ from run to run by up
// to SpreadFloor (runtime work that follows the clock, a collection more
// or less), and with their near-zero spread a smaller difference can come
// out significant in one comparison and not in the next. Such a row is ~.
var resolution = map[string]float64{"instructions/op": SpreadFloor}

// ExactMinIters is the fewest iterations a run needs for its allocs/op and
// B/op to be exact. In a run of fewer, an allocation of the runtime or of
// another goroutine inside the timed region is not divided away (a
// -benchtime 1x run reports it whole), so such rows are judged as sec/op
// is, by significance, never by the exact rule.
const ExactMinIters = 100

// Judge gives every row its verdict. Rows of gated units (sec/op and
// g.Units) fail when significantly worse by more than g.Threshold; allocs/op
// and B/op fail on any increase when both sides are constant, however few
// the samples, and on a significant increase from zero on every old run: a
// new allocation on an allocation-free path, which the runtime's own
// occasional allocations (one more byte per op in one run) must not hide.
// The exact rule holds only for runs of ExactMinIters iterations or more
// (or of unknown count) on both sides. An instructions/op difference
// under SpreadFloor (0.5%) is ~ whatever its p-value.
func Judge(rows []Row, g Gate) []Judged {
	out := make([]Judged, len(rows))
	var gated []int
	for i, r := range rows {
		out[i] = Judged{Row: r, PAdj: r.P}
		if g.gates(r) {
			gated = append(gated, i)
		}
	}
	if g.Holm {
		holm(out, gated)
	}
	for i := range out {
		j := &out[i]
		switch {
		case j.Old.N == 0:
			j.Verdict = Added
			continue
		case j.New.N == 0:
			j.Verdict = Removed
			continue
		}
		worse := j.New.Center > j.Old.Center
		if j.HigherIsBetter() {
			worse = j.New.Center < j.Old.Center
		}
		if slices.Contains(exactUnits, j.Unit) && j.Constant() && exactIters(j.Old) && exactIters(j.New) {
			if j.New.Center == j.Old.Center {
				j.Verdict = Unchanged
			} else if worse {
				j.Verdict, j.Fails = Worse, true
			} else {
				j.Verdict = Better
			}
			continue
		}
		if !(j.PAdj < g.Alpha) || math.Abs(j.Delta) < resolution[j.Unit] {
			j.Verdict = Unchanged
			continue
		}
		if !worse {
			j.Verdict = Better
			continue
		}
		j.Verdict = Worse
		fromZero := slices.Contains(exactUnits, j.Unit) && constant(j.Old.Values) && j.Old.Center == 0
		j.Fails = fromZero || slices.Contains(gated, i) && math.Abs(j.Delta) > g.Threshold
	}
	return out
}

// exactIters reports whether s's runs had enough iterations for an exact
// per-op allocation count.
func exactIters(s Side) bool { return s.MinIters == 0 || s.MinIters >= ExactMinIters }

// gates reports whether r is a gated row: measured in both revisions, in
// sec/op or one of g.Units.
func (g Gate) gates(r Row) bool {
	return r.Old.N > 0 && r.New.N > 0 && (r.Unit == "sec/op" || slices.Contains(g.Units, r.Unit))
}

// holm replaces the p-values of the rows at idx by Holm-adjusted ones.
func holm(rows []Judged, idx []int) {
	sorted := slices.Clone(idx)
	sort.SliceStable(sorted, func(a, b int) bool { return rows[sorted[a]].P < rows[sorted[b]].P })
	m, prev := len(sorted), 0.0
	for k, i := range sorted {
		adj := min(1, float64(m-k)*rows[i].P)
		prev = max(prev, adj)
		rows[i].PAdj = prev
	}
}

// SampleWarning returns a warning when n1 and n2 samples can never give a
// p-value below alpha (the smallest two-sided Mann-Whitney p-value is
// 2/C(n1+n2, n1)), or "". It takes at most a few hundred steps, whatever
// n1 and n2.
func SampleWarning(n1, n2 int, alpha float64) string {
	if minP := minPValue(n1, n2, alpha); minP >= alpha {
		return fmt.Sprintf("with %d and %d samples no difference can reach p < %g (the smallest possible p is %.3f); use a larger -count", n1, n2, alpha, minP)
	}
	return ""
}

// minPValue returns the smallest two-sided Mann-Whitney p-value of n1 and
// n2 samples, 2/C(n1+n2, n1), or a value below floor once it is known to
// be below floor: C(n1+n2, i) grows with i, so the product stops after a
// few hundred steps for any floor a float64 holds, not after n1. It
// returns 0 when a side is empty.
func minPValue(n1, n2 int, floor float64) float64 {
	if n1 <= 0 || n2 <= 0 {
		return 0
	}
	n1, n2 = min(n1, n2), max(n1, n2) // C(n1+n2, n1) = C(n1+n2, n2)
	c := 1.0
	for i := 1; i <= n1; i++ {
		c = c * float64(n2+i) / float64(i)
		if 2/c < floor {
			break
		}
	}
	return 2 / c
}

// GateWarning returns a warning when no gated row of rows (sec/op and
// g.Units, measured in both revisions) can reach significance at g.Alpha
// whatever it measured, or "": the smallest Mann-Whitney p-value of each
// row's sample counts (see SampleWarning) is not below g.Alpha, or, under
// g.Holm over m gated rows, not below g.Alpha/m, since Holm multiplies the
// smallest p-value by m. Such a comparison cannot fail on a slowdown,
// however large; only allocs/op and B/op can fail it. The warning names
// the smallest -count (samples per side) at which a row could reach
// significance.
func GateWarning(rows []Row, g Gate) string {
	m := 0
	best, n1, n2 := math.Inf(1), 0, 0
	for _, r := range rows {
		if g.gates(r) {
			m++
		}
	}
	if m == 0 {
		return ""
	}
	if !g.Holm {
		m = 1
	}
	floor := g.Alpha / float64(m)
	for _, r := range rows {
		if !g.gates(r) {
			continue
		}
		if p := minPValue(r.Old.N, r.New.N, floor); p < best {
			best, n1, n2 = p, r.Old.N, r.New.N
		}
	}
	if best < floor {
		return ""
	}
	need := 2
	for need < 1<<20 && minPValue(need, need, floor) >= floor {
		need++
	}
	if !g.Holm {
		return fmt.Sprintf("with %d and %d samples no difference can reach p < %g (the smallest possible p is %.3f); use -count %d or more", n1, n2, g.Alpha, best, need)
	}
	return fmt.Sprintf("with -correct holm over %d gated rows no difference can reach p < %g: the smallest possible p of %d and %d samples is %.4f, and %d times that is %.3f; use -count %d or more", m, g.Alpha, n1, n2, best, m, float64(m)*best, need)
}

// Coverage counts the rows measured in both revisions, and returns one row
// (its first) for each benchmark measured in one revision only, whose
// verdict (Added or Removed) says which. A comparison with compared == 0
// tested nothing, and must not pass.
func Coverage(rows []Judged) (compared int, oneSided []Judged) {
	type bench struct{ pkg, name string }
	seen := map[bench]bool{}
	for _, r := range rows {
		switch r.Verdict {
		case Added, Removed:
			if b := (bench{r.Pkg, r.Name}); !seen[b] {
				seen[b] = true
				oneSided = append(oneSided, r)
			}
		default:
			compared++
		}
	}
	return compared, oneSided
}
