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

// baseOnlyLimit bounds the list of frames found only in the base profile.
const baseOnlyLimit = 50

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
	Base     []int64     `json:"b,omitempty"`
	Color    []int       `json:"c,omitempty"`
	Steps    int         `json:"steps,omitempty"`
	Palette  []string    `json:"pal,omitempty"`
	BaseOnly []baseFrame `json:"baseOnly,omitempty"`
}

// baseFrame is a frame found only in the base profile.
type baseFrame struct {
	Path  []string `json:"path"`
	Value int64    `json:"v"`
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
	for _, n := range drawn {
		nd := &g.nodes[n]
		i, ok := names[nd.name]
		if !ok {
			i = int32(len(d.Names))
			names[nd.name] = i
			d.Names = append(d.Names, g.names[nd.name])
		}
		d.Name = append(d.Name, i)
		d.Depth = append(d.Depth, nd.depth)
		d.Value = append(d.Value, nd.total)
		if g.diff {
			d.Base = append(d.Base, nd.baseTotal)
		}
		if g.perOp() {
			d.Self = append(d.Self, nd.self)
			d.BaseSelf = append(d.BaseSelf, nd.baseSelf)
		}
	}
	if g.diff {
		d.BaseTotal = g.BaseTotal()
		d.BaseScale = g.baseScale()
		d.BaseOps, d.NewOps = g.baseOps, g.newOps
		d.Color = g.colorSteps(drawn)
		d.Steps = diffSteps
		d.Palette = diffPalette()
		for _, n := range g.baseOnly(baseOnlyLimit) {
			d.BaseOnly = append(d.BaseOnly, baseFrame{g.path(n), g.nodes[n].baseTotal})
		}
	}
	return d
}

// WriteHTML writes g as one self-contained HTML page: the frame data,
// inline style and a script that draws the graph as SVG, with the root on
// top as pprof's web view draws it. A click on a frame zooms to it (a
// click on the root, or Escape, zooms out); the search box takes a regular
// expression, highlights the frames whose names match and shows their
// share of the total; hovering a frame shows its name, value and share
// (for a diff also the base value and the change of share). A diff has a
// legend and lists the frames found only in the base profile.
//
// For tests the page is easy to inspect: the SVG has id "flame", each
// frame's rect has a data-name attribute (the root's has data-root
// instead), and once drawn the page sets document.body.dataset.frames to
// the number of frames drawn (Frames, not counting the root) and
// document.body.dataset.renderMs to the milliseconds the first drawing
// took; script errors are collected in document.body.dataset.errors. The
// page loads nothing.
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
<aside id="baseonly" hidden></aside>
</main>
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
