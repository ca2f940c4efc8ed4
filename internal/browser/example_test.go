package browser_test

import (
	"context"
	"testing"
	"time"

	"github.com/netkit/netkit/internal/browser"
	"github.com/netkit/netkit/internal/browser/browsertest"
)

// A test of a generated page: it loads without errors, its SVG holds the
// expected frames, and a screenshot is kept for the docs.
func Example() {
	var t *testing.T // the test's
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := browser.Start(ctx, browsertest.Require(t))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p, err := b.Open(ctx, "file:///tmp/flame.html", 1200, 800)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if errs := p.Errors(); len(errs) > 0 {
		t.Errorf("page errors: %q", errs)
	}
	if p.LoadTime() > time.Second {
		t.Errorf("page loaded in %v; want under 1s", p.LoadTime())
	}
	var frames int
	if err := p.Eval(ctx, `document.querySelectorAll("svg g.frame").length`, &frames); err != nil {
		t.Fatal(err)
	}
	png, err := p.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_ = png // os.WriteFile("docs/flame.png", png, 0o644)
}
