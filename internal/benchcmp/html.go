package benchcmp

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"
)

// A Report is what WriteHTML puts on the page.
type Report struct {
	Title            string // "" is "netbench compare OLD NEW"
	OldName, NewName string // as in the text table's header
	// Env is the environment fingerprint, "key: value" lines (commit, go,
	// gomaxprocs, kernel, governor, loadavg, goos, goarch, cpu …).
	Env  []string
	Gate Gate // the gate the rows were judged by, stated on the page
	Rows []Judged
	// Flames maps pkg + "\t" + Judged.Name to the address (usually a
	// relative path) of the benchmark's differential flame graph; the
	// benchmark's section links to it. nil links nothing.
	Flames map[string]string
}

// WriteHTML writes r as one self-contained HTML page: a header with the
// gate, a count of the verdicts and the environment, the tables of
// WriteText (the same cells), and per benchmark — regressions first, then
// improvements, then the rest, each group by the size of the change — a
// chart of both revisions' samples with their medians and confidence
// intervals for sec/op, the gated units and any unit that fails the gate.
// The page loads nothing: its style is inline, its charts are inline SVG
// and it needs no script. Every name and value is HTML-escaped.
//
// For tests in a browser, the body's data-rows attribute holds the number
// of benchmark rows in the tables, and a small script records uncaught
// script errors in its data-errors attribute. Every chart is an <svg
// class="chart"> whose data-bench and data-unit attributes name its row.
func WriteHTML(w io.Writer, r Report) error {
	if err := pageTemplate.Execute(w, newPage(r)); err != nil {
		return fmt.Errorf("benchcmp: %w", err)
	}
	return nil
}

// page is the data of pageTemplate.
type page struct {
	Title            string
	OldName, NewName string
	Gate             string
	Summary          []count
	Env              [][2]string
	Tables           []htmlTable
	Benches          []htmlBench
	Rows             int
	Geo              geometry
	Noise            []string // the noise warnings of the banner
}

// A count is one entry of the verdict summary.
type count struct {
	N            int
	Class, Label string
}

// An htmlTable is one table of WriteText. Pkg is set on the first table
// of each package.
type htmlTable struct {
	Pkg     string
	Head    []string
	Rows    []htmlRow
	Geomean []string
}

// An htmlRow holds the cells of one line of WriteText: name, old, new,
// change, "(p=… n=…)" and the gate's mark.
type htmlRow struct {
	ID    string // the benchmark's section
	Name  string
	Cells []string // old, new, change, p
	Class string   // the verdict's
	Fails bool
	Noise string // the row's noise marks
}

// An htmlBench is one benchmark's section: its charted rows.
type htmlBench struct {
	ID, Pkg, Name string
	Class         string // the verdict class of its leading row
	Flame         string
	Charts        []htmlChart
}

// An htmlChart is one row's chart with the row's verdict line.
type htmlChart struct {
	chart
	Name, Verdict string
	Class         string
	Fails         bool
}

// verdictClass returns the CSS class of a row's verdict.
func verdictClass(r Judged) string {
	switch r.Verdict {
	case Worse:
		return "worse"
	case Better:
		return "better"
	case Added:
		return "added"
	case Removed:
		return "removed"
	}
	return "same"
}

func newPage(r Report) page {
	p := page{Title: r.Title, OldName: r.OldName, NewName: r.NewName, Gate: gateText(r.Gate), Rows: len(r.Rows), Geo: chartGeometry}
	if p.Title == "" {
		p.Title = "netbench compare " + r.OldName + " " + r.NewName
	}
	for _, e := range r.Env {
		k, v, ok := strings.Cut(e, ": ")
		if !ok {
			k, v = "", e
		}
		p.Env = append(p.Env, [2]string{k, v})
	}
	p.Summary = summary(r.Rows)
	p.Noise = NoiseNotes(r.Rows)
	benches := order(r.Rows, r.Gate)
	ids := map[[2]string]string{}
	for i, b := range benches {
		id := fmt.Sprintf("bench-%d", i+1)
		ids[[2]string{b.pkg, b.name}] = id
		hb := htmlBench{ID: id, Pkg: b.pkg, Name: b.name, Class: verdictClass(b.lead), Flame: r.Flames[b.pkg+"\t"+b.name]}
		for _, row := range b.charted {
			hb.Charts = append(hb.Charts, htmlChart{newChart(row), row.Name, deltaString(row) + " " + pString(row), verdictClass(row), row.Fails})
		}
		p.Benches = append(p.Benches, hb)
	}
	pkg := ""
	tableWriter{
		pkg: func(name string) { pkg = name },
		header: func(unit string) {
			p.Tables = append(p.Tables, htmlTable{Pkg: pkg, Head: []string{unit, r.OldName, r.NewName, "vs base"}})
			pkg = ""
		},
		row: func(row Judged, unit string) {
			t := &p.Tables[len(p.Tables)-1]
			t.Rows = append(t.Rows, htmlRow{
				ID:    ids[[2]string{row.Pkg, row.Name}],
				Name:  row.Name,
				Cells: []string{scaled(row.Old, unit), scaled(row.New, unit), deltaString(row), "(" + pString(row) + ")"},
				Class: verdictClass(row),
				Fails: row.Fails,
				Noise: strings.Join(NoiseMarks(row), "; "),
			})
		},
		geomean: func(o, n, d string) { p.Tables[len(p.Tables)-1].Geomean = []string{o, n, d} },
		between: func() {},
	}.walk(r.Rows)
	return p
}

// gateText states g as the page shows it.
func gateText(g Gate) string {
	units := append([]string{"sec/op"}, g.Units...)
	s := fmt.Sprintf("a row fails when %s is significantly worse (p < %g", strings.Join(units, ", "), g.Alpha)
	if g.Holm {
		s += " after Holm's correction"
	}
	s += fmt.Sprintf(") by more than %g%%, and when allocs/op or B/op grows while constant in both revisions or significantly from 0", 100*g.Threshold)
	return s
}

// summary counts the rows by verdict.
func summary(rows []Judged) []count {
	c := []count{
		{Class: "fails", Label: "fail the gate"},
		{Class: "worse", Label: "worse within the gate"},
		{Class: "better", Label: "better"},
		{Class: "same", Label: "unchanged"},
		{Class: "added", Label: "in one revision only"},
	}
	for _, r := range rows {
		switch {
		case r.Fails:
			c[0].N++
		case r.Verdict == Worse:
			c[1].N++
		case r.Verdict == Better:
			c[2].N++
		case r.Verdict == Added || r.Verdict == Removed:
			c[4].N++
		default:
			c[3].N++
		}
	}
	return c
}

// A bench is one benchmark's rows, as order sorts them.
type bench struct {
	pkg, name string
	charted   []Judged // the rows that get a chart
	lead      Judged   // the row that places the benchmark
}

// rank places a row: gated regressions, other regressions, improvements,
// the rest.
func rank(r Judged) int {
	switch {
	case r.Fails:
		return 0
	case r.Verdict == Worse:
		return 1
	case r.Verdict == Better:
		return 2
	}
	return 3
}

// size is the magnitude of a row's change; rows without one come last.
func size(r Judged) float64 {
	if math.IsNaN(r.Delta) {
		return -1
	}
	return math.Abs(r.Delta)
}

// order groups rows by benchmark and sorts the benchmarks: regressions
// first, then improvements, then the rest, each group by the size of the
// change, ties in the order of rows. A benchmark charts its sec/op row, the
// rows of g's units and every row that fails the gate (its first row when
// it has none of these), and is placed by the best-ranked of those rows.
func order(rows []Judged, g Gate) []bench {
	var bs []bench
	at := map[[2]string]int{}
	for _, r := range rows {
		k := [2]string{r.Pkg, r.Name}
		i, ok := at[k]
		if !ok {
			i = len(bs)
			at[k] = i
			bs = append(bs, bench{pkg: r.Pkg, name: r.Name})
		}
		if r.Unit == "sec/op" || slices.Contains(g.Units, r.Unit) || r.Fails {
			bs[i].charted = append(bs[i].charted, r)
		}
	}
	for i := range bs {
		b := &bs[i]
		if len(b.charted) == 0 {
			k := [2]string{b.pkg, b.name}
			for _, r := range rows {
				if [2]string{r.Pkg, r.Name} == k {
					b.charted = append(b.charted, r)
					break
				}
			}
		}
		b.lead = b.charted[0]
		for _, r := range b.charted[1:] {
			if rank(r) < rank(b.lead) || rank(r) == rank(b.lead) && size(r) > size(b.lead) {
				b.lead = r
			}
		}
	}
	slices.SortStableFunc(bs, func(a, b bench) int {
		if ra, rb := rank(a.lead), rank(b.lead); ra != rb {
			return ra - rb
		}
		sa, sb := size(a.lead), size(b.lead)
		switch {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return 0
	})
	return bs
}

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{"px": px}).Parse(pageHTML))

// pageHTML is the page. It stays well-formed XML (quoted attributes,
// closed elements, no "<" or "&" in the style or script) so that tests
// can read it with encoding/xml.
const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<title>{{.Title}}</title>
<script>window.onerror = function (msg) { document.body.dataset.errors += msg + "\n"; };</script>
<style>
body { font: 14px/1.4 system-ui, sans-serif; color: #222; margin: 1.5em auto; max-width: 70em; padding: 0 1em; }
h1 { font-size: 1.4em; } h2 { font-size: 1.2em; margin-top: 1.6em; } h3 { font-size: 1em; margin: 1.2em 0 .3em; }
table { border-collapse: collapse; margin: .4em 0 1em; }
th, td { padding: .15em .7em; text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
table.bench tr:nth-child(even) { background: #f6f6f6; }
table.bench thead th { border-bottom: 1px solid #999; }
table.env td:first-child { color: #555; }
tr.geomean td { border-top: 1px solid #ccc; font-style: italic; }
.worse, tr.worse td:nth-child(4) { color: #b3261e; } .better, tr.better td:nth-child(4) { color: #1b7a2e; }
.same, .added, .removed, tr.same td:nth-child(4) { color: #555; }
tr.row { color: #222; }
tr.fails { background: #fde8e6 !important; } tr.fails td.mark, .fails { color: #b3261e; font-weight: bold; }
ul.summary { list-style: none; padding: 0; } ul.summary li { display: inline-block; margin-right: 1.5em; }
.key-old { color: #3465a4; } .key-new { color: #d9730d; }
section.bench { border-top: 1px solid #ddd; padding-top: .3em; }
div.noise-banner { background: #fff4ce; border: 2px solid #c98a00; border-radius: 4px; padding: .5em 1em; margin: 1em 0; }
div.noise-banner ul { margin: .3em 0; padding-left: 1.2em; }
td.mark { text-align: left; }
span.noise-mark { color: #8a5a00; font-weight: normal; background: #fff4ce; padding: 0 .3em; border-radius: 3px; }
svg.chart { display: block; max-width: 100%; height: auto; }
svg.chart .old { fill: #3465a4; stroke: #3465a4; } svg.chart .new { fill: #d9730d; stroke: #d9730d; }
svg.chart circle { fill-opacity: .55; stroke: none; }
svg.chart rect.band { fill-opacity: .16; stroke: none; }
svg.chart line.median { stroke-width: 2.5; }
svg.chart .axis, svg.chart .tick { stroke: #777; }
svg.chart text { font-size: 11px; fill: #444; stroke: none; }
</style>
</head>
<body data-rows="{{.Rows}}" data-errors="">
<h1>{{.Title}}</h1>
<p><span class="key-old">old: {{.OldName}}</span> vs <span class="key-new">new: {{.NewName}}</span></p>
<p class="gate">Gate: {{.Gate}}.</p>
{{with .Noise}}<div class="noise-banner" role="alert"><strong>⚠ Noise warning: these results may not hold.</strong>
<ul>{{range .}}
<li>{{.}}</li>{{end}}
</ul></div>
{{end}}<ul class="summary">{{range .Summary}}
<li class="{{.Class}}">{{.N}} {{.Label}}</li>{{end}}
</ul>
{{with .Env}}<h2>Environment</h2>
<table class="env">{{range .}}
<tr><td>{{index . 0}}</td><td>{{index . 1}}</td></tr>{{end}}
</table>
{{end}}<h2>Results</h2>
{{range .Tables}}{{with .Pkg}}<h3 class="pkg">pkg: {{.}}</h3>
{{end}}<table class="bench">
<thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}<th></th><th></th></tr></thead>
<tbody>{{range .Rows}}
<tr class="row {{.Class}}{{if .Fails}} fails{{end}}"><td><a href="#{{.ID}}">{{.Name}}</a></td>{{range .Cells}}<td>{{.}}</td>{{end}}<td class="mark">{{if .Fails}}!{{end}}{{with .Noise}} <span class="noise-mark" title="noise">⚠ {{.}}</span>{{end}}</td></tr>{{end}}{{with .Geomean}}
<tr class="geomean"><td>geomean</td>{{range .}}<td>{{.}}</td>{{end}}<td></td><td></td></tr>{{end}}
</tbody>
</table>
{{end}}<h2>Samples</h2>
<p>Each point is one run; the bar is the median, the band its 95% confidence interval.
<span class="key-old">old: {{.OldName}}</span>, <span class="key-new">new: {{.NewName}}</span>.</p>
{{range .Benches}}<section class="bench {{.Class}}" id="{{.ID}}">
<h3>{{.Name}}{{with .Pkg}} <small>({{.}})</small>{{end}}{{with .Flame}} · <a class="flame" href="{{.}}">flame graph</a>{{end}}</h3>
{{range .Charts}}<p class="{{.Class}}{{if .Fails}} fails{{end}}">{{.Unit}}: {{.Verdict}}{{if .Fails}} — fails the gate{{end}}</p>
<svg class="chart" data-bench="{{.Name}}" data-unit="{{.Unit}}" viewBox="0 0 {{$.Geo.Width}} {{$.Geo.Height}}" width="{{$.Geo.Width}}" height="{{$.Geo.Height}}" role="img">
<title>{{.Name}} {{.Unit}}</title>
<text x="{{$.Geo.Width}}" y="11" text-anchor="end">{{.Unit}}</text>{{range .Lanes}}{{$lane := .}}
<text x="4" y="{{px .Y}}" dy="4">{{.Label}}</text>{{with .Band}}
<rect class="band {{$lane.Label}}" x="{{px .X}}" y="{{px .Y}}" width="{{px .W}}" height="{{px .H}}"><title>{{.Title}}</title></rect>{{end}}{{range .Points}}
<circle class="point {{$lane.Label}}" cx="{{px .X}}" cy="{{px .Y}}" r="3"><title>{{.Title}}</title></circle>{{end}}{{with .Median}}
<line class="median {{$lane.Label}}" x1="{{px .X}}" y1="{{px .Y1}}" x2="{{px .X}}" y2="{{px .Y2}}"><title>{{.Title}}</title></line>{{end}}{{end}}
<line class="axis" x1="{{$.Geo.Left}}" y1="{{$.Geo.AxisY}}" x2="{{$.Geo.Right}}" y2="{{$.Geo.AxisY}}"/>{{range .Ticks}}
<path class="tick" d="M{{px .X}} {{$.Geo.AxisY}}v4"/><text x="{{px .X}}" y="{{$.Geo.AxisY}}" dy="15" text-anchor="middle">{{.Label}}</text>{{end}}
</svg>
{{end}}</section>
{{end}}</body>
</html>
`
