package echobench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/netkit/netkit/internal/peers/benchproc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain lets the runner re-execute the test binary as echobench (it
// starts servers and load generators with os.Executable()).
func TestMain(m *testing.M) {
	if ChildArgs() {
		if err := Main(os.Stdout, os.Stderr, os.Args[1:]); err != nil {
			fmt.Fprintln(os.Stderr, "echobench:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// startFaulty runs an in-process echo server whose connections are served
// by handle, and stops it when the test ends.
func startFaulty(t *testing.T, handle func(c net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				handle(c)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String()
}

// echoWith echoes through mangle, which may change what each read returns.
func echoWith(mangle func(total int, b []byte) []byte) func(net.Conn) {
	return func(c net.Conn) {
		b := make([]byte, 64<<10)
		total := 0
		for {
			n, err := c.Read(b)
			if n > 0 {
				out := mangle(total, b[:n])
				total += n
				if _, err := c.Write(out); err != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}
}

func quickLoad(addr string, inflight int) LoadConfig {
	return LoadConfig{Addr: addr, Conns: 4, Inflight: inflight, Size: 64,
		Duration: 200 * time.Millisecond, Warmup: 20 * time.Millisecond, Grace: 300 * time.Millisecond}
}

// A well-behaved server passes: round trips counted, latencies ordered,
// and the window edges marked once each, start first.
func TestLoadAgainstNetEcho(t *testing.T) {
	addr := startFaulty(t, echoNetConn)
	cfg := quickLoad(addr, 4)
	var marks []string
	cfg.Mark = func(ev string) error { marks = append(marks, ev); return nil }
	res, err := Load(cfg)
	require.NoError(t, err)
	require.NotEqual(t, int64(0), res.RoundTrips, "implausible result %+v", res)
	require.Greater(t, res.RTPS, float64(0), "implausible result %+v", res)
	require.Greater(t, res.P50us, float64(0), "implausible result %+v", res)
	require.LessOrEqual(t, res.P50us, res.P99us, "implausible result %+v", res)
	require.Equal(t, "start,end", strings.Join(marks, ","), "marks %v, want start,end", marks)
}

// The window opens when Mark("start") returns, however late: a runner
// slow to start its counters (a busy host) still has the whole window
// inside them. And a Mark that fails ends the load with its error.
func TestLoadWindowWaitsForMark(t *testing.T) {
	addr := startFaulty(t, echoNetConn)
	checkWindowWaitsForMark(t, addr, Load, quickLoad(addr, 2))
}

func checkWindowWaitsForMark(t *testing.T, addr string, load func(LoadConfig) (LoadResult, error), cfg LoadConfig) {
	t.Helper()
	var opened, closed time.Time
	cfg.Mark = func(ev string) error {
		if ev == "start" {
			time.Sleep(cfg.Duration + 100*time.Millisecond)
			opened = time.Now()
		} else {
			closed = time.Now()
		}
		return nil
	}
	res, err := load(cfg)
	require.NoError(t, err)
	require.NotEqual(t, int64(0), res.RoundTrips, "implausible result %+v", res)
	require.GreaterOrEqual(t, closed.Sub(opened), cfg.Duration, "the window closed %v after Mark(start) returned, want >= %v", closed.Sub(opened), cfg.Duration)

	boom := errors.New("runner gone")
	cfg.Mark = func(string) error { return boom }
	t0 := time.Now()
	_, err = load(cfg)
	require.ErrorIs(t, err, boom)
	require.Less(t, time.Since(t0), 2*time.Second, "a failed Mark must end the load at once")
}

// A server that flips one byte of the stream (after 10 KiB) is a fatal
// mismatch, named with the message and byte.
func TestLoadDetectsCorruptingServer(t *testing.T) {
	const at = 10 << 10
	addr := startFaulty(t, echoWith(func(total int, b []byte) []byte {
		if total <= at && at < total+len(b) {
			b[at-total] ^= 0x20
		}
		return b
	}))
	for _, inflight := range []int{1, 8} {
		_, err := Load(quickLoad(addr, inflight))
		require.ErrorContains(t, err, "echo mismatch", "inflight %d: got %v, want an echo mismatch", inflight, err)
	}
}

// A server that drops the last byte of every read short-changes the client:
// with one message in flight it stalls, and the load fails after the grace
// period instead of hanging or reporting numbers. With several in flight,
// the shifted stream is a mismatch or the same stall.
func TestLoadDetectsShortChangingServer(t *testing.T) {
	addr := startFaulty(t, echoWith(func(_ int, b []byte) []byte { return b[:len(b)-1] }))
	start := time.Now()
	_, err := Load(quickLoad(addr, 1))
	require.ErrorContains(t, err, "not echoed", "got %v, want outstanding bytes not echoed", err)
	d := time.Since(start)
	require.LessOrEqual(t, d, 5*time.Second, "took %v to notice", d)
	_, err = Load(quickLoad(addr, 8))
	require.Error(t, err, "inflight 8: no error from a short-changing server")
}

// The histogram's quantiles are within its 3% bucket error.
func TestHistogramQuantiles(t *testing.T) {
	var h histogram
	for i := 1; i <= 1000; i++ {
		h.record(time.Duration(i) * time.Microsecond)
	}
	for _, c := range []struct{ q, want float64 }{{0.5, 500e3}, {0.99, 990e3}, {0, 1e3}, {1, 1000e3}} {
		got := h.quantile(c.q)
		assert.GreaterOrEqual(t, got, c.want*0.97, "q%v = %v ns, want %v ±3%%", c.q, got, c.want)
		assert.LessOrEqual(t, got, c.want*1.03, "q%v = %v ns, want %v ±3%%", c.q, got, c.want)
	}
	for ns := int64(0); ns < 1<<20; ns += 7 {
		mid := bucketMid(bucketOf(ns))
		require.GreaterOrEqual(t, mid, float64(ns)*0.97-1, "%d ns lands in a bucket with mid %v", ns, mid)
		require.LessOrEqual(t, mid, float64(ns)*1.03+1, "%d ns lands in a bucket with mid %v", ns, mid)
	}
}

// runMain runs the run subcommand and fails the test with its stderr.
func runMain(t *testing.T, args ...string) (stdout string) {
	t.Helper()
	var out, errb bytes.Buffer
	err := Main(&out, &errb, append([]string{"run"}, args...))
	if strings.Contains(errb.String(), "UNPINNED") {
		t.Logf("*** taskset or a second CPU is unavailable: this run was UNPINNED ***")
	}
	require.NoError(t, err, "run %v\nstderr:\n%s", args, errb.String())
	checkNoChildren(t)
	return out.String()
}

// checkNoChildren fails if any process this one started is still there.
func checkNoChildren(t *testing.T) {
	t.Helper()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	me := os.Getpid()
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) > 1 {
			ppid, _ := strconv.Atoi(f[1])
			assert.NotEqual(t, me, ppid, "child process left behind: %s", b[:i+1])
		}
	}
}

// run over every built-in server, 64x64B, one short run: a table row per
// server with numbers in it, the JSON alongside, no child left running.
func TestRunTable(t *testing.T) {
	js := filepath.Join(t.TempDir(), "echo.json")
	out := runMain(t, "-runs", "1", "-duration", "200ms", "-warmup", "50ms", "-scenarios", "64x64B", "-json", js)
	t.Logf("\n%s", out)
	for _, s := range Servers() {
		assert.Contains(t, out, "| 64x64B | "+s+" | ", "no row for %s in\n%s", s, out)
	}
	var doc struct {
		Summary      []Summary
		Measurements []Measurement
	}
	b, err := os.ReadFile(js)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &doc))
	require.Equal(t, len(Servers()), len(doc.Summary), "%d summary rows, want %d", len(doc.Summary), len(Servers()))
	// Server CPU is read in clock ticks (10 ms), so a server starved by a
	// loaded machine can show none over a 200 ms window; at least one
	// server must, or the accounting is broken.
	cpu := 0.0
	for _, s := range doc.Summary {
		assert.Greater(t, s.RTPS, float64(0), "%s: implausible summary %+v", s.Server, s)
		assert.GreaterOrEqual(t, s.CPUPer1M, float64(0), "%s: implausible summary %+v", s.Server, s)
		assert.Greater(t, s.P99us, float64(0), "%s: implausible summary %+v", s.Server, s)
		cpu += s.CPUPer1M
	}
	assert.Greater(t, cpu, float64(0), "no server used any CPU: %+v", doc.Summary)
	checkNetkitCounters(t, out, doc.Summary, doc.Measurements)
}

// checkNetkitCounters checks the counter columns of netkit's row, run
// with the default -counters=perf: the /proc ones always filled, and
// perf's too where perf can count tracepoints here.
func checkNetkitCounters(t *testing.T, table string, sums []Summary, ms []Measurement) {
	t.Helper()
	require.Contains(t, table, "| cs/rt | sys/rt | reads/rt | writes/rt | futex/rt | epoll/rt | sleep/rt |")
	i := slices.IndexFunc(sums, func(s Summary) bool { return s.Server == "netkit" })
	if i < 0 {
		t.Skip("netkit is not built in")
	}
	s := sums[i]
	require.NotEmpty(t, s.Source, "netkit: no counters: %+v", s)
	for _, c := range []struct {
		name string
		v    *float64
	}{{"cs/rt", s.CtxSwitchesPerRT}, {"reads/rt", s.ReadsPerRT}, {"writes/rt", s.WritesPerRT}} {
		require.NotNil(t, c.v, "netkit: no %s", c.name)
		assert.Greater(t, *c.v, 0.0, "netkit: %s", c.name)
	}
	// Every echo needs a read and a write; batching across connections
	// makes the calls per round trip fewer, but not by 100 times.
	assert.Greater(t, *s.ReadsPerRT, 0.01, "netkit: reads/rt")
	assert.Greater(t, *s.WritesPerRT, 0.01, "netkit: writes/rt")
	if _, err := benchproc.ProbePerf([]string{"raw_syscalls:sys_enter"}); err != nil {
		t.Logf("*** perf cannot count tracepoints here (%v): only the /proc counters were checked ***", err)
		return
	}
	require.Equal(t, "perf", s.Source, "netkit: perf works here, yet the counters are %q", s.Source)
	require.True(t, s.CountersFromExtraRun, "netkit: perf counts in a counters run")
	for _, m := range ms {
		if m.CountersRun {
			assert.Equal(t, "perf", m.Source, "%s: counters run: %+v", m.Server, m)
		} else {
			assert.Equal(t, "proc", m.Source, "%s: measured run %d: perf counted in it: %+v", m.Server, m.Run, m)
		}
	}
	assert.Equal(t, 2*len(Servers()), len(ms), "one measured run and one counters run per server")
	for _, c := range counterColumns {
		require.NotNil(t, *c.field(&s.Counters), "netkit: no %s", c.head)
	}
	// perf enables its events one after another, so each counts over a
	// slightly different span: allow 1% between them.
	assert.GreaterOrEqual(t, *s.SyscallsPerRT, 0.99*(*s.ReadsPerRT+*s.WritesPerRT+*s.EpollWaitsPerRT), "netkit: all calls >= reads + writes + epoll waits")
	assert.Greater(t, *s.EpollWaitsPerRT, 0.0, "netkit: an event loop waits in epoll")
	row := table[strings.Index(table, "| 64x64B | netkit | "):]
	row = row[:strings.IndexByte(row, '\n')]
	cells := strings.Split(strings.Trim(row, "| "), " | ")
	for _, c := range cells[len(cells)-len(counterColumns):] {
		assert.NotEqual(t, "–", c, "netkit row: a counter column is empty: %s", row)
	}
}

// The idle scenario at 200 connections (the hidden -idle-conns flag):
// every server gets a row with the RSS it grew by.
func TestRunIdleSmall(t *testing.T) {
	js := filepath.Join(t.TempDir(), "idle.json")
	out := runMain(t, "-runs", "1", "-scenarios", "idle10k", "-idle-conns", "200", "-idle-hold", "100ms", "-json", js)
	t.Logf("\n%s", out)
	for _, s := range Servers() {
		assert.Contains(t, out, "| idle10k | "+s+" | ", "no row for %s in\n%s", s, out)
	}
	var doc struct{ Measurements []Measurement }
	b, err := os.ReadFile(js)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &doc))
	for _, m := range doc.Measurements {
		assert.Greater(t, m.RSSBefore, int64(0), "%s: no RSS read: %+v", m.Server, m)
		assert.Greater(t, m.RSSWithConns, int64(0), "%s: no RSS read: %+v", m.Server, m)
	}
}
