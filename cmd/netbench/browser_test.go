package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/netkit/netkit/internal/browser"
	"github.com/netkit/netkit/internal/browser/browsertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hotFile is a package whose BenchmarkWork spends its time in Planted and
// Steady: planted times a loop, and steady tenths of it.
func hotFile(planted, steady int) string {
	return `package hot

import "testing"

var sink int

//go:noinline
func Planted(n int) int {
	s := 1
	for i := 0; i < n*` + strconv.Itoa(planted) + `; i++ {
		s = s*31 + i ^ s>>3
	}
	return s
}

//go:noinline
func Steady(n int) int {
	s := 1
	for i := 0; i < n*` + strconv.Itoa(steady) + `/10; i++ {
		s = s*31 + i ^ s>>3
	}
	return s
}

func BenchmarkWork(b *testing.B) {
	for b.Loop() {
		sink = Planted(1000) + Steady(1000)
	}
}
`
}

// screenshotDir is where the browser tests keep their screenshots:
// $NETKIT_SCREENSHOTS when set (the README's pictures in docs/ are taken
// so), else the test's temporary directory.
func screenshotDir(t *testing.T) string {
	if d := os.Getenv("NETKIT_SCREENSHOTS"); d != "" {
		return d
	}
	return t.TempDir()
}

// TestBrowserCompareProfile is the one-command path from "compare says
// slower" to "the frame that got slower", checked in a real headless
// Chromium: a second commit makes Planted 8x slower (Work 7.4x: a 2.8x
// margin once came out not significant on a 2-core CI machine where
// other packages' tests took the cores during some samples); compare -profile
// -format html exits 1 and writes a report that links the differential
// flame graph; both pages load without errors; the report shows every
// row and a chart per benchmark; and in the flame graph the widest red
// frame is Planted.
func TestBrowserCompareProfile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs two revisions")
	}
	chromium := browsertest.Require(t)
	t.Setenv("NETBENCH_CACHE", t.TempDir())
	dir, oldCommit := newModule(t, map[string]string{"hot/hot_test.go": hotFile(1, 1)})
	writeFiles(t, dir, map[string]string{"hot/hot_test.go": hotFile(8, 1)})
	gitRun(t, dir, "commit", "-q", "-am", "Planted: 8x the work")

	report := filepath.Join(t.TempDir(), "report.html")
	_, errOut, err := runIn(t, dir, "compare", "-bench", "Work", "-count", "6", "-benchtime", "1s", "-threshold", "10",
		"-profile", "-format", "html", "-o", report, oldCommit, "HEAD", "./hot")
	if se := (*statusError)(nil); !errors.As(err, &se) || se.code != exitRegression {
		text, _ := os.ReadFile(report)
		require.Failf(t, "compare did not report the regression", "%v, want exit status 1 for the 7.4x slower Work\n%s\nreport:\n%s", err, errOut, text)
	}
	page, rerr := os.ReadFile(report)
	require.NoError(t, rerr, "%s", errOut)
	m := regexp.MustCompile(`href="([^"]*\.diff\.html)"`).FindSubmatch(page)
	require.NotNil(t, m, "the report links no differential flame graph:\n%s", errOut)
	flame := filepath.Join(filepath.Dir(report), string(m[1]))
	require.FileExists(t, flame, "the report links it")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b, err := browser.Start(ctx, chromium)
	require.NoError(t, err)
	defer b.Close()
	shots := screenshotDir(t)

	p := openClean(ctx, t, b, report)
	var got struct{ Rows, TableRows, Charts, Links int }
	js := `({Rows: +document.body.dataset.rows, TableRows: document.querySelectorAll("tr.row").length,
		Charts: document.querySelectorAll("svg.chart").length,
		Links: document.querySelectorAll('a[href$=".diff.html"]').length})`
	require.NoError(t, p.Eval(ctx, js, &got))
	assert.NotEqual(t, 0, got.Rows, "report: %+v; want every row in the tables (data-rows = tr.row > 0), charts and a flame link", got)
	assert.Equal(t, got.TableRows, got.Rows, "report: %+v; want every row in the tables (data-rows = tr.row > 0), charts and a flame link", got)
	assert.NotEqual(t, 0, got.Charts, "report: %+v; want every row in the tables (data-rows = tr.row > 0), charts and a flame link", got)
	assert.NotEqual(t, 0, got.Links, "report: %+v; want every row in the tables (data-rows = tr.row > 0), charts and a flame link", got)
	screenshot(ctx, t, p, filepath.Join(shots, "report.png"))

	p = openClean(ctx, t, b, flame)
	var fl struct {
		Frames, Rects int
		Widest        string
	}
	js = `(() => {
		const rects = [...document.querySelectorAll("#flame rect[data-name]")];
		let widest = "", w = -1;
		for (const r of rects) {
			const c = r.getAttribute("fill"), red = parseInt(c.slice(1, 3), 16),
				g = parseInt(c.slice(3, 5), 16), b = parseInt(c.slice(5, 7), 16);
			if (red - (g + b) / 2 > 60 && +r.getAttribute("width") > w) {
				w = +r.getAttribute("width"); widest = r.dataset.name;
			}
		}
		return {Frames: +document.body.dataset.frames, Rects: rects.length, Widest: widest};
	})()`
	require.NoError(t, p.Eval(ctx, js, &fl))
	assert.NotEqual(t, 0, fl.Frames, "flame graph: data-frames %d, %d frame rects; want equal and non-zero", fl.Frames, fl.Rects)
	assert.Equal(t, fl.Rects, fl.Frames, "flame graph: data-frames %d, %d frame rects; want equal and non-zero", fl.Frames, fl.Rects)
	assert.Equal(t, "example.com/m/hot.Planted", fl.Widest, "widest red frame %q, want example.com/m/hot.Planted", fl.Widest)
	screenshot(ctx, t, p, filepath.Join(shots, "flame-diff.png"))
}

// openClean opens the file at path, 1280×800, and fails the test if the
// page reports an error, fetches anything but itself and inline data, or
// takes a second or more to load.
func openClean(ctx context.Context, t *testing.T, b *browser.Browser, path string) *browser.Page {
	t.Helper()
	p, err := b.Open(ctx, "file://"+path, 1280, 800)
	require.NoError(t, err)
	t.Cleanup(func() { p.Close() })
	var pageErrors string
	require.NoError(t, p.Eval(ctx, `new Promise(r => setTimeout(() => r(document.body.dataset.errors || ""), 50))`, &pageErrors))
	errs := p.Errors()
	assert.Empty(t, errs, "%s: console errors %q, page errors %q", filepath.Base(path), errs, pageErrors)
	assert.Equal(t, "", pageErrors, "%s: console errors %q, page errors %q", filepath.Base(path), errs, pageErrors)
	file, _, _ := strings.Cut(path, "#")
	for _, u := range p.Requests() {
		assert.True(t, u == "file://"+file || strings.HasPrefix(u, "data:"), "%s fetched %s: not self-contained", filepath.Base(path), u)
	}
	lt := p.LoadTime()
	assert.Greater(t, lt, time.Duration(0), "%s loaded in %v, want under 1s", filepath.Base(path), lt)
	assert.Less(t, lt, time.Second, "%s loaded in %v, want under 1s", filepath.Base(path), lt)
	return p
}

// screenshot writes a full-page PNG of p to path.
func screenshot(ctx context.Context, t *testing.T, p *browser.Page, path string) {
	t.Helper()
	png, err := p.ScreenshotFullPage(ctx)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, png, 0o644))
	t.Logf("screenshot %s (%d bytes)", path, len(png))
}

// TestBrowserProfileFlame runs netbench profile on a module and opens the
// flame graph it wrote beside the CPU profile in headless Chromium: the
// page loads in under a second with no errors, draws as many frames as it
// says, has the benchmark's hot functions, and its search finds Planted
// with a share that is neither 0 nor everything.
func TestBrowserProfileFlame(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and profiles a module")
	}
	chromium := browsertest.Require(t)
	dir, _ := newModule(t, map[string]string{"hot/hot_test.go": hotFile(1, 10)})
	out := filepath.Join(t.TempDir(), "profiles")
	// A fixed iteration count, not a duration: a CPU profile samples CPU
	// time, and on a loaded CI host a 500ms run got so few samples that
	// Planted, half the work, had none.
	_, errOut, err := runIn(t, dir, "profile", "-bench", "Work", "-benchtime", "250000x", "-o", out, "./hot")
	require.NoError(t, err, "profile\n%s", errOut)
	flames, err := filepath.Glob(filepath.Join(out, "*", "*.cpu.html"))
	require.NoError(t, err, "flame graphs %q (%v), want one", flames, err)
	require.Len(t, flames, 1, "flame graphs %q (%v), want one", flames, err)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := browser.Start(ctx, chromium)
	require.NoError(t, err)
	defer b.Close()
	p := openClean(ctx, t, b, flames[0])
	var fl struct {
		Frames, Rects int
		Names         []string
	}
	js := `({Frames: +document.body.dataset.frames,
		Rects: document.querySelectorAll("#flame rect[data-name]").length,
		Names: [...document.querySelectorAll("#flame rect[data-name]")].map(r => r.dataset.name)})`
	require.NoError(t, p.Eval(ctx, js, &fl))
	assert.NotEqual(t, 0, fl.Frames, "data-frames %d, %d frame rects; want equal and non-zero", fl.Frames, fl.Rects)
	assert.Equal(t, fl.Rects, fl.Frames, "data-frames %d, %d frame rects; want equal and non-zero", fl.Frames, fl.Rects)
	for _, want := range []string{"example.com/m/hot.BenchmarkWork", "example.com/m/hot.Planted", "example.com/m/hot.Steady"} {
		assert.True(t, slices.Contains(fl.Names, want), "no frame %s among %d", want, len(fl.Names))
	}
	screenshot(ctx, t, p, filepath.Join(screenshotDir(t), "flame.png"))

	q := openClean(ctx, t, b, flames[0]+"#search=Planted")
	var matched float64
	require.NoError(t, q.Eval(ctx, `+document.body.dataset.matched`, &matched))
	assert.Greater(t, matched, 0.1, "search for Planted matched %.3f of the total; want a share well inside (0, 1): Planted does half the work", matched)
	assert.Less(t, matched, float64(1), "search for Planted matched %.3f of the total; want a share well inside (0, 1): Planted does half the work", matched)
}
