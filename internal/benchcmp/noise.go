package benchcmp

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Limits of the noise diagnosis.
const (
	// TukeyK is the width of Tukey's fences in interquartile ranges: a
	// sample outside [Q1 - TukeyK·IQR, Q3 + TukeyK·IQR] is an outlier.
	TukeyK = 1.5
	// MinTukeySamples is the fewest samples of a side whose outliers are
	// counted; with fewer the quartiles say nothing.
	MinTukeySamples = 4
	// MaxSpreadRatio is the largest ratio of the two sides' spreads (see
	// Spread) that is not marked: beyond it one revision ran in much
	// noisier conditions than the other, or is itself erratic, and the
	// comparison's p-value rests mostly on that side.
	MaxSpreadRatio = 4
	// SpreadFloor is the spread the smaller side is raised to before the
	// ratio is taken, so that a side that measured the same value every
	// time (an IQR of 0) does not make any spread of the other side
	// "infinitely" larger: a ratio beyond MaxSpreadRatio then needs a
	// larger spread of at least MaxSpreadRatio·SpreadFloor (2%).
	SpreadFloor = 0.005
)

// Quartiles returns the first quartile, the median and the third quartile
// of values, interpolated linearly between the order statistics (the
// default of R's quantile and of numpy: the quantile p lies at rank
// (n-1)·p). values need not be sorted and are not changed. It returns NaNs
// for no values.
func Quartiles(values []float64) (q1, median, q3 float64) {
	if len(values) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	s := slices.Clone(values)
	slices.Sort(s)
	at := func(p float64) float64 {
		h := float64(len(s)-1) * p
		i := int(math.Floor(h))
		if i+1 >= len(s) {
			return s[len(s)-1]
		}
		return s[i] + (h-float64(i))*(s[i+1]-s[i])
	}
	return at(0.25), at(0.5), at(0.75)
}

// TukeyOutliers returns the number of values outside Tukey's fences,
// [Q1 - TukeyK·IQR, Q3 + TukeyK·IQR], and the fences. The IQR is raised
// to SpreadFloor·|median| first: a metric that is almost constant
// (instructions/op varies by a few hundredths of a percent) has an IQR
// so small that any sample would fall outside, and a sample within a
// fraction of a percent of the others is no outlier in any unit. With
// fewer than MinTukeySamples values it counts none and the fences are
// infinite.
func TukeyOutliers(values []float64) (n int, lo, hi float64) {
	if len(values) < MinTukeySamples {
		return 0, math.Inf(-1), math.Inf(1)
	}
	q1, m, q3 := Quartiles(values)
	iqr := max(q3-q1, SpreadFloor*math.Abs(m))
	lo, hi = q1-TukeyK*iqr, q3+TukeyK*iqr
	for _, v := range values {
		if v < lo || v > hi {
			n++
		}
	}
	return n, lo, hi
}

// Spread is the relative spread of values: the interquartile range over
// the absolute median. It is NaN with fewer than MinTukeySamples values or
// a median of 0.
func Spread(values []float64) float64 {
	if len(values) < MinTukeySamples {
		return math.NaN()
	}
	q1, m, q3 := Quartiles(values)
	if m == 0 {
		return math.NaN()
	}
	return (q3 - q1) / math.Abs(m)
}

// SpreadRatio returns the larger of two spreads over the smaller, the
// smaller raised to SpreadFloor first. It is NaN when either is NaN.
func SpreadRatio(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	lo, hi := min(a, b), max(a, b)
	return hi / max(lo, SpreadFloor)
}

// RowNoise is the noise diagnosis of one row, which Diagnose fills in.
type RowNoise struct {
	// Diagnosed is set by Diagnose; the formats show nothing of a row
	// without it.
	Diagnosed bool
	// OldOutliers and NewOutliers count each side's samples outside
	// Tukey's fences (see TukeyOutliers).
	OldOutliers, NewOutliers int
	// OldSpread and NewSpread are each side's Spread; SpreadRatio their
	// ratio (see SpreadRatio). NaN when undefined.
	OldSpread, NewSpread, SpreadRatio float64
	// Run is the diagnosis of the whole comparison, shared by its rows.
	Run *Diagnosis
}

// Outliers reports whether either side has outliers.
func (n RowNoise) Outliers() bool { return n.OldOutliers+n.NewOutliers > 0 }

// Uneven reports whether one side's spread is more than MaxSpreadRatio
// times the other's.
func (n RowNoise) Uneven() bool { return n.SpreadRatio > MaxSpreadRatio }

// A Diagnosis is what a comparison found about the noise of the whole run.
type Diagnosis struct {
	// Busy holds a warning per way the machine was found busy (before,
	// during or after the runs); none on a quiet machine.
	Busy []string
	// AA is set when both sides ran the same code (an A/A comparison).
	AA *AA
}

// AA counts, in a comparison of a revision with itself, the rows judged
// significant and the gated rows that fail the gate: with nothing changed,
// every one is a false positive.
type AA struct {
	Alpha       float64 // the gate's significance level
	Compared    int     // rows measured on both sides
	Significant int     // of those, rows judged better or worse
	Gated       int     // compared rows that can fail the gate: gated units, allocs/op and B/op
	Failed      int     // rows failing the gate
}

// Rate is the share of compared rows judged significant (NaN for none).
func (a AA) Rate() float64 { return ratio(a.Significant, a.Compared) }

// GateRate is the share of gated rows failing the gate (NaN for none).
func (a AA) GateRate() float64 { return ratio(a.Failed, a.Gated) }

func ratio(k, n int) float64 {
	if n == 0 {
		return math.NaN()
	}
	return float64(k) / float64(n)
}

func pct(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}

// String states the false-positive rates in one sentence.
func (a AA) String() string {
	return fmt.Sprintf("A/A comparison (both sides are the same code): false-positive rate %s (%d of %d compared rows judged significant at alpha %g), %s of gated rows fail the gate (%d of %d)",
		pct(a.Rate()), a.Significant, a.Compared, a.Alpha, pct(a.GateRate()), a.Failed, a.Gated)
}

// CountAA counts rows as AA describes.
func CountAA(rows []Judged, g Gate) AA {
	a := AA{Alpha: g.Alpha}
	for _, r := range rows {
		if r.Old.N == 0 || r.New.N == 0 {
			continue
		}
		a.Compared++
		if r.Verdict == Better || r.Verdict == Worse {
			a.Significant++
		}
		if g.gates(r.Row) || slices.Contains(exactUnits, r.Unit) {
			a.Gated++
		}
		if r.Fails {
			a.Failed++
		}
	}
	return a
}

// Diagnose fills in every row's Noise: its sides' outliers and spreads,
// and d, the diagnosis of the whole run (nil for none). The formats then
// mark the rows and state d's warnings.
func Diagnose(rows []Judged, d *Diagnosis) {
	for i := range rows {
		r := &rows[i]
		n := RowNoise{Diagnosed: true, Run: d}
		n.OldOutliers, _, _ = TukeyOutliers(r.Old.Values)
		n.NewOutliers, _, _ = TukeyOutliers(r.New.Values)
		n.OldSpread, n.NewSpread = Spread(r.Old.Values), Spread(r.New.Values)
		n.SpreadRatio = SpreadRatio(n.OldSpread, n.NewSpread)
		r.Noise = n
	}
}

// loadFree reports whether unit is a count that other processes on the
// machine do not change (instructions, allocations and their bytes per
// operation): a busy machine is not marked on its rows.
func loadFree(unit string) bool {
	switch unit {
	case "instructions/op", "allocs/op", "B/op":
		return true
	}
	return false
}

// falsePositive reports whether r is a significant row of an A/A
// comparison.
func falsePositive(r Judged) bool {
	return r.Noise.Run != nil && r.Noise.Run.AA != nil && (r.Verdict == Better || r.Verdict == Worse)
}

// NoiseMarks returns the noise marks of a row, in this order: "busy" (the
// machine was busy during the comparison; not on the rows of counts the
// load does not change: instructions/op, allocs/op, B/op), "outliers O+N" (O of the old
// and N of the new samples outside Tukey's fences), "spread R×" (one
// side's spread R times the other's, beyond MaxSpreadRatio) and "false
// positive" (judged significant in an A/A comparison). None for a row
// that Diagnose did not see.
func NoiseMarks(r Judged) []string {
	n := r.Noise
	if !n.Diagnosed {
		return nil
	}
	var m []string
	if n.Run != nil && len(n.Run.Busy) > 0 && !loadFree(r.Unit) {
		m = append(m, "busy")
	}
	if n.Outliers() {
		m = append(m, fmt.Sprintf("outliers %d+%d", n.OldOutliers, n.NewOutliers))
	}
	if n.Uneven() {
		m = append(m, fmt.Sprintf("spread %.1f×", n.SpreadRatio))
	}
	if falsePositive(r) {
		m = append(m, "false positive")
	}
	return m
}

// NoiseNotes returns the sentences that head or close a report of rows
// about their noise: the machine's busy warnings, how many rows have
// outliers and uneven spreads, and the A/A rates. None when nothing was
// found or Diagnose did not see the rows.
func NoiseNotes(rows []Judged) []string {
	var notes []string
	var run *Diagnosis
	outliers, uneven := 0, 0
	for _, r := range rows {
		if r.Noise.Run != nil {
			run = r.Noise.Run
		}
		if r.Noise.Outliers() {
			outliers++
		}
		if r.Noise.Uneven() {
			uneven++
		}
	}
	if run != nil {
		notes = append(notes, run.Busy...)
	}
	if outliers > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d rows have outliers (samples outside Tukey's fences, Q1-%g·IQR to Q3+%g·IQR): marked \"outliers OLD+NEW\"", outliers, len(rows), TukeyK, TukeyK))
	}
	if uneven > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d rows have one side's spread (IQR/median) more than %g× the other's: marked \"spread\"", uneven, len(rows), float64(MaxSpreadRatio)))
	}
	if run != nil && run.AA != nil {
		notes = append(notes, run.AA.String())
	}
	return notes
}

// noiseSuffix is a row's marks as the text and Markdown tables end it: "
// [busy; outliers 1+0]", or "".
func noiseSuffix(r Judged) string {
	m := NoiseMarks(r)
	if len(m) == 0 {
		return ""
	}
	return " [" + strings.Join(m, "; ") + "]"
}

// jsonNoise is a row's noise in -format json. The JSON output is an array
// of rows, so the whole run's findings (busy, aa) are repeated in each.
type jsonNoise struct {
	Marks       []string `json:"marks"`
	OldOutliers int      `json:"outliers_old"`
	NewOutliers int      `json:"outliers_new"`
	OldSpread   *float64 `json:"spread_old"`
	NewSpread   *float64 `json:"spread_new"`
	SpreadRatio *float64 `json:"spread_ratio"`
	Busy        []string `json:"busy,omitempty"`
	AA          *jsonAA  `json:"aa,omitempty"`
}

type jsonAA struct {
	Rate        *float64 `json:"false_positive_rate"`
	GateRate    *float64 `json:"gate_false_positive_rate"`
	Compared    int      `json:"compared"`
	Significant int      `json:"significant"`
	Gated       int      `json:"gated"`
	Failed      int      `json:"failed"`
}

// noiseJSON returns r's noise for WriteJSON; nil when not diagnosed.
func noiseJSON(r Judged) *jsonNoise {
	n := r.Noise
	if !n.Diagnosed {
		return nil
	}
	j := &jsonNoise{Marks: NoiseMarks(r), OldOutliers: n.OldOutliers, NewOutliers: n.NewOutliers,
		OldSpread: finite(n.OldSpread), NewSpread: finite(n.NewSpread), SpreadRatio: finite(n.SpreadRatio)}
	if j.Marks == nil {
		j.Marks = []string{}
	}
	if n.Run != nil {
		j.Busy = n.Run.Busy
		if a := n.Run.AA; a != nil {
			j.AA = &jsonAA{finite(a.Rate()), finite(a.GateRate()), a.Compared, a.Significant, a.Gated, a.Failed}
		}
	}
	return j
}
