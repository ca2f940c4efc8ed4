package mqtt_test

import (
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBrokerHarness checks the harness itself, without the codec: a broker
// started by startBroker answers a hand-built MQTT 3.1.1 CONNECT with a
// CONNACK that accepts it, and two brokers started at once get two ports.
func TestBrokerHarness(t *testing.T) {
	t.Parallel()
	b := startBroker(t)
	b2 := startBroker(t)
	require.NotEqual(t, b2.Addr, b.Addr, "two brokers on one address %s", b.Addr)
	conn, err := net.DialTimeout("tcp", b.Addr, 5*time.Second)
	require.NoError(t, err)
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	connect := []byte{
		0x10, 14, // CONNECT, remaining length
		0, 4, 'M', 'Q', 'T', 'T', 4, // protocol name, level 4 (3.1.1)
		0x02,  // flags: clean session
		0, 60, // keep alive
		0, 2, 'h', 'i', // client identifier
	}
	_, err = conn.Write(connect)
	require.NoError(t, err)
	got := make([]byte, 4)
	_, err = io.ReadFull(conn, got)
	require.NoError(t, err, "reading CONNACK")
	require.Equal(t, []byte{0x20, 2, 0, 0}, got, "CONNACK")
	assert.True(t, b.WaitLog("New client connected from 127.0.0.1", 2*time.Second), "broker log does not show the connection:\n%s", b.Log())
}

// TestBrokerPortTaken: when the chosen port is taken before mosquitto binds
// it, startBroker notices (mosquitto exits, never "running") and retries on
// another port. Not parallel: it replaces pickPort.
func TestBrokerPortTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	taken := ln.Addr().(*net.TCPAddr).Port
	calls := 0
	pickPort = func() (int, error) {
		calls++
		if calls == 1 {
			return taken, nil
		}
		return freePort()
	}
	defer func() { pickPort = freePort }()
	b := startBroker(t)
	require.Equal(t, 2, calls, "port picks: want a second one")
	require.NotEqual(t, taken, b.Port, "the broker's port is the taken one")
}

// TestFindMosquittoOverride: $NETKIT_MOSQUITTO wins over PATH and /usr/sbin,
// and a path that is not an executable counts as no broker.
func TestFindMosquittoOverride(t *testing.T) {
	t.Setenv(envMosquitto, "/nonexistent/mosquitto")
	p, err := findMosquitto()
	require.ErrorIs(t, err, errNoMosquitto, "findMosquitto() = %q", p)
	self, err := os.Executable()
	require.NoError(t, err)
	t.Setenv(envMosquitto, self)
	p, err = findMosquitto()
	require.NoError(t, err)
	require.Equal(t, self, p)
}

// TestBrokerMissing runs TestBrokerHarness in a child process with no
// broker: it must skip, loudly, and fail when $NETKIT_REQUIRE_MOSQUITTO=1.
func TestBrokerMissing(t *testing.T) {
	if os.Getenv("NETKIT_MQTT_CHILD") == "1" {
		t.Skip("in the child")
	}
	t.Parallel()
	self, err := os.Executable()
	require.NoError(t, err)
	run := func(require string) (string, error) {
		cmd := exec.Command(self, "-test.run=^TestBrokerHarness$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "NETKIT_MQTT_CHILD=1",
			envMosquitto+"=/nonexistent/mosquitto", envRequireMosquitto+"="+require)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run("")
	assert.False(t, err != nil || !strings.Contains(out, "--- SKIP: TestBrokerHarness") ||
		!strings.Contains(out, "MQTT INTEROP TEST SKIPPED") || !strings.Contains(out, installHint), "without a broker: err %v, output:\n%s\nwant a skip that says MQTT INTEROP TEST SKIPPED and %q", err, out, installHint)
	out, err = run("1")
	var exit *exec.ExitError
	assert.False(t, !errors.As(err, &exit) || !strings.Contains(out, "--- FAIL: TestBrokerHarness") ||
		!strings.Contains(out, envRequireMosquitto+"=1"), "without a broker and %s=1: err %v, output:\n%s\nwant a failure", envRequireMosquitto, err, out)
}
