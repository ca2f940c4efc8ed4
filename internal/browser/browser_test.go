package browser_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/netkit/netkit/internal/browser"
	"github.com/netkit/netkit/internal/browser/browsertest"
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
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("browser started in %v", time.Since(t0).Round(time.Millisecond))
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Error(err)
		}
	})
	return b, ctx
}

// writePage writes html to name in dir and returns its file: URL.
func writePage(t *testing.T, dir, name, html string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	return "file://" + path
}

func TestFind(t *testing.T) {
	exe := func(dir, name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bin := t.TempDir()
	t.Setenv("PATH", bin)
	t.Setenv(browser.EnvPath, "")

	if p, err := browser.Find(); !errors.Is(err, browser.ErrNotFound) {
		t.Errorf("empty PATH: Find() = %q, %v; want ErrNotFound", p, err)
	}

	exe(bin, "headless_shell")
	want := exe(bin, "chromium-browser") // before headless_shell in the search order
	if p, err := browser.Find(); p != want || err != nil {
		t.Errorf("Find() = %q, %v; want %q", p, err, want)
	}

	other := exe(t.TempDir(), "my-chrome")
	t.Setenv(browser.EnvPath, other)
	if p, err := browser.Find(); p != other || err != nil {
		t.Errorf("$%s set: Find() = %q, %v; want %q", browser.EnvPath, p, err, other)
	}

	missing := filepath.Join(bin, "no-such-browser")
	t.Setenv(browser.EnvPath, missing)
	p, err := browser.Find()
	if !errors.Is(err, browser.ErrNotFound) || !strings.Contains(err.Error(), missing) {
		t.Errorf("$%s names a missing file: Find() = %q, %v; want ErrNotFound naming it (not a fallback to PATH)", browser.EnvPath, p, err)
	}
}

func TestStartFailureShowsOutput(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "fake-chrome")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'kaput: cannot start' >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	b, err := browser.Start(ctx, fake)
	if err == nil {
		b.Close()
		t.Fatal("Start of a binary that exits at once succeeded")
	}
	if !strings.Contains(err.Error(), "kaput: cannot start") {
		t.Errorf("Start error does not show the browser's output: %v", err)
	}
}
