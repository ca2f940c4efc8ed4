package browsertest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/netkit/netkit/internal/browser"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	p := Require(f)
	assert.Empty(t, p, "no browser: Require")
	assert.Empty(t, f.failed, "no browser: want a skip, not a failure")
	assert.True(t, strings.HasPrefix(f.skipped, "BROWSER TEST SKIPPED: "), "no browser: skipped %q; want a loud skip", f.skipped)
	assert.Contains(t, f.skipped, "install chromium", "no browser: the skip says how to install a browser")

	t.Setenv(EnvRequire, "1")
	f = &fakeTB{TB: t}
	p = Require(f)
	assert.Empty(t, p, "no browser, $%s=1: Require", EnvRequire)
	assert.Empty(t, f.skipped, "no browser, $%s=1: want a failure, not a skip", EnvRequire)
	assert.Contains(t, f.failed, EnvRequire+"=1", "no browser, $%s=1: the failure names the variable", EnvRequire)

	want := filepath.Join(bin, "chromium")
	require.NoError(t, os.WriteFile(want, []byte("#!/bin/sh\n"), 0o755))
	f = &fakeTB{TB: t}
	assert.Equal(t, want, Require(f), "with a browser: Require")
	assert.Empty(t, f.skipped, "with a browser: skipped")
	assert.Empty(t, f.failed, "with a browser: failed")
}
