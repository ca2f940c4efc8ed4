package browsertest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/netkit/netkit/internal/browser"
)

// fakeTB records what Require does instead of stopping the test.
type fakeTB struct {
	testing.TB
	skipped, failed string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Skipf(format string, args ...any) {
	f.skipped = fmt.Sprintf(format, args...)
}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = fmt.Sprintf(format, args...)
}

func TestRequire(t *testing.T) {
	bin := t.TempDir()
	t.Setenv("PATH", bin)
	t.Setenv(browser.EnvPath, "")

	t.Setenv(EnvRequire, "")
	f := &fakeTB{TB: t}
	if p := Require(f); p != "" || f.failed != "" || !strings.HasPrefix(f.skipped, "BROWSER TEST SKIPPED: ") ||
		!strings.Contains(f.skipped, "install chromium") {
		t.Errorf("no browser: Require = %q, skipped %q, failed %q; want a loud skip", p, f.skipped, f.failed)
	}

	t.Setenv(EnvRequire, "1")
	f = &fakeTB{TB: t}
	if p := Require(f); p != "" || f.skipped != "" || !strings.Contains(f.failed, EnvRequire+"=1") {
		t.Errorf("no browser, $%s=1: Require = %q, skipped %q, failed %q; want a failure", EnvRequire, p, f.skipped, f.failed)
	}

	want := filepath.Join(bin, "chromium")
	if err := os.WriteFile(want, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	f = &fakeTB{TB: t}
	if p := Require(f); p != want || f.skipped != "" || f.failed != "" {
		t.Errorf("with a browser: Require = %q, skipped %q, failed %q; want %q", p, f.skipped, f.failed, want)
	}
}
