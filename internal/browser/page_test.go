package browser_test

import (
	"bytes"
	"context"
	"fmt"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/netkit/netkit/internal/browser"
)

// open opens url in b and closes the page when the test ends.
func open(t *testing.T, ctx context.Context, b *browser.Browser, url string, width, height int) *browser.Page {
	t.Helper()
	t0 := time.Now()
	p, err := b.Open(ctx, url, width, height)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("opened in %v (load time %v)", time.Since(t0).Round(time.Millisecond), p.LoadTime())
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
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
		if err := p.Eval(ctx, `document.getElementById("v").textContent`, &text); err != nil || text != "forty-two" {
			t.Errorf("Eval(textContent) = %q, %v; want forty-two", text, err)
		}
		var got struct {
			Title string `json:"title"`
			N     int    `json:"n"`
		}
		js := `({title: document.title, n: +document.getElementById("v").dataset.n})`
		if err := p.Eval(ctx, js, &got); err != nil || got.Title != "t-42" || got.N != 42 {
			t.Errorf("Eval(object) = %+v, %v; want {t-42 42}", got, err)
		}
		var n int
		if err := p.Eval(ctx, `new Promise(r => setTimeout(() => r(7), 10))`, &n); err != nil || n != 7 {
			t.Errorf("Eval(promise) = %d, %v; want 7", n, err)
		}
		err := p.Eval(ctx, `(() => { throw new Error("eval-boom") })()`, nil)
		if err == nil || !strings.Contains(err.Error(), "eval-boom") {
			t.Errorf("Eval of a throwing expression: err = %v; want one naming eval-boom", err)
		}
		if err := p.Eval(ctx, `undefined`, &n); err == nil {
			t.Errorf("Eval(undefined) into an int: no error")
		}
		if errs := p.Errors(); len(errs) != 0 {
			t.Errorf("Errors() = %q; an exception in Eval is Eval's error, not the page's", errs)
		}
	})

	t.Run("Clean", func(t *testing.T) {
		url := writePage(t, dir, "clean.html", `<!doctype html><title>clean</title>
<style>p { color: green }</style><p>fine</p>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
<script>console.log("just a log"); console.warn("just a warning")</script>`)
		p := open(t, ctx, b, url, 400, 300)
		if errs := p.Errors(); len(errs) != 0 {
			t.Errorf("Errors() = %q; want none", errs)
		}
		for _, r := range p.Requests() {
			if !strings.HasPrefix(r, "file:") && !strings.HasPrefix(r, "data:") {
				t.Errorf("request to %s; want only file: and data: URLs", r)
			}
		}
		if r := p.Requests(); len(r) == 0 || r[0] != url {
			t.Errorf("Requests() = %q; want the page %s first", r, url)
		}
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
			if len(errs) != 1 {
				t.Fatalf("Errors() = %q; want exactly one error", errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs[0], w) {
					t.Errorf("Errors()[0] = %q; want it to contain %q", errs[0], w)
				}
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
		if err := p.Eval(ctx, `document.getElementById("v").textContent`, &text); err != nil || text != "served" {
			t.Errorf("Eval = %q, %v; want served", text, err)
		}
		errs := p.Errors()
		if len(errs) != 1 || !strings.Contains(errs[0], "404") || !strings.Contains(errs[0], "/gone.png") {
			t.Errorf("Errors() = %q; want one naming the 404 of /gone.png", errs)
		}
	})

	t.Run("MissingPage", func(t *testing.T) {
		p, err := b.Open(ctx, "file://"+dir+"/no-such-page.html", 400, 300)
		if err == nil {
			p.Close()
			t.Fatal("Open of a missing file succeeded")
		}
		if !strings.Contains(err.Error(), "ERR_FILE_NOT_FOUND") {
			t.Errorf("Open of a missing file: %v; want ERR_FILE_NOT_FOUND", err)
		}
	})

	t.Run("LoadTime", func(t *testing.T) {
		// The load handler spins for 150 ms: the load time must include it.
		url := writePage(t, dir, "slow.html", `<!doctype html><script>
addEventListener("load", () => { const t = performance.now(); while (performance.now() - t < 150) {} })
</script>`)
		p := open(t, ctx, b, url, 400, 300)
		if d := p.LoadTime(); d < 150*time.Millisecond || d > testTimeout {
			t.Errorf("LoadTime() = %v; want at least the 150ms the load handler takes", d)
		}
		fast := open(t, ctx, b, writePage(t, dir, "fast.html", `<!doctype html><p>x</p>`), 400, 300)
		if d := fast.LoadTime(); d <= 0 || d >= p.LoadTime() {
			t.Errorf("LoadTime() of a trivial page = %v; want > 0 and below the slow page's %v", d, p.LoadTime())
		}
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
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("Screenshot is not a PNG: %v", err)
		}
		if s := img.Bounds().Size(); s.X != 320 || s.Y != 200 {
			t.Errorf("Screenshot is %dx%d; want the 320x200 viewport", s.X, s.Y)
		}
		if c := color.NRGBAModel.Convert(img.At(160, 100)); c != red {
			t.Errorf("Screenshot pixel (160,100) = %v; want red %v", c, red)
		}
	})

	t.Run("ScreenshotFullPage", func(t *testing.T) {
		p := open(t, ctx, b, tall, 320, 200)
		data, err := p.ScreenshotFullPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("ScreenshotFullPage is not a PNG: %v", err)
		}
		if s := img.Bounds().Size(); s.X != 320 || s.Y != 1500 {
			t.Errorf("ScreenshotFullPage is %dx%d; want the whole 320x1500 page", s.X, s.Y)
		}
		if c := color.NRGBAModel.Convert(img.At(160, 1450)); c != blue {
			t.Errorf("ScreenshotFullPage pixel (160,1450) = %v; want the blue band %v", c, blue)
		}
	})
}
