package flame

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/netkit/netkit/internal/browser"
	"github.com/netkit/netkit/internal/browser/browsertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixture returns the files of the module testdata/rename/side.
func fixture(t *testing.T, side string) map[string]string {
	t.Helper()
	dir := filepath.Join("testdata", "rename", side)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	files := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		files[e.Name()] = string(b)
	}
	return files
}

// TestDiffRenameFixture profiles the two versions of testdata/rename, a
// tree and its generic rewrite in which one function, verify, got four
// times slower, and diffs them per operation with the renaming of Tree to
// TreeG: verify's frame is matched across the rewrite (its names in the
// profiles differ) and is the reddest; without the renaming the wrapper
// Tree keeps verify's frames on different paths. The page then shows the
// frame, the table of functions and verify's callers in a real browser.
//
// Both runs do a fixed number of iterations, so that they do a fixed
// amount of work however loaded the machine is, and get about as many
// samples.
func TestDiffRenameFixture(t *testing.T) {
	const iters = 2000
	benchtime := fmt.Sprintf("%dx", iters)
	base, err := FromProfiles([]*profile.Profile{readProfile(t, cpuProfileFor(t, fixture(t, "base"), benchtime))}, Options{})
	require.NoError(t, err)
	new, err := FromProfiles([]*profile.Profile{readProfile(t, cpuProfileFor(t, fixture(t, "new"), benchtime))}, Options{})
	require.NoError(t, err)
	d, err := DiffWith(base, new, DiffOptions{BaseOps: iters, NewOps: iters, Renames: []Rename{{"Tree", "TreeG"}}})
	require.NoError(t, err)

	const verify = "example.com/m.(*node).verify"
	best, bestChange := int32(-1), math.Inf(-1)
	for i := 1; i < len(d.nodes); i++ {
		if c := d.change(int32(i)); c > bestChange {
			best, bestChange = int32(i), c
		}
	}
	path := d.path(best)
	require.Equal(t, verify, path[len(path)-1], "the reddest frame (change %+.3f) is %v", bestChange, path)
	n := &d.nodes[best]
	assert.Equal(t, "example.com/m.(*node).verify", d.names[n.baseRaw-1], "verify's name in base")
	assert.Equal(t, "example.com/m.(*node[go.shape.int]).verify", d.names[n.newRaw-1], "verify's name in new")
	assert.Equal(t, []string{"example.com/m.BenchmarkGet", "example.com/m.(*TreeG).Get", "example.com/m.(*node).get", verify},
		path[len(path)-4:], "verify's path")
	// Four times the work of a large part of base's time: a large part of
	// the new total.
	assert.Greater(t, bestChange, 0.3, "verify's change")
	fns := map[string]Function{}
	for _, f := range d.Functions() {
		fns[f.Name] = f
	}
	for _, name := range []string{verify, "example.com/m.(*node).get", "example.com/m.(*TreeG).Get"} {
		assert.Equal(t, Both, fns[name].Side, "function %s", name)
		assert.NotZero(t, fns[name].Cum, "function %s in new", name)
		assert.NotZero(t, fns[name].BaseCum, "function %s in base", name)
	}
	assert.Greater(t, float64(fns[verify].Flat)/float64(fns[verify].BaseFlat), 2.0, "verify's flat value, new over base (same iterations)")

	// Without the renaming, the generic wrapper Tree.Get → TreeG.Get puts
	// verify on another path: no frame of verify has both values.
	plain, err := DiffPerOp(base, new, iters, iters)
	require.NoError(t, err)
	for i := 1; i < len(plain.nodes); i++ {
		pn := &plain.nodes[i]
		if plain.names[pn.name] == verify {
			assert.True(t, pn.total == 0 || pn.baseTotal == 0, "without the renaming verify's frame %v has both values", plain.path(int32(i)))
		}
	}

	t.Run("browser", func(t *testing.T) {
		page := filepath.Join(t.TempDir(), "rename.html")
		require.NoError(t, d.WriteHTMLFile(page, "tree: base → generic rewrite"))
		browseDiff(t, page)
	})
}

// browseDiff opens the differential page at path in headless Chromium
// and checks that it loads cleanly, that the reddest drawn frame is
// verify's and not drawn as on one side only, that the table of functions
// lists every function of the data, and that a click on verify's row shows
// its callers.
func browseDiff(t *testing.T, path string) {
	chromium := browsertest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := browser.Start(ctx, chromium)
	require.NoError(t, err)
	defer b.Close()
	p, err := b.Open(ctx, "file://"+path, 1280, 900)
	require.NoError(t, err)
	defer p.Close()
	var pageErrors string
	require.NoError(t, p.Eval(ctx, `new Promise(r => setTimeout(() => r(document.body.dataset.errors || ""), 50))`, &pageErrors))
	assert.Empty(t, p.Errors(), "console errors")
	assert.Empty(t, pageErrors, "page errors")
	for _, u := range p.Requests() {
		assert.True(t, u == "file://"+path || strings.HasPrefix(u, "data:"), "the page fetched %s: not self-contained", u)
	}

	var got struct {
		Frames, Rects, Functions, FunctionRows int
		Reddest, ReddestSide                   string
		Callers                                []string
		CallersShown                           int
		Selected, TopByFlatNew, TopByName      string
	}
	js := `(() => {
		const rects = [...document.querySelectorAll("#flame rect[data-name]")];
		let reddest = "", side = "", best = -1;
		for (const r of rects) {
			const c = r.getAttribute("fill");
			if (!c.startsWith("#")) continue;
			const red = parseInt(c.slice(1, 3), 16), g = parseInt(c.slice(3, 5), 16), b = parseInt(c.slice(5, 7), 16);
			const s = red - (g + b) / 2;
			if (s > best) { best = s; reddest = r.dataset.name; side = r.dataset.side || ""; }
		}
		const sortedFirst = col => {
			document.querySelector('#top-table th[data-col="' + col + '"]').click();
			return document.querySelector("#top-table tr[data-fn]").title;
		};
		const fnRows = document.querySelectorAll("#top-table tr[data-fn]");
		const row = [...fnRows].find(tr => tr.title === "example.com/m.(*node).verify");
		if (row) row.click();
		return {Frames: +document.body.dataset.frames, Rects: rects.length,
			Functions: +document.body.dataset.functions, FunctionRows: fnRows.length,
			Reddest: reddest, ReddestSide: side,
			Callers: [...document.querySelectorAll("#callers-table tr.caller")].map(tr => tr.title),
			CallersShown: +document.body.dataset.callers, Selected: document.body.dataset.selected || "",
			TopByFlatNew: sortedFirst(2), TopByName: sortedFirst(0)};
	})()`
	require.NoError(t, p.Eval(ctx, js, &got))
	assert.NotZero(t, got.Frames, "frames drawn: %+v", got)
	assert.Equal(t, got.Frames, got.Rects, "data-frames and frame rects: %+v", got)
	assert.Equal(t, "example.com/m.(*node).verify", got.Reddest, "the reddest frame: %+v", got)
	assert.Empty(t, got.ReddestSide, "the reddest frame is drawn as on one side only: %+v", got)
	assert.NotZero(t, got.Functions, "functions in the table: %+v", got)
	assert.Equal(t, got.Functions, got.FunctionRows, "data-functions and table rows: %+v", got)
	assert.Equal(t, "example.com/m.(*node).verify", got.Selected, "the function selected by the click: %+v", got)
	assert.Equal(t, []string{"example.com/m.(*node).get"}, got.Callers, "verify's callers: %+v", got)
	assert.Equal(t, len(got.Callers), got.CallersShown, "data-callers: %+v", got)
	assert.Equal(t, "example.com/m.(*node).verify", got.TopByFlatNew, "first row sorted by flat new: %+v", got)
	assert.Equal(t, "example.com/m.(*TreeG).Get", got.TopByName, "first row sorted by name: %+v", got)

	png, err := p.ScreenshotFullPage(ctx)
	require.NoError(t, err)
	dir := os.Getenv("NETKIT_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	shot := filepath.Join(dir, "flame-diff-rename.png")
	require.NoError(t, os.WriteFile(shot, png, 0o644))
	t.Logf("screenshot %s (%d bytes)", shot, len(png))
}
