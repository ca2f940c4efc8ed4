package benchcmp

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An element is a node of a page read back with encoding/xml.
type element struct {
	name string
	attr map[string]string
	kids []*element
	text strings.Builder // the character data inside, nested elements' included
}

// parsePage reads an HTML page written by WriteHTML as XML, which it must
// be (well-formed, entities only of XML's kinds), and returns its root.
func parsePage(t *testing.T, page []byte) *element {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(page))
	root := &element{name: "#document"}
	stack := []*element{root}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "the page is not well-formed")
		switch tok := tok.(type) {
		case xml.StartElement:
			e := &element{name: tok.Name.Local, attr: map[string]string{}}
			for _, a := range tok.Attr {
				e.attr[a.Name.Local] = a.Value
			}
			top := stack[len(stack)-1]
			top.kids = append(top.kids, e)
			stack = append(stack, e)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			for _, e := range stack {
				e.text.Write(tok)
			}
		}
	}
	require.Len(t, stack, 1, "%d elements not closed", len(stack)-1)
	return root
}

// find returns the elements under e (e included) that match, in document
// order.
func (e *element) find(match func(*element) bool) []*element {
	var out []*element
	if match(e) {
		out = append(out, e)
	}
	for _, k := range e.kids {
		out = append(out, k.find(match)...)
	}
	return out
}

func (e *element) hasClass(c string) bool { return slices.Contains(strings.Fields(e.attr["class"]), c) }

func is(name, class string) func(*element) bool {
	return func(e *element) bool { return e.name == name && (class == "" || e.hasClass(class)) }
}

func (e *element) num(t *testing.T, attr string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(e.attr[attr], 64)
	require.NoError(t, err, "<%s %s=%q>", e.name, attr, e.attr[attr])
	return v
}

func goldenReport(t *testing.T) Report {
	return Report{
		OldName: "old",
		NewName: "new",
		Env:     []string{"commit: 0123456789abcdef", "go: go1.26.0", "gomaxprocs: 2", "goos: linux", "goarch: amd64", "cpu: AMD EPYC 7B13"},
		Gate:    Gate{Alpha: 0.05, Threshold: 0.05},
		Rows:    goldenRows(t),
		Flames:  map[string]string{"example.com/m\tGet/size=64/impl=pool-2": "flames/Get.html"},
	}
}

func writeHTML(t *testing.T, r Report) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, WriteHTML(&b, r))
	return b.Bytes()
}

func TestWriteHTMLGolden(t *testing.T) {
	golden(t, "report.golden.html", writeHTML(t, goldenReport(t)))
}

var cellSep = regexp.MustCompile(`\s{2,}`)

// TestHTMLTablesMatchText: the page's tables hold the cells of WriteText,
// line by line: the pkg line, then per table the header, every row (the
// gate's "!" a cell of its own) and the geomean.
func TestHTMLTablesMatchText(t *testing.T) {
	r := goldenReport(t)
	var text bytes.Buffer
	require.NoError(t, WriteText(&text, r.OldName, r.NewName, r.Rows))
	var want [][]string
	for line := range strings.Lines(text.String()) {
		line = strings.TrimRight(line, " \n")
		switch {
		case line == "":
			continue
		case strings.HasPrefix(line, "pkg: "):
			want = append(want, []string{line})
			continue
		}
		f := cellSep.Split(line, -1)
		if last, ok := strings.CutSuffix(f[len(f)-1], " !"); ok {
			f = append(f[:len(f)-1], last, "!")
		}
		want = append(want, f)
	}

	doc := parsePage(t, writeHTML(t, r))
	var got [][]string
	for _, e := range doc.find(func(e *element) bool {
		return is("h3", "pkg")(e) || e.name == "tr" && len(e.find(is("th", ""))) > 0 || is("tr", "row")(e) || is("tr", "geomean")(e)
	}) {
		if e.name == "h3" {
			got = append(got, []string{e.text.String()})
			continue
		}
		var cells []string
		for _, c := range e.find(func(c *element) bool { return c.name == "td" || c.name == "th" }) {
			cells = append(cells, c.text.String())
		}
		for len(cells) > 0 && cells[len(cells)-1] == "" {
			cells = cells[:len(cells)-1]
		}
		got = append(got, cells)
	}
	// The env table's rows have no th and no row class; only bench tables
	// were taken.
	require.Equal(t, len(want), len(got), "%d lines in the HTML tables, %d in the text\nhtml: %q\ntext: %q", len(got), len(want), got, want)
	for i := range want {
		assert.Equal(t, want[i], got[i], "line %d: html %q, text %q", i, got[i], want[i])
	}
	n := len(want)
	require.GreaterOrEqual(t, n, 20, "only %d lines compared", n)

	body := doc.find(is("body", ""))[0]
	assert.Equal(t, strconv.Itoa(len(r.Rows)), body.attr["data-rows"], "data-rows")
	assert.Len(t, doc.find(is("tr", "row")), len(r.Rows), "rows in the tables")
}

// TestHTMLEscaping: names, environment values and revision names that
// hold markup appear as text, and a script address in Flames is not
// followed.
func TestHTMLEscaping(t *testing.T) {
	const name = `X<script>alert(1)</script>&amp;"q'-2`
	in := fmt.Sprintf("pkg: a&b<i>\nBenchmark%s \t 1000 \t 10 ns/op\n", name)
	rows, err := Compare(strings.NewReader(strings.Repeat(in, 6)), strings.NewReader(strings.Repeat(in, 6)), DefaultConfidence)
	require.NoError(t, err)
	r := Report{
		Title:   "<b>title</b>",
		OldName: "<old>",
		NewName: "new&",
		Env:     []string{"cpu: <img src=x onerror=alert(1)> & co"},
		Gate:    Gate{Alpha: 0.05, Threshold: 0.05},
		Rows:    Judge(rows, Gate{Alpha: 0.05, Threshold: 0.05}),
		Flames:  map[string]string{"a&b<i>\t" + name: "javascript:alert(1)"},
	}
	page := writeHTML(t, r)
	for _, bad := range []string{"<script>alert", "<img", "<b>title", "<old>", "<i>", "new&<", "javascript:"} {
		assert.False(t, bytes.Contains(page, []byte(bad)), "the page holds %q unescaped", bad)
	}
	doc := parsePage(t, page)
	texts := func(match func(*element) bool) []string {
		var s []string
		for _, e := range doc.find(match) {
			s = append(s, e.text.String())
		}
		return s
	}
	assert.Equal(t, []string{"<b>title</b>"}, texts(is("h1", "")), "h1")
	assert.Equal(t, []string{"pkg: a&b<i>"}, texts(is("h3", "pkg")), "pkg heading")
	assert.Len(t, texts(func(e *element) bool { return e.name == "td" && e.text.String() == name }), 1, "the benchmark's name cell, read back")
	assert.Equal(t, []string{"\ncpu<img src=x onerror=alert(1)> & co\n"}, texts(is("table", "env")), "env table")
	charts := doc.find(is("svg", "chart"))
	if assert.Len(t, charts, 1, "charts") {
		assert.Equal(t, name, charts[0].attr["data-bench"], "the chart's data-bench")
	}
	for _, a := range doc.find(is("a", "flame")) {
		assert.NotContains(t, a.attr["href"], "javascript", "flame link %q", a.attr["href"])
	}
}

// TestHTMLSelfContained: the page refers to nothing outside itself.
func TestHTMLSelfContained(t *testing.T) {
	page := writeHTML(t, goldenReport(t))
	for _, bad := range []string{"http:", "https:", "//", "url(", "@import", "<link", "src=", "<iframe", "<object"} {
		// "//" inside a JavaScript or CSS comment would be harmless, but
		// the page has none.
		i := bytes.Index(page, []byte(bad))
		assert.Negative(t, i, "the page holds %q: …%s…", bad, page[max(0, i-40):min(len(page), max(0, i+40))])
	}
	for _, e := range parsePage(t, page).find(is("a", "")) {
		h := e.attr["href"]
		assert.True(t, strings.HasPrefix(h, "#") || h == "flames/Get.html", "link to %q: want an anchor or the flame graph", h)
	}
}

// TestHTMLOrder: sections come regressions first (gated ones, then the
// rest), improvements next, then the others, each group by the size of
// the change; the golden rows say exactly which.
func TestHTMLOrder(t *testing.T) {
	doc := parsePage(t, writeHTML(t, goldenReport(t)))
	var got []string
	for _, s := range doc.find(is("section", "bench")) {
		got = append(got, s.find(is("svg", "chart"))[0].attr["data-bench"])
	}
	want := []string{
		"Alloc-2",                 // allocs/op +50%, fails
		"Get/size=64/impl=pool-2", // sec/op +20%, fails
		"Copy/size=4096-2",        // sec/op +3.1%, worse within the gate
		"X-4",                     // sec/op -19.9%, better
		// unchanged, by |delta|: 0.1% and 0.1%, then the one-sided ones
		"Widgets-2", "X-1", "Removed-2", "Added-2",
	}
	assert.Equal(t, want, got, "sections in the order")

	// The same rules on rows made up to cross the groups: a benchmark is
	// placed by its worst charted row, and a slower unchanged one does not
	// come before a regression.
	mk := func(name, unit string, delta float64, verdict string, fails bool) Judged {
		return Judged{Row: Row{Name: name, Unit: unit, Delta: delta}, Verdict: verdict, Fails: fails}
	}
	rows := []Judged{
		mk("A", "sec/op", 0.9, Unchanged, false),
		mk("B", "sec/op", -0.5, Better, false),
		mk("B", "B/s", -0.02, Worse, false), // gated below: B is a regression
		mk("C", "sec/op", 0.10, Worse, true),
		mk("D", "sec/op", 0.40, Worse, true),
		mk("E", "sec/op", -0.7, Better, false),
		mk("F", "sec/op", 0.01, Worse, false),
		mk("F", "allocs/op", 0.5, Worse, false), // not charted, not gated: does not place F
	}
	var names []string
	for _, b := range order(rows, Gate{Units: []string{"B/s"}}) {
		names = append(names, b.name)
	}
	assert.Equal(t, []string{"D", "C", "B", "F", "E", "A"}, names, "order")
}

// TestHTMLCharts: each charted row has one chart whose points are its
// samples — as many as the two sides' n, placed on one linear scale — with
// each side's median and confidence interval at their places on that
// scale.
func TestHTMLCharts(t *testing.T) {
	r := goldenReport(t)
	doc := parsePage(t, writeHTML(t, r))
	charts := doc.find(is("svg", "chart"))
	// sec/op of the eight benchmarks, and allocs/op of Alloc-2, which
	// fails the gate.
	require.Len(t, charts, 9, "%d charts, want 9", len(charts))
	byRow := map[[2]string]Judged{}
	for _, row := range r.Rows {
		byRow[[2]string{row.Name, row.Unit}] = row
	}
	for _, c := range charts {
		row, ok := byRow[[2]string{c.attr["data-bench"], c.attr["data-unit"]}]
		require.True(t, ok, "chart of no row: %v", c.attr)
		t.Run(row.Name+" "+row.Unit, func(t *testing.T) { checkChart(t, c, row) })
	}
}

func checkChart(t *testing.T, c *element, row Judged) {
	// The scale, from the smallest and the largest sample's points.
	type sample struct{ v, x float64 }
	var all []sample
	for _, s := range []struct {
		class string
		side  Side
	}{{"old", row.Old}, {"new", row.New}} {
		pts := c.find(is("circle", s.class))
		require.Len(t, pts, s.side.N, "%d %s points, want n=%d", len(pts), s.class, s.side.N)
		require.Len(t, s.side.Values, s.side.N, "%d %s points, want n=%d", len(pts), s.class, s.side.N)
		for i, p := range pts {
			all = append(all, sample{s.side.Values[i], p.num(t, "cx")})
		}
	}
	lo := slices.MinFunc(all, func(a, b sample) int { return cmpFloat(a.v, b.v) })
	hi := slices.MaxFunc(all, func(a, b sample) int { return cmpFloat(a.v, b.v) })
	require.GreaterOrEqual(t, hi.x-lo.x, float64(100), "the samples span %.1f px", hi.x-lo.x)
	at := func(v float64) float64 { return lo.x + (v-lo.v)/(hi.v-lo.v)*(hi.x-lo.x) }
	const tol = 0.15 // coordinates are written with one decimal
	for _, s := range all {
		assert.LessOrEqual(t, math.Abs(s.x-at(s.v)), tol, "sample %g at x=%.1f, the scale puts it at %.2f", s.v, s.x, at(s.v))
		assert.GreaterOrEqual(t, s.x, float64(chartLeft), "sample %g at x=%.1f, off the axis", s.v, s.x)
		assert.LessOrEqual(t, s.x, float64(chartRight), "sample %g at x=%.1f, off the axis", s.v, s.x)
	}
	for _, s := range []struct {
		class string
		side  Side
	}{{"old", row.Old}, {"new", row.New}} {
		med := c.find(is("line", "median"))
		med = slices.DeleteFunc(med, func(e *element) bool { return !e.hasClass(s.class) })
		if s.side.N == 0 {
			assert.Empty(t, med, "a %s median without samples", s.class)
			continue
		}
		require.Len(t, med, 1, "%d %s medians", len(med), s.class)
		v := slices.Sorted(slices.Values(s.side.Values))
		m := (v[(len(v)-1)/2] + v[len(v)/2]) / 2
		assert.InDelta(t, at(m), med[0].num(t, "x1"), tol, "%s median %g: x against where the scale puts it", s.class, m)
		band := slices.DeleteFunc(c.find(is("rect", "band")), func(e *element) bool { return !e.hasClass(s.class) })
		require.Len(t, band, 1, "%d %s bands", len(band), s.class)
		x, w := band[0].num(t, "x"), band[0].num(t, "width")
		assert.InDelta(t, at(s.side.Lo), x, tol, "%s band start, interval %g–%g", s.class, s.side.Lo, s.side.Hi)
		assert.InDelta(t, at(s.side.Hi), x+w, 2*tol, "%s band end, interval %g–%g", s.class, s.side.Lo, s.side.Hi)
		assert.True(t, s.side.Lo <= m && m <= s.side.Hi, "%s median %g outside the interval %g–%g", s.class, m, s.side.Lo, s.side.Hi)
	}
	ticks := c.find(is("path", "tick"))
	assert.GreaterOrEqual(t, len(ticks), 2, "%d ticks on the axis", len(ticks))
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestHTMLFewSamples: with too few samples for a confidence interval the
// chart has points and medians but no band, and the page holds no
// infinities or NaNs.
func TestHTMLFewSamples(t *testing.T) {
	old := "BenchmarkF-2 1 10 ns/op\nBenchmarkF-2 1 11 ns/op\nBenchmarkF-2 1 12 ns/op\n"
	new := "BenchmarkF-2 1 20 ns/op\nBenchmarkF-2 1 21 ns/op\n"
	rows, err := Compare(strings.NewReader(old), strings.NewReader(new), DefaultConfidence)
	require.NoError(t, err)
	require.False(t, finiteInterval(rows[0].Old), "three samples gave a finite interval %g–%g; the test needs fewer", rows[0].Old.Lo, rows[0].Old.Hi)
	page := writeHTML(t, Report{OldName: "a", NewName: "b", Rows: Judge(rows, Gate{Alpha: 0.05})})
	for _, bad := range []string{"NaN", "Inf"} {
		assert.False(t, bytes.Contains(page, []byte(bad)), "the page holds %s", bad)
	}
	c := parsePage(t, page).find(is("svg", "chart"))
	require.Len(t, c, 1, "%d charts", len(c))
	assert.Len(t, c[0].find(is("circle", "")), 5, "points")
	assert.Len(t, c[0].find(is("line", "median")), 2, "medians")
	assert.Empty(t, c[0].find(is("rect", "band")), "bands without a finite interval")
}
