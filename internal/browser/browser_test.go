package browser_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/netkit/netkit/internal/browser"
	"github.com/netkit/netkit/internal/browser/browsertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testTimeout bounds every browser test, so a hung browser fails the test
// instead of hanging CI.
const testTimeout = 60 * time.Second

// start starts a browser for the test, or skips it loudly when there is
// none, and closes the browser when the test ends.
func start(t *testing.T) (*browser.Browser, context.Context) {
	t.Helper()
	path := browsertest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	t0 := time.Now()
	b, err := browser.Start(ctx, path)
	require.NoError(t, err)
	t.Logf("browser started in %v", time.Since(t0).Round(time.Millisecond))
	t.Cleanup(func() {
		assert.NoError(t, b.Close())
	})
	return b, ctx
}

// writePage writes html to name in dir and returns its file: URL.
func writePage(t *testing.T, dir, name, html string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte(html), 0o644))
	return "file://" + path
}

func TestFind(t *testing.T) {
	exe := func(dir, name string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755))
		return p
	}
	bin := t.TempDir()
	t.Setenv("PATH", bin)
	t.Setenv(browser.EnvPath, "")

	p, err := browser.Find()
	assert.ErrorIs(t, err, browser.ErrNotFound, "empty PATH: Find() = %q", p)

	exe(bin, "headless_shell")
	want := exe(bin, "chromium-browser") // before headless_shell in the search order
	p, err = browser.Find()
	assert.NoError(t, err)
	assert.Equal(t, want, p, "Find()")

	other := exe(t.TempDir(), "my-chrome")
	t.Setenv(browser.EnvPath, other)
	p, err = browser.Find()
	assert.NoError(t, err, "$%s set", browser.EnvPath)
	assert.Equal(t, other, p, "$%s set: Find()", browser.EnvPath)

	missing := filepath.Join(bin, "no-such-browser")
	t.Setenv(browser.EnvPath, missing)
	p, err = browser.Find()
	require.ErrorIs(t, err, browser.ErrNotFound, "$%s names a missing file: Find() = %q; want ErrNotFound naming it (not a fallback to PATH)", browser.EnvPath, p)
	assert.Contains(t, err.Error(), missing, "$%s names a missing file: want ErrNotFound naming it", browser.EnvPath)
}

func TestStartFailureShowsOutput(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "fake-chrome")
	require.NoError(t, os.WriteFile(fake, []byte("#!/bin/sh\necho 'kaput: cannot start' >&2\nexit 3\n"), 0o755))
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	b, err := browser.Start(ctx, fake)
	if err == nil {
		b.Close()
	}
	require.Error(t, err, "Start of a binary that exits at once succeeded")
	assert.Contains(t, err.Error(), "kaput: cannot start", "Start error does not show the browser's output")
}
