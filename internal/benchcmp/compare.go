// Package benchcmp compares two sets of Go benchmark results with the
// statistics benchstat uses (golang.org/x/perf/benchmath): per benchmark and
// unit, the median of each side with its confidence interval, the
// Mann-Whitney U test's p-value, and the change of the median.
package benchcmp

import (
	"fmt"
	"io"
	"math"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

// Defaults, as benchstat's.
const (
	DefaultAlpha      = 0.05
	DefaultConfidence = 0.95
)

// A Side is one revision's measurements of one benchmark in one unit.
type Side struct {
	N      int
	Center float64 // median
	Lo, Hi float64 // confidence interval of the median
	Values []float64
	// MinIters is the fewest iterations (b.N) of the side's runs; 0 when
	// unknown. A per-op allocation count of a run of few iterations holds
	// the runtime's and other goroutines' allocations in the timed region
	// undivided: one 16-byte allocation is 16 B/op in a -benchtime 1x run.
	MinIters int
}

// A Row compares one benchmark in one unit. A benchmark present on one side
// only has N == 0 on the other.
type Row struct {
	Pkg      string // the pkg configuration of the results ("" when absent)
	Name     string // full benchmark name without "Benchmark", with -GOMAXPROCS
	Unit     string // tidied unit: sec/op, B/op, allocs/op, B/s, or a custom unit
	Old, New Side
	Delta    float64 // (New.Center - Old.Center) / Old.Center; NaN when undefined
	P        float64 // p-value; NaN with a side missing
	Warnings []string
}

// Significant reports whether the difference is significant at alpha.
func (r Row) Significant(alpha float64) bool { return r.P < alpha }

// HigherIsBetter reports whether a larger value of the row's unit is an
// improvement (throughputs such as B/s).
func (r Row) HigherIsBetter() bool { return strings.HasSuffix(r.Unit, "/s") }

// Constant reports whether both sides measured one value each, every time
// (as allocs/op and B/op usually do).
func (r Row) Constant() bool { return constant(r.Old.Values) && constant(r.New.Values) }

func constant(v []float64) bool {
	for _, x := range v {
		if x != v[0] {
			return false
		}
	}
	return len(v) > 0
}

type key struct{ pkg, name, unit string }

// samples reads benchmark results and groups their values by package,
// benchmark name and unit, in the order they first appear. Packages are
// kept apart because netbench writes the runs of every package into one
// stream and two packages may have benchmarks of the same name.
func samples(r io.Reader, file string, order *[]key) (map[key][]float64, map[key]int, error) {
	m, iters := map[key][]float64{}, map[key]int{}
	br := benchfmt.NewReader(r, file)
	for br.Scan() {
		switch rec := br.Result().(type) {
		case *benchfmt.Result:
			name, pkg := rec.Name.String(), rec.GetConfig("pkg")
			for _, v := range rec.Values {
				k := key{pkg, name, v.Unit}
				if _, ok := m[k]; !ok {
					*order = appendNew(*order, k)
				}
				m[k] = append(m[k], v.Value)
				if n, ok := iters[k]; !ok || rec.Iters < n {
					iters[k] = rec.Iters
				}
			}
		case *benchfmt.SyntaxError:
			return nil, nil, rec
		}
	}
	return m, iters, br.Err()
}

func appendNew(order []key, k key) []key {
	for _, o := range order {
		if o == k {
			return order
		}
	}
	return append(order, k)
}

// Compare reads the results of the old and the new revision and compares
// every benchmark and unit that appears on either side, old's order first.
func Compare(old, new io.Reader, confidence float64) ([]Row, error) {
	var order []key
	om, oi, err := samples(old, "old", &order)
	if err != nil {
		return nil, fmt.Errorf("benchcmp: old results: %w", err)
	}
	nm, ni, err := samples(new, "new", &order)
	if err != nil {
		return nil, fmt.Errorf("benchcmp: new results: %w", err)
	}
	rows := make([]Row, 0, len(order))
	for _, k := range order {
		rows = append(rows, compareKey(k, om[k], nm[k], oi[k], ni[k], confidence))
	}
	return rows, nil
}

// compareKey compares the old values ov (of at least oIters iterations
// each) with the new values nv of one package, benchmark and unit. Either
// side may be empty.
func compareKey(k key, ov, nv []float64, oIters, nIters int, confidence float64) Row {
	thresholds := benchmath.DefaultThresholds
	row := Row{Pkg: k.pkg, Name: k.name, Unit: k.unit, Delta: math.NaN(), P: math.NaN()}
	var os, ns *benchmath.Sample
	if len(ov) > 0 {
		os = benchmath.NewSample(ov, &thresholds)
		row.Old = summarize(os, confidence, &row)
		row.Old.MinIters = oIters
	}
	if len(nv) > 0 {
		ns = benchmath.NewSample(nv, &thresholds)
		row.New = summarize(ns, confidence, &row)
		row.New.MinIters = nIters
	}
	if os != nil && ns != nil {
		c := benchmath.AssumeNothing.Compare(os, ns)
		row.P = c.P
		for _, w := range c.Warnings {
			row.Warnings = append(row.Warnings, w.Error())
		}
		if row.Old.Center != 0 {
			row.Delta = (row.New.Center - row.Old.Center) / row.Old.Center
		} else if row.New.Center == 0 {
			row.Delta = 0
		}
	}
	return row
}

func summarize(s *benchmath.Sample, confidence float64, row *Row) Side {
	sum := benchmath.AssumeNothing.Summary(s, confidence)
	for _, w := range sum.Warnings {
		row.Warnings = append(row.Warnings, w.Error())
	}
	return Side{N: len(s.Values), Center: sum.Center, Lo: sum.Lo, Hi: sum.Hi, Values: s.Values}
}

// PctRange formats the side's confidence interval as benchstat does: the
// larger distance from the median to a bound, as a percentage of the
// median ("4%"), or "∞" when the median is zero.
func (s Side) PctRange() string {
	return benchmath.Summary{Center: s.Center, Lo: s.Lo, Hi: s.Hi}.PctRangeString()
}
