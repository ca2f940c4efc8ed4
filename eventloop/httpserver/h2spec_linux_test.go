package httpserver_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/eventloop/httpserver"
)

// h2specPath finds the h2spec binary: $H2SPEC, else the version the
// peers module pins as a tool (built by the go command, with the module
// proxy on a first run), else PATH.
func h2specPath() string {
	if p := os.Getenv("H2SPEC"); p != "" {
		return p
	}
	out, err := exec.Command("go", "-C", filepath.Join("..", "..", "internal", "peers"), "tool", "-n", "h2spec").Output()
	if p := strings.TrimSpace(string(out)); err == nil && p != "" {
		return p
	}
	if p, err := exec.LookPath("h2spec"); err == nil {
		return p
	}
	return ""
}

// TestH2Spec runs h2spec, HTTP/2's public conformance suite, against the
// h2c server: every case must pass.
func TestH2Spec(t *testing.T) {
	bin := h2specPath()
	if bin == "" {
		if os.Getenv("NETKIT_REQUIRE_CLIENTS") != "" {
			t.Fatal("h2spec could not be built (go -C internal/peers tool h2spec) nor found")
		}
		t.Skip("SKIP LOUDLY: h2spec could not be built (go -C internal/peers tool h2spec) nor found on PATH")
	}
	_, addr := start(t, h2Handler, httpserver.WithH2C())
	_, port, _ := net.SplitHostPort(addr)
	args := []string{"-h", "127.0.0.1", "-p", port, "-o", "5"}
	if os.Getenv("H2SPEC_STRICT") != "" {
		args = append(args, "-S") // the strict cases too (SHOULDs), by hand
	}
	if only := os.Getenv("H2SPEC_ONLY"); only != "" {
		args = append(args, "-v", only) // one section, verbose, by hand
	}
	out, err := exec.Command(bin, args...).CombinedOutput()
	summary := regexp.MustCompile(`(\d+) tests, (\d+) passed, (\d+) skipped, (\d+) failed`).FindSubmatch(out)
	require.NotNil(t, summary, "no summary line from h2spec:\n%s", out)
	t.Logf("h2spec: %s", summary[0])
	failed, _ := strconv.Atoi(string(summary[4]))
	if failed > 0 || err != nil {
		t.Fatalf("h2spec: %s\n%s", summary[0], out)
	}
}
