// Package browsertest finds a browser for tests that need one, or skips
// them loudly.
package browsertest

import (
	"os"
	"testing"

	"github.com/netkit/netkit/internal/browser"
)

// EnvRequire is the environment variable that, set to 1 (as CI sets it),
// turns a missing browser from a skipped test into a failed one.
const EnvRequire = "NETKIT_REQUIRE_BROWSER"

// Require returns the path of a Chromium or Chrome binary (see
// browser.Find). When there is none it skips the test with a message that
// starts "BROWSER TEST SKIPPED" — or, when $NETKIT_REQUIRE_BROWSER is 1,
// fails it.
func Require(t testing.TB) string {
	t.Helper()
	path, err := browser.Find()
	if err == nil {
		return path
	}
	if os.Getenv(EnvRequire) == "1" {
		t.Fatalf("browser test cannot run and $%s=1: %v; install chromium (apt-get install chromium) or set $%s",
			EnvRequire, err, browser.EnvPath)
		return ""
	}
	t.Skipf("BROWSER TEST SKIPPED: %v; install chromium (apt-get install chromium) or set $%s to a Chrome binary",
		err, browser.EnvPath)
	return ""
}
