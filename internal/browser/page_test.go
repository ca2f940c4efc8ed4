package browser_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/netkit/netkit/internal/browser"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// open opens url in b and closes the page when the test ends.
func open(t *testing.T, ctx context.Context, b *browser.Browser, url string, width, height int) *browser.Page {
	t.Helper()
	t0 := time.Now()
	p, err := b.Open(ctx, url, width, height)
	require.NoError(t, err)
	t.Logf("opened in %v (load time %v)", time.Since(t0).Round(time.Millisecond), p.LoadTime())
	t.Cleanup(func() {
		assert.NoError(t, p.Close())
	})
	return p
}

// TestPage runs the page tests in one browser, as the report and flame
// graph tests will.
func TestPage(t *testing.T) {
	b, ctx := start(t)
	dir := t.TempDir()

	t.Run("Eval", func(t *testing.T) {
		url := writePage(t, dir, "eval.html", `<!doctype html>
<p id="v" data-n="42">forty-two</p>
<script>document.title = "t-" + document.getElementById("v").dataset.n</script>`)
		p := open(t, ctx, b, url, 400, 300)
		var text string
		assert.NoError(t, p.Eval(ctx, `document.getElementById("v").textContent`, &text), "Eval(textContent)")
		assert.Equal(t, "forty-two", text, "Eval(textContent)")
		var got struct {
			Title string `json:"title"`
			N     int    `json:"n"`
		}
		js := `({title: document.title, n: +document.getElementById("v").dataset.n})`
		assert.NoError(t, p.Eval(ctx, js, &got), "Eval(object)")
		assert.Equal(t, "t-42", got.Title, "Eval(object)")
		assert.Equal(t, 42, got.N, "Eval(object)")
		var n int
		assert.NoError(t, p.Eval(ctx, `new Promise(r => setTimeout(() => r(7), 10))`, &n), "Eval(promise)")
		assert.Equal(t, 7, n, "Eval(promise)")
		err := p.Eval(ctx, `(() => { throw new Error("eval-boom") })()`, nil)
		assert.ErrorContains(t, err, "eval-boom", "Eval of a throwing expression")
		assert.Error(t, p.Eval(ctx, `undefined`, &n), "Eval(undefined) into an int: no error")
		errs := p.Errors()
		assert.Empty(t, errs, "Errors() = %q; an exception in Eval is Eval's error, not the page's", errs)
	})

	t.Run("Clean", func(t *testing.T) {
		url := writePage(t, dir, "clean.html", `<!doctype html><title>clean</title>
<style>p { color: green }</style><p>fine</p>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
<script>console.log("just a log"); console.warn("just a warning")</script>`)
		p := open(t, ctx, b, url, 400, 300)
		errs := p.Errors()
		assert.Empty(t, errs, "Errors() = %q; want none", errs)
		for _, r := range p.Requests() {
			assert.False(t, !strings.HasPrefix(r, "file:") && !strings.HasPrefix(r, "data:"), "request to %s; want only file: and data: URLs", r)
		}
		r := p.Requests()
		assert.False(t, len(r) == 0 || r[0] != url, "Requests() = %q; want the page %s first", r, url)
	})

	errorPages := []struct {
		name, html string
		want       []string // each error, as substrings of it
	}{
		{"UncaughtException", `<!doctype html><script>throw new Error("boom-exception")</script>`,
			[]string{"exception: Uncaught Error: boom-exception"}},
		{"UnhandledRejection", `<!doctype html><script>Promise.reject(new Error("boom-rejected"))</script>`,
			[]string{"boom-rejected"}},
		{"ConsoleError", `<!doctype html><script>console.error("boom-console", 42)</script>`,
			[]string{"console.error: boom-console 42"}},
		{"ConsoleAssert", `<!doctype html><script>console.assert(1 === 2, "boom-assert")</script>`,
			[]string{"console.assert:", "boom-assert"}},
		{"MissingImage", `<!doctype html><img src="missing.png">`,
			[]string{"Failed to load resource", "missing.png"}},
		{"ExternalScript", `<!doctype html><script src="https://cdn.example.com/lib.js"></script>`,
			[]string{"Failed to load resource", "https://cdn.example.com/lib.js"}},
	}
	for _, tc := range errorPages {
		t.Run(tc.name, func(t *testing.T) {
			p := open(t, ctx, b, writePage(t, dir, tc.name+".html", tc.html), 400, 300)
			errs := p.Errors()
			require.Len(t, errs, 1, "Errors() = %q; want exactly one error", errs)
			for _, w := range tc.want {
				assert.Contains(t, errs[0], w, "Errors()[0] = %q; want it to contain %q", errs[0], w)
			}
		})
	}

	t.Run("HTTP", func(t *testing.T) {
		// A local server is reachable (only names are blocked), and its 404
		// for a resource is a failed load.
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/" {
				http.NotFound(w, r)
				return
			}
			// The page names its icon inline: otherwise Chromium may ask
			// the server for /favicon.ico, a second 404, depending on timing.
			fmt.Fprint(w, `<!doctype html><link rel="icon" href="data:,"><p id="v">served</p><img src="/gone.png">`)
		}))
		defer srv.Close()
		p := open(t, ctx, b, srv.URL+"/", 400, 300)
		var text string
		err := p.Eval(ctx, `document.getElementById("v").textContent`, &text)
		assert.False(t, err != nil || text != "served", "Eval = %q, %v; want served", text, err)
		errs := p.Errors()
		assert.False(t, len(errs) != 1 || !strings.Contains(errs[0], "404") || !strings.Contains(errs[0], "/gone.png"), "Errors() = %q; want one naming the 404 of /gone.png", errs)
	})

	t.Run("MissingPage", func(t *testing.T) {
		p, err := b.Open(ctx, "file://"+dir+"/no-such-page.html", 400, 300)
		if err == nil {
			p.Close()
		}
		require.Error(t, err, "Open of a missing file succeeded")
		assert.Contains(t, err.Error(), "ERR_FILE_NOT_FOUND", "Open of a missing file")
	})

	t.Run("LoadTime", func(t *testing.T) {
		// The load handler spins for 150 ms: the load time must include it.
		url := writePage(t, dir, "slow.html", `<!doctype html><script>
addEventListener("load", () => { const t = performance.now(); while (performance.now() - t < 150) {} })
</script>`)
		p := open(t, ctx, b, url, 400, 300)
		d := p.LoadTime()
		assert.GreaterOrEqual(t, d, 150*time.Millisecond, "LoadTime() must include the 150ms the load handler takes")
		assert.LessOrEqual(t, d, testTimeout, "LoadTime()")
		fast := open(t, ctx, b, writePage(t, dir, "fast.html", `<!doctype html><p>x</p>`), 400, 300)
		assert.Positive(t, fast.LoadTime(), "LoadTime() of a trivial page")
		assert.Less(t, fast.LoadTime(), d, "LoadTime() of a trivial page; want below the slow page's")
	})

	red := color.NRGBA{R: 255, A: 255}
	blue := color.NRGBA{B: 255, A: 255}
	// A red viewport-sized page with a blue band far below the viewport.
	tall := writePage(t, dir, "tall.html", `<!doctype html>
<style>html, body { margin: 0; background: #f00 } #band { position: absolute; top: 1400px; height: 100px; width: 100%; background: #00f }</style>
<div style="height: 1500px"></div><div id="band"></div>`)

	t.Run("Screenshot", func(t *testing.T) {
		p := open(t, ctx, b, tall, 320, 200)
		data, err := p.Screenshot(ctx)
		require.NoError(t, err)
		img, err := png.Decode(bytes.NewReader(data))
		require.NoError(t, err, "Screenshot is not a PNG")
		assert.Equal(t, image.Pt(320, 200), img.Bounds().Size(), "Screenshot size; want the 320x200 viewport")
		assert.Equal(t, color.Color(red), color.NRGBAModel.Convert(img.At(160, 100)), "Screenshot pixel (160,100); want red")
	})

	t.Run("ScreenshotFullPage", func(t *testing.T) {
		p := open(t, ctx, b, tall, 320, 200)
		data, err := p.ScreenshotFullPage(ctx)
		require.NoError(t, err)
		img, err := png.Decode(bytes.NewReader(data))
		require.NoError(t, err, "ScreenshotFullPage is not a PNG")
		assert.Equal(t, image.Pt(320, 1500), img.Bounds().Size(), "ScreenshotFullPage size; want the whole 320x1500 page")
		assert.Equal(t, color.Color(blue), color.NRGBAModel.Convert(img.At(160, 1450)), "ScreenshotFullPage pixel (160,1450); want the blue band")
	})
}
