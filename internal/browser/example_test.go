package browser_test

import (
	"context"
	"testing"
	"time"

	"github.com/netkit/netkit/internal/browser"
	"github.com/netkit/netkit/internal/browser/browsertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A test of a generated page: it loads without errors, its SVG holds the
// expected frames, and a screenshot is kept for the docs.
func Example() {
	var t *testing.T // the test's
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := browser.Start(ctx, browsertest.Require(t))
	require.NoError(t, err)
	defer b.Close()
	p, err := b.Open(ctx, "file:///tmp/flame.html", 1200, 800)
	require.NoError(t, err)
	defer p.Close()
	assert.Empty(t, p.Errors(), "page errors")
	assert.LessOrEqual(t, p.LoadTime(), time.Second, "page load time")
	var frames int
	require.NoError(t, p.Eval(ctx, `document.querySelectorAll("svg g.frame").length`, &frames))
	png, err := p.Screenshot(ctx)
	require.NoError(t, err)
	_ = png // os.WriteFile("docs/flame.png", png, 0o644)
}
