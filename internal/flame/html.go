package flame

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"html"
	"io"
	"strings"
)

// The page's style and script, inlined into every page.
var (
	//go:embed page.css
	pageCSS string
	//go:embed page.js
	pageJS string
)

// The page's table of functions lists at most maxFunctions, each with at
// most maxCallers callers.
const (
	maxFunctions = 300
	maxCallers   = 40
)

// pageData is the graph as the page's script reads it: the frames drawn,
// in preorder, as parallel arrays, with names in a string table.
type pageData struct {
	Title     string `json:"title"`
	Sample    string `json:"sample"`
	Unit      string `json:"unit"`
	Diff      bool   `json:"diff"`
	Total     int64  `json:"total"`
	BaseTotal int64  `json:"baseTotal,omitempty"`
	// BaseScale puts base values on the new scale; BaseOps and NewOps
	// are set for a diff per operation (DiffPerOp).
	BaseScale float64 `json:"baseScale,omitempty"`
	BaseOps   int64   `json:"baseOps,omitempty"`
	NewOps    int64   `json:"newOps,omitempty"`
	// Per operation only: each frame's own (self) value and base value.
	Self     []int64 `json:"s,omitempty"`
	BaseSelf []int64 `json:"bs,omitempty"`
	MinShare float64 `json:"minShare"`
	// Frames, root first: name (index in Names), depth, value.
	Names []string `json:"names"`
	Name  []int32  `json:"n"`
	Depth []int32  `json:"d"`
	Value []int64  `json:"v"`
	// Diff only: base value and color step (-Steps to Steps; the color
	// is Palette[step+Steps]).
	Base    []int64  `json:"b,omitempty"`
	Color   []int    `json:"c,omitempty"`
	Steps   int      `json:"steps,omitempty"`
	Palette []string `json:"pal,omitempty"`
	// Diff only: each frame's width (its value plus room for the frames
	// below it found in base only, see Graph.widths), the side of its
	// function, and its name in the new and in the base profile when that
	// differs from its (normalized) name, as an index in Names, else -1.
	Width   []int64 `json:"w,omitempty"`
	Side    []Side  `json:"side,omitempty"`
	RawNew  []int32 `json:"rn,omitempty"`
	RawBase []int32 `json:"rb,omitempty"`
	// The table of functions, largest change (or value) first.
	Functions []Function `json:"fns"`
}

// data returns what the page draws.
func (g *Graph) data(title string) *pageData {
	d := &pageData{
		Title:    title,
		Sample:   g.sample,
		Unit:     g.unit,
		Diff:     g.diff,
		Total:    g.Total(),
		MinShare: g.minShare,
	}
	if d.MinShare == 0 {
		d.MinShare = DefaultMinShare
	}
	drawn := g.drawn()
	names := map[int32]int32{}
	nameIndex := func(n int32) int32 {
		i, ok := names[n]
		if !ok {
			i = int32(len(d.Names))
			names[n] = i
			d.Names = append(d.Names, g.names[n])
		}
		return i
	}
	raw := func(r, name int32) int32 {
		if r == 0 || r-1 == name {
			return -1
		}
		return nameIndex(r - 1)
	}
	fns := g.functions(true)
	sides := map[string]Side{}
	for _, f := range fns {
		sides[f.Name] = f.Side
	}
	var widths []int64
	if g.diff {
		widths = g.widths()
	}
	for _, n := range drawn {
		nd := &g.nodes[n]
		d.Name = append(d.Name, nameIndex(nd.name))
		d.Depth = append(d.Depth, nd.depth)
		d.Value = append(d.Value, nd.total)
		if g.diff {
			d.Base = append(d.Base, nd.baseTotal)
			d.Width = append(d.Width, widths[n])
			d.Side = append(d.Side, sides[g.names[nd.name]])
			d.RawNew = append(d.RawNew, raw(nd.newRaw, nd.name))
			d.RawBase = append(d.RawBase, raw(nd.baseRaw, nd.name))
		}
		if g.perOp() {
			d.Self = append(d.Self, nd.self)
			d.BaseSelf = append(d.BaseSelf, nd.baseSelf)
		}
	}
	minV := float64(g.minValue())
	d.Functions = []Function{}
	for _, f := range fns {
		if f.cumSize < minV {
			continue
		}
		if len(d.Functions) == maxFunctions {
			break
		}
		if len(f.Callers) > maxCallers {
			f.Callers = f.Callers[:maxCallers]
		}
		d.Functions = append(d.Functions, f)
	}
	if g.diff {
		d.BaseTotal = g.BaseTotal()
		d.BaseScale = g.baseScale()
		d.BaseOps, d.NewOps = g.baseOps, g.newOps
		d.Color = g.colorSteps(drawn)
		d.Steps = diffSteps
		d.Palette = diffPalette()
	}
	return d
}

// WriteHTML writes g as one self-contained HTML page: the frame data,
// inline style and a script that draws the graph as SVG, with the root on
// top as pprof's web view draws it. A click on a frame zooms to it (a
// click on the root, or Escape, zooms out); the search box takes a regular
// expression, highlights the frames whose names match and shows their
// share of the total; hovering a frame shows its name, value and share
// (for a diff also the base value, the change of share and the frame's
// names in either profile). A diff has a legend; the frames of a function
// with samples on one side only are hatched. Below the graph a table lists
// the functions (see Functions), and a click on a row or a frame shows
// the function's callers.
//
// For tests the page is easy to inspect: the SVG has id "flame", each
// frame's rect has a data-name attribute (the root's has data-root
// instead) and, in a diff, data-side ("1" only in base, "2" only in new)
// when its function is on one side only; the table's rows are
// tr[data-fn] in #top-table (titled with the function's name), the
// callers' tr.caller in #callers-table. Once drawn the page sets
// document.body.dataset.frames to the number of frames drawn (Frames, not
// counting the root), .functions to the rows of the table, .renderMs to
// the milliseconds the first drawing took, and on a click .selected and
// .callers to the function shown and its number of callers; script errors
// are collected in document.body.dataset.errors. The page loads nothing.
func (g *Graph) WriteHTML(w io.Writer, title string) error {
	return g.WriteHTMLNotes(w, title, nil)
}

// WriteHTMLNotes is WriteHTML with notes: lines of text shown under the
// title, each a paragraph of class "note" (what share of a profile lies
// outside a benchmark's timed region, say).
func (g *Graph) WriteHTMLNotes(w io.Writer, title string, notes []string) error {
	data, err := json.Marshal(g.data(title)) // escapes <, > and &, so it cannot end the script
	if err != nil {
		return err
	}
	t := html.EscapeString(title)
	var ns strings.Builder
	for _, n := range notes {
		ns.WriteString(`<p class="note">` + html.EscapeString(n) + "</p>\n")
	}
	bw := bufio.NewWriter(w)
	for _, s := range []string{
		`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>`, t, `</title>
<script>
window.onerror = function (msg, src, line, col) {
  var el = document.body || document.documentElement;
  el.dataset.errors = (el.dataset.errors ? el.dataset.errors + "\n" : "") + msg + " (line " + line + ":" + col + ")";
};
</script>
<style>
`, pageCSS, `</style>
</head>
<body>
<header>
<h1>`, t, `</h1>
`, ns.String(), `<p id="info"></p>
<p id="controls"><input id="search" type="search" placeholder="search: regular expression" size="40" autocomplete="off">
<button id="reset" type="button">Zoom out</button> <span id="matched"></span></p>
<div id="legend" hidden></div>
</header>
<main>
<svg id="flame" width="100%" height="0"></svg>
<p id="details">&nbsp;</p>
</main>
<section id="tables">
<div id="top"><h2>Functions</h2><table id="top-table"></table></div>
<div id="callers" hidden><h2 id="callers-title"></h2><table id="callers-table"></table></div>
</section>
<div id="tooltip" hidden></div>
<script type="application/json" id="flame-data">`, string(data), `</script>
<script>
`, pageJS, `</script>
</body>
</html>
`,
	} {
		if _, err := bw.WriteString(s); err != nil {
			return err
		}
	}
	return bw.Flush()
}
