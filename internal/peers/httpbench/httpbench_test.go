package httpbench

import (
	"fmt"
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

// TestMain lets the runner re-execute the test binary as httpbench (it
// starts servers with os.Executable()).
func TestMain(m *testing.M) {
	if ChildArgs() {
		if err := Main(os.Stdout, os.Stderr, os.Args[1:]); err != nil {
			fmt.Fprintln(os.Stderr, "httpbench:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const wrkOut = `Running 2s test @ http://127.0.0.1:40000/plaintext
  1 threads and 256 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     4.11ms    1.02ms  22.03ms   90.12%
    Req/Sec    62.43k     3.01k   66.10k    80.00%
  Latency Distribution
     50%    3.95ms
     75%    4.20ms
     90%    4.71ms
     99%  812.00us
  124250 requests in 2.00s, 17.06MB read
  Socket errors: connect 0, read 2, write 0, timeout 1
  Non-2xx or 3xx responses: 7
Requests/sec:  62083.41
Transfer/sec:      8.52MB
`

// TestParseWrkZeroP99: wrk can print a 99th percentile of 0 in pipelined
// runs; the maximum then stands in, marked as an upper bound.
func TestParseWrkZeroP99(t *testing.T) {
	r, err := parseWrk(strings.Replace(wrkOut, "99%  812.00us", "99%    0.00us", 1))
	require.NoError(t, err)
	require.Equal(t, float64(22030), r.P99us, "p99 %v µs (is max %v), want wrk's max 22030 µs marked", r.P99us, r.P99IsMax)
	require.True(t, r.P99IsMax, "p99 %v µs (is max %v), want wrk's max 22030 µs marked", r.P99us, r.P99IsMax)
	got := p99Cell(Summary{P99us: r.P99us, P99IsMax: true})
	require.True(t, strings.HasPrefix(got, "≤ 22.03 ms"), "cell %q", got)
}

func TestParseWrk(t *testing.T) {
	r, err := parseWrk(wrkOut)
	require.NoError(t, err)
	want := WrkResult{Requests: 124250, Seconds: 2, RPS: 62083.41, P50us: 3950, P99us: 812, MaxUs: 22030, Non2xx: 7, SocketErrors: 3}
	r.Raw = ""
	assert.Equal(t, want, r, "parseWrk")
	if err := r.Valid(); assert.Error(t, err, "Valid(), want both kinds of error") {
		assert.Contains(t, err.Error(), "non-2xx", "Valid()")
		assert.Contains(t, err.Error(), "3 socket errors", "Valid()")
	}
	clean := strings.NewReplacer("read 2", "read 0", "timeout 1", "timeout 0", "  Non-2xx or 3xx responses: 7\n", "").Replace(wrkOut)
	r, err = parseWrk(clean)
	require.NoError(t, err)
	assert.NoError(t, r.Valid(), "Valid() of a clean run")
}

func TestParseWrkIncomplete(t *testing.T) {
	for name, out := range map[string]string{
		"no rps":     strings.Replace(wrkOut, "Requests/sec:", "Requests:", 1),
		"no latency": strings.Replace(wrkOut, "  Latency Distribution\n", "", 1),
		"bad unit":   strings.Replace(wrkOut, "812.00us", "812.00ns", 1),
		"empty":      "",
	} {
		_, err := parseWrk(out)
		assert.Error(t, err, "%s: parseWrk succeeded", name)
	}
}

func TestWrkArgs(t *testing.T) {
	got := strings.Join(wrkArgs("http://a/plaintext", 256, 2*time.Second, "/tmp/p.lua", 16), " ")
	want := "-t1 -c256 -d2s --latency -s /tmp/p.lua http://a/plaintext -- 16"
	assert.Equal(t, want, got, "wrkArgs")
	got = strings.Join(wrkArgs("http://a/plaintext", 256, 1500*time.Millisecond, "", 1), " ")
	assert.Equal(t, "-t1 -c256 -d1s --latency -H Accept: "+acceptHeader+" -H Connection: keep-alive http://a/plaintext", got, "wrkArgs")
}

// TestServersAnswer starts every server in process and checks its
// plaintext answers as the runner does before measuring.
func TestServersAnswer(t *testing.T) {
	for _, impl := range Servers() {
		t.Run(impl, func(t *testing.T) {
			srv, err := registry.Start(impl, "127.0.0.1:0")
			require.NoError(t, err)
			defer srv.Stop()
			require.NoError(t, checkServer(srv.Addr))
		})
	}
}

// TestCheckServerRefuses checks that checkServer fails on wrong answers.
func TestCheckServerRefuses(t *testing.T) {
	const date = "Date: Mon, 02 Jan 2006 15:04:05 GMT\r\n"
	for name, resp := range map[string]string{
		"status":  "HTTP/1.1 404 Not Found\r\nServer: x\r\n" + date + "Content-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, World!",
		"body":    "HTTP/1.1 200 OK\r\nServer: x\r\n" + date + "Content-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, world!",
		"type":    "HTTP/1.1 200 OK\r\nServer: x\r\n" + date + "Content-Type: text/html\r\nContent-Length: 13\r\n\r\nHello, World!",
		"server":  "HTTP/1.1 200 OK\r\n" + date + "Content-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, World!",
		"date":    "HTTP/1.1 200 OK\r\nServer: x\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, World!",
		"closing": "HTTP/1.1 200 OK\r\nServer: x\r\n" + date + "Connection: close\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, World!",
	} {
		t.Run(name, func(t *testing.T) {
			addr := fakeServer(t, func(c net.Conn) {
				b := make([]byte, 4096)
				for {
					if _, err := c.Read(b); err != nil {
						return
					}
					io.WriteString(c, resp)
				}
			})
			require.Error(t, checkServer(addr), "checkServer accepted a wrong answer")
		})
	}
}

// TestRunSmoke runs the whole command as make bench-http SMOKE=1 does, if
// wrk is installed.
func TestRunSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	if _, err := lookWrk(); err != nil {
		t.Skip(err)
	}
	if _, err := exec.LookPath("taskset"); err != nil {
		t.Skip(err)
	}
	var out, errb strings.Builder
	json := t.TempDir() + "/r.json"
	err := Main(&out, &errb, []string{"run", "-smoke", "-scenarios", "plaintext-pipelined16,idle10k,latency-pipelined16", "-json", json})
	require.NoError(t, err, "run\n%s", errb.String())
	for _, impl := range Servers() {
		assert.Contains(t, out.String(), "| plaintext-pipelined16 | "+impl+" | 256 | 16 |", "no row for %s in\n%s", impl, out.String())
		assert.Contains(t, out.String(), "| idle10k (idle) | "+impl+" | 10000 | – |", "no row for %s in\n%s", impl, out.String())
		assert.Contains(t, out.String(), "| latency-pipelined16 (gen) | "+impl+" | 256 | 16 |", "no row for %s in\n%s", impl, out.String())
	}
	assert.FileExists(t, json)
}

func TestWrkMissing(t *testing.T) {
	t.Setenv("WRK", "")
	t.Setenv("PATH", t.TempDir())
	old := debianWrk
	debianWrk = "/nonexistent/wrk"
	defer func() { debianWrk = old }()
	var out, errb strings.Builder
	err := Main(&out, &errb, []string{"run", "-smoke"})
	require.Error(t, err, "run without wrk: err %v, stderr %q", err, errb.String())
	require.Contains(t, errb.String(), "wrk not found", "run without wrk: err %v, stderr %q", err, errb.String())
}

func TestResponseLen(t *testing.T) {
	const ok = "HTTP/1.1 200 OK\r\ncontent-length: 5\r\nServer: x\r\n\r\nhello"
	for _, tc := range []struct {
		name string
		in   string
		n    int
		bad  bool
	}{
		{"whole", ok, len(ok), false},
		{"two", ok + ok, len(ok), false},
		{"body short", ok[:len(ok)-1], 0, false},
		{"header short", ok[:20], 0, false},
		{"status", strings.Replace(ok, "200 OK", "503 Busy", 1), 0, true},
		{"no length", strings.Replace(ok, "content-length: 5\r\n", "", 1), 0, true},
		{"bad length", strings.Replace(ok, ": 5", ": -5", 1), 0, true},
		{"huge header", "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", 9<<10), 0, true},
	} {
		n, err := responseLen([]byte(tc.in))
		if tc.bad {
			assert.Error(t, err, tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.n, n, tc.name)
	}
}

// TestGenerate loads an in-process netkit server with the latency
// generator, pipelined, and then a server that answers 503, which must
// count as errors.
func TestGenerate(t *testing.T) {
	srv, err := registry.Start("netkit", "127.0.0.1:0")
	require.NoError(t, err)
	defer srv.Stop()
	r, err := generate(t.Context(), genConfig{addr: srv.Addr, path: Path, conns: 4, depth: 8, duration: 200 * time.Millisecond})
	require.NoError(t, err)
	require.Zero(t, r.Errors, "errors: %s", r.FirstErr)
	require.Positive(t, r.Requests)
	assert.Zero(t, r.Requests%8, "%d responses, not whole batches of 8", r.Requests)
	assert.True(t, 0 < r.P50us && r.P50us <= r.P99us && r.P99us <= r.P999us && r.P999us <= r.MaxUs, "%+v", r)

	busy := fakeServer(t, func(c net.Conn) {
		b := make([]byte, 4096)
		for {
			if _, err := c.Read(b); err != nil {
				return
			}
			io.WriteString(c, "HTTP/1.1 503 Busy\r\nContent-Length: 0\r\n\r\n")
		}
	})
	r, err = generate(t.Context(), genConfig{addr: busy, path: Path, conns: 2, depth: 1, duration: 100 * time.Millisecond})
	require.NoError(t, err)
	assert.Equal(t, int64(2), r.Errors, "both connections got a 503")
	assert.Contains(t, r.FirstErr, "503")
}

// TestHoldIdle opens idle connections to an in-process server and reads
// this process's resident set; a server that closes every connection
// makes the run invalid.
func TestHoldIdle(t *testing.T) {
	srv, err := registry.Start("netkit", "127.0.0.1:0")
	require.NoError(t, err)
	defer srv.Stop()
	sc := Scenario{Name: "idle", Path: Path, Conns: 100, Kind: kindIdle}
	var m Measurement
	require.NoError(t, holdIdle(t.Context(), srv.Addr, sc, os.Getpid(), &m))
	require.NoError(t, m.valid(sc))
	assert.Equal(t, int64(100), m.Requests)
	assert.Positive(t, m.ServerRSS)

	closing := fakeServer(t, func(net.Conn) {})
	m = Measurement{}
	require.NoError(t, holdIdle(t.Context(), closing, sc, os.Getpid(), &m))
	require.Error(t, m.valid(sc), "every connection was closed unanswered")
}

// fakeServer listens on a loopback port until the test ends, runs serve
// on each connection it accepts, in a goroutine, closes the connection
// when serve returns, and returns the address.
func fakeServer(t *testing.T, serve func(net.Conn)) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				serve(c)
			}()
		}
	}()
	return ln.Addr().String()
}

func TestParseH2load(t *testing.T) {
	out := `starting benchmark...
finished in 3.00s, 395900.33 req/s, 16.24MB/s
requests: 1187701 total, 1194101 started, 1187701 done, 1187700 succeeded, 1 failed, 0 errored, 0 timeout
status codes: 1187701 2xx, 0 3xx, 0 4xx, 0 5xx
`
	var m H2Measurement
	require.NoError(t, parseH2load(out, &m))
	assert.Equal(t, 3.0, m.Seconds)
	assert.InDelta(t, 395900.33, m.RPS, 0.01)
	assert.Equal(t, int64(1187700), m.Requests)
	assert.Equal(t, int64(1), m.Failed)
	require.NoError(t, parseH2load(strings.Replace(out, "3.00s", "900.5ms", 1), &m))
	assert.InDelta(t, 0.9005, m.Seconds, 1e-9)
	require.Error(t, parseH2load("h2load: connection refused\n", &m))
}

// TestH2Smoke runs httpbench h2 as make bench-h2 SMOKE=1 does, if h2load
// is installed: both servers answer HTTP/2 rightly and get a row.
func TestH2Smoke(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	if _, err := lookH2load(); err != nil {
		t.Skip(err)
	}
	var out, errb strings.Builder
	err := Main(&out, &errb, []string{"h2", "-smoke", "-scenarios", "h2-plaintext,h2-idle10k"})
	require.NoError(t, err, "h2\n%s", errb.String())
	for _, impl := range h2Servers {
		assert.Contains(t, out.String(), "| h2-plaintext | "+impl+" | 64 | 100 |", "no row for %s in\n%s", impl, out.String())
		assert.Contains(t, out.String(), "| h2-idle10k | "+impl+" | 10000 | idle |", "no row for %s in\n%s", impl, out.String())
	}
	assert.NotContains(t, Servers(), "go-h2c", "h2c servers are not in the HTTP/1.1 run")
}

// TestCheckH2: the check refuses a server that answers HTTP/1.1 only.
func TestCheckH2(t *testing.T) {
	srv, err := startNetHTTP("127.0.0.1:0")
	require.NoError(t, err)
	defer srv.Stop()
	require.Error(t, checkH2(srv.Addr, Path))
	srv2, err := startNetkitH2("127.0.0.1:0")
	require.NoError(t, err)
	defer srv2.Stop()
	require.NoError(t, checkH2(srv2.Addr, Path))
	require.NoError(t, checkH2(srv2.Addr, JSONPath))
	c, err := h2Conn(t.Context(), srv2.Addr, Path)
	require.NoError(t, err)
	c.Close()
}
