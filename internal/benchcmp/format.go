package benchcmp

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchunit"
)

// table is one package's rows of one unit.
type table struct{ pkg, unit string }

// tables returns the (package, unit) tables of rows in the order they first
// appear.
func tables(rows []Judged) []table {
	var ts []table
	seen := map[table]bool{}
	for _, r := range rows {
		if t := (table{r.Pkg, r.Unit}); !seen[t] {
			seen[t] = true
			ts = append(ts, t)
		}
	}
	return ts
}

// geomean returns the geometric mean of each column's medians over the
// table's rows that ran on that side, as benchstat's last row. Like
// benchstat it has none when a median is not positive.
func geomean(rows []Judged, t table) (old, new Side, ok bool) {
	var lo, ln float64
	for _, r := range rows {
		if r.Pkg != t.pkg || r.Unit != t.unit {
			continue
		}
		for _, c := range []struct {
			s   Side
			sum *float64
			n   *int
		}{{r.Old, &lo, &old.N}, {r.New, &ln, &new.N}} {
			if c.s.N == 0 {
				continue
			}
			if c.s.Center <= 0 {
				return Side{}, Side{}, false
			}
			*c.sum += math.Log(c.s.Center)
			*c.n++
		}
	}
	if old.N == 0 || new.N == 0 {
		return Side{}, Side{}, false
	}
	old.Center, new.Center = math.Exp(lo/float64(old.N)), math.Exp(ln/float64(new.N))
	return old, new, true
}

// geoDelta returns the change of the table's geomean as benchstat gives it:
// the geometric mean of the rows' new/old ratios over the rows that ran on
// both sides, rather than the ratio of the two geomeans, which compares
// different sets of benchmarks when a row ran on one side only. It is "?"
// when no row ran on both sides. geoDelta is called only where geomean
// found every median positive.
func geoDelta(rows []Judged, t table) string {
	var sum float64
	n := 0
	for _, r := range rows {
		if r.Pkg == t.pkg && r.Unit == t.unit && r.Old.N > 0 && r.New.N > 0 {
			sum += math.Log(r.New.Center / r.Old.Center)
			n++
		}
	}
	if n == 0 {
		return "?"
	}
	return fmt.Sprintf("%+.2f%%", 100*(math.Exp(sum/float64(n))-1))
}

func scaled(s Side, unit string) string {
	if s.N == 0 {
		return "-"
	}
	return benchunit.Scale(s.Center, benchunit.ClassOf(unit)) + " ± " + s.PctRange()
}

func deltaString(r Judged) string {
	switch {
	case r.Verdict == Added || r.Verdict == Removed:
		return r.Verdict
	case r.Verdict == Unchanged:
		return "~"
	case math.IsNaN(r.Delta):
		return "?"
	}
	return fmt.Sprintf("%+.2f%%", 100*r.Delta)
}

func pString(r Judged) string {
	if math.IsNaN(r.P) {
		return fmt.Sprintf("n=%d+%d", r.Old.N, r.New.N)
	}
	return fmt.Sprintf("p=%.3f n=%d+%d", r.PAdj, r.Old.N, r.New.N)
}

// tableWriter renders the tables of WriteText and WriteMarkdown.
type tableWriter struct {
	pkg     func(pkg string)
	header  func(unit string)
	row     func(r Judged, unit string)
	geomean func(old, new string, delta string)
	between func()
}

// walk calls tw's functions for every package, table, row and geomean of
// rows, in order.
func (tw tableWriter) walk(rows []Judged) {
	pkg := ""
	for i, t := range tables(rows) {
		if i > 0 {
			tw.between()
		}
		if t.pkg != pkg {
			tw.pkg(t.pkg)
			pkg = t.pkg
		}
		tw.header(t.unit)
		for _, r := range rows {
			if r.Pkg == t.pkg && r.Unit == t.unit {
				tw.row(r, t.unit)
			}
		}
		if o, n, ok := geomean(rows, t); ok {
			c := benchunit.ClassOf(t.unit)
			tw.geomean(benchunit.Scale(o.Center, c), benchunit.Scale(n.Center, c), geoDelta(rows, t))
		}
	}
}

// WriteText writes one table per package and unit in the layout of
// benchstat's: the median ± the confidence interval of each side, the
// change of the median (or ~ when not significant) and the p-value with the
// sample counts, then the geometric mean of the medians. Gated regressions
// are marked with "!". The numbers are benchstat's (benchmath computes
// them, and a test checks them against benchstat's own output); the
// spacing and the marks are netbench's.
func WriteText(w io.Writer, oldName, newName string, rows []Judged) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	tableWriter{
		pkg:    func(pkg string) { fmt.Fprintf(tw, "pkg: %s\n", pkg) },
		header: func(unit string) { fmt.Fprintf(tw, "%s\t%s\t%s\tvs base\n", unit, oldName, newName) },
		row: func(r Judged, unit string) {
			mark := ""
			if r.Fails {
				mark = " !"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t(%s)%s%s\n", r.Name, scaled(r.Old, unit), scaled(r.New, unit), deltaString(r), pString(r), mark, noiseSuffix(r))
		},
		geomean: func(o, n, d string) { fmt.Fprintf(tw, "geomean\t%s\t%s\t%s\n", o, n, d) },
		between: func() { fmt.Fprintln(tw) },
	}.walk(rows)
	if err := tw.Flush(); err != nil {
		return err
	}
	for i, n := range NoiseNotes(rows) {
		if i == 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, "noise:", n)
	}
	return nil
}

// WriteMarkdown writes the tables of WriteText as Markdown, for pull-request
// comments.
func WriteMarkdown(w io.Writer, oldName, newName string, rows []Judged) error {
	tableWriter{
		pkg: func(pkg string) { fmt.Fprintf(w, "`pkg: %s`\n\n", pkg) },
		header: func(unit string) {
			fmt.Fprintf(w, "| %s | %s | %s | vs base | p |\n|---|---:|---:|---:|---|\n", unit, oldName, newName)
		},
		row: func(r Judged, unit string) {
			d := deltaString(r)
			if r.Fails {
				d = "**" + d + "** ❗"
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s%s |\n", r.Name, scaled(r.Old, unit), scaled(r.New, unit), d, pString(r), noiseSuffix(r))
		},
		geomean: func(o, n, d string) { fmt.Fprintf(w, "| geomean | %s | %s | %s | |\n", o, n, d) },
		between: func() { fmt.Fprintln(w) },
	}.walk(rows)
	_, err := fmt.Fprintln(w)
	for _, n := range NoiseNotes(rows) {
		_, err = fmt.Fprintf(w, "> ⚠️ **noise:** %s\n\n", n)
	}
	return err
}

// jsonSide and jsonRow are the shapes of -format json. An interval bound
// that is infinite (fewer than six samples have no finite 95% interval)
// is null, as JSON has no infinities. Samples are the side's values,
// sorted.
type jsonSide struct {
	Center  float64   `json:"center"`
	Lo      *float64  `json:"lo"`
	Hi      *float64  `json:"hi"`
	N       int       `json:"n"`
	Samples []float64 `json:"samples"`
}

type jsonRow struct {
	Pkg      string    `json:"pkg,omitempty"`
	Name     string    `json:"name"`
	Unit     string    `json:"unit"`
	Old      *jsonSide `json:"old,omitempty"`
	New      *jsonSide `json:"new,omitempty"`
	DeltaPct *float64  `json:"delta_pct,omitempty"`
	P        *float64  `json:"p,omitempty"`
	Verdict  string    `json:"verdict"`
	Fails    bool      `json:"fails_gate"`
	Warnings []string  `json:"warnings,omitempty"`

	// Noise is the noise diagnosis (see noiseJSON).
	Noise *jsonNoise `json:"noise,omitempty"`
}

func side(s Side) *jsonSide {
	if s.N == 0 {
		return nil
	}
	return &jsonSide{s.Center, finite(s.Lo), finite(s.Hi), s.N, s.Values}
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// WriteJSON writes every row as a JSON object: old and new center (median),
// interval and samples, the change in percent, the p-value, the verdict and
// whether the row fails the gate.
func WriteJSON(w io.Writer, rows []Judged) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(jsonRows(rows))
}

func jsonRows(rows []Judged) []jsonRow {
	out := make([]jsonRow, len(rows))
	for i, r := range rows {
		var d *float64
		if f := finite(r.Delta); f != nil {
			v := 100 * *f
			d = &v
		}
		out[i] = jsonRow{r.Pkg, r.Name, r.Unit, side(r.Old), side(r.New), d, finite(r.PAdj), r.Verdict, r.Fails, r.Warnings, noiseJSON(r)}
	}
	return out
}

// WriteCSV writes one line per row with the fields of WriteJSON.
func WriteCSV(w io.Writer, rows []Judged) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"pkg", "name", "unit", "old_center", "old_lo", "old_hi", "old_n", "new_center", "new_lo", "new_hi", "new_n", "delta_pct", "p", "verdict", "fails_gate", "noise"})
	f := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	// A side that did not run has empty fields, not zeros.
	side := func(s Side) []string {
		if s.N == 0 {
			return []string{"", "", "", "0"}
		}
		return []string{f(s.Center), f(s.Lo), f(s.Hi), strconv.Itoa(s.N)}
	}
	for _, r := range rows {
		rec := append([]string{r.Pkg, r.Name, r.Unit}, side(r.Old)...)
		rec = append(rec, side(r.New)...)
		cw.Write(append(rec, f(100*r.Delta), f(r.PAdj), r.Verdict, strconv.FormatBool(r.Fails), strings.Join(NoiseMarks(r), "; ")))
	}
	cw.Flush()
	return cw.Error()
}
