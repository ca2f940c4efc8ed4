package mqtt_test

// A test-only harness that runs a mosquitto broker per test, for the
// interoperability tests (interop_linux_test.go). It is Linux-only because
// it asks the kernel to kill the broker when the test binary dies
// (Pdeathsig), so a test killed by its timeout leaves no broker behind.

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const (
	// envMosquitto names the broker binary to use instead of searching for
	// one. When it is set and names no executable file, the broker counts as
	// missing (the tests skip), which is how to try the skip path on a
	// machine that has mosquitto.
	envMosquitto = "NETKIT_MOSQUITTO"
	// envRequireMosquitto, set to 1 (as .ci/run sets it), turns a missing
	// broker or client from a skipped test into a failed one.
	envRequireMosquitto = "NETKIT_REQUIRE_MOSQUITTO"

	installHint = "apt-get install mosquitto mosquitto-clients"

	brokerStartTimeout = 5 * time.Second
	brokerStartTries   = 5
)

// errNoMosquitto reports that no mosquitto binary was found.
var errNoMosquitto = errors.New("mosquitto not found")

// findMosquitto returns the path of the mosquitto broker: $NETKIT_MOSQUITTO
// when set, else the first found in PATH, /usr/sbin and /usr/local/sbin
// (Debian installs it in /usr/sbin, outside a user's PATH).
func findMosquitto() (string, error) {
	if p := os.Getenv(envMosquitto); p != "" {
		if isExecutable(p) {
			return p, nil
		}
		return "", fmt.Errorf("%w: $%s=%q is not an executable file", errNoMosquitto, envMosquitto, p)
	}
	if p, err := exec.LookPath("mosquitto"); err == nil {
		return p, nil
	}
	for _, dir := range []string{"/usr/sbin", "/usr/local/sbin"} {
		if p := filepath.Join(dir, "mosquitto"); isExecutable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w in PATH, /usr/sbin or /usr/local/sbin", errNoMosquitto)
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// skipOrFail skips the test with a message that starts "MQTT INTEROP TEST
// SKIPPED" and says how to get what is missing (fix) — or, when
// $NETKIT_REQUIRE_MOSQUITTO is 1, fails it.
func skipOrFail(t testing.TB, err error, fix string) {
	t.Helper()
	require.NotEqual(t, "1", os.Getenv(envRequireMosquitto), "MQTT interop test cannot run and $%s=1: %v; %s", envRequireMosquitto, err, fix)
	t.Skipf("MQTT INTEROP TEST SKIPPED: %v; %s", err, fix)
}

// requireMosquitto returns the broker's path or skips (or fails) the test.
func requireMosquitto(t testing.TB) string {
	t.Helper()
	p, err := findMosquitto()
	if err != nil {
		skipOrFail(t, err, "install it ("+installHint+") or set $"+envMosquitto+" to a mosquitto binary")
	}
	return p
}

// requireClient returns the path of mosquitto_pub or mosquitto_sub, found
// in PATH, or skips (or fails) the test.
func requireClient(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		skipOrFail(t, fmt.Errorf("%s not found: %w", name, err), "install it ("+installHint+")")
	}
	return p
}

// A broker is one mosquitto process listening on a loopback port, started
// for one test and killed when the test ends.
type broker struct {
	Addr string // host:port of its listener
	Port int
	log  *syncBuffer
}

// startBroker starts a mosquitto with a temporary configuration (plus the
// lines in extra) on a free loopback port and waits (at most
// brokerStartTimeout) until it accepts connections. The broker is killed, and waited for, when t ends; its log is
// added to the test's log if t failed. It skips the test when there is no
// mosquitto (see requireMosquitto).
func startBroker(t testing.TB, extra ...string) *broker {
	t.Helper()
	bin := requireMosquitto(t)
	var lastErr error
	for try := 0; try < brokerStartTries; try++ {
		b, err := tryStartBroker(t, bin, extra)
		if err == nil {
			return b
		}
		lastErr = err
		if !errors.Is(err, errAddrInUse) {
			break
		}
		t.Logf("mosquitto: port taken between probe and bind, retrying: %v", err)
	}
	t.Fatalf("mosquitto did not start: %v", lastErr)
	return nil
}

var errAddrInUse = errors.New("address already in use")

// pickPort chooses the broker's port; a test replaces it to make the first
// bind fail.
var pickPort = freePort

// freePort returns a loopback TCP port that was free a moment ago. Another
// process may take it before mosquitto binds it; startBroker retries then.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func tryStartBroker(t testing.TB, bin string, extra []string) (*broker, error) {
	port, err := pickPort()
	if err != nil {
		return nil, err
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "mosquitto.conf")
	lines := []string{
		"listener " + strconv.Itoa(port) + " 127.0.0.1",
		"allow_anonymous true",
		"persistence false",
		"log_dest stderr",
		"log_type all",
		"log_timestamp false",
		// Announced in CONNACK as the Maximum Packet Size property (v5).
		"max_packet_size 1048576",
	}
	lines = append(lines, extra...)
	if err := os.WriteFile(conf, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		return nil, err
	}

	log := &syncBuffer{running: make(chan struct{})}
	cmd := exec.Command(bin, "-c", conf)
	cmd.Dir = dir
	cmd.Stdout = log
	cmd.Stderr = log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	b := &broker{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Port: port, log: log}
	stop := func() {
		cmd.Process.Kill()
		<-exited
	}
	// mosquitto logs "running" once every listener is bound; a failed bind
	// makes it exit instead. Waiting for the line (not only for a successful
	// dial) makes sure the listener is this broker's and not another test's.
	deadline := time.NewTimer(brokerStartTimeout)
	defer deadline.Stop()
	select {
	case <-log.running:
	case err := <-exited:
		out := log.String()
		if strings.Contains(out, "Address already in use") {
			return nil, fmt.Errorf("port %d: %w", port, errAddrInUse)
		}
		return nil, fmt.Errorf("mosquitto exited (%v) before it was running; its log:\n%s", err, out)
	case <-deadline.C:
		stop()
		return nil, fmt.Errorf("mosquitto not running after %v; its log:\n%s", brokerStartTimeout, log.String())
	}
	for {
		c, err := net.DialTimeout("tcp", b.Addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		select {
		case <-deadline.C:
			stop()
			return nil, fmt.Errorf("mosquitto does not accept on %s after %v: %v; its log:\n%s", b.Addr, brokerStartTimeout, err, log.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			t.Logf("mosquitto log (%s):\n%s", b.Addr, log.String())
		}
	})
	return b, nil
}

// Log returns what the broker has logged so far.
func (b *broker) Log() string { return b.log.String() }

// WaitLog reports whether the broker's log contains s within timeout. The
// log reaches us through a pipe, after the packets the broker sends.
func (b *broker) WaitLog(s string, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for !strings.Contains(b.log.String(), s) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

// A syncBuffer collects a process's output for several goroutines and
// closes running when the output first contains mosquitto's "running" line.
type syncBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	running chan struct{}
	seen    bool
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf.Write(p)
	if !s.seen && bytes.Contains(s.buf.Bytes(), []byte(" running\n")) {
		s.seen = true
		close(s.running)
	}
	return len(p), nil
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}
