package httpbench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/netkit/netkit/internal/peers/benchproc"
)

// Scenario is one load shape: an endpoint, a number of connections and a
// pipelining depth (1: wrk's plain GETs; 16: TechEmpower's pipelined
// plaintext), loaded by wrk; or held idle (Kind idle); or loaded by the
// latency generator (Kind gen, see GenResult).
type Scenario struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	Conns int    `json:"conns"`
	Depth int    `json:"depth"`
	Kind  string `json:"kind,omitempty"`
}

// The scenario kinds besides wrk's load.
const (
	kindIdle = "idle" // open Conns keep-alive connections, one request each, then read the server's RSS
	kindGen  = "gen"  // the latency generator instead of wrk
)

var scenarios = []Scenario{
	{Name: "plaintext", Path: Path, Conns: 256, Depth: 1},
	{Name: "plaintext-pipelined16", Path: Path, Conns: 256, Depth: 16},
	{Name: "json", Path: JSONPath, Conns: 256, Depth: 1},
	{Name: "json-pipelined16", Path: JSONPath, Conns: 256, Depth: 16},
	{Name: "delay1ms", Path: DelayPath, Conns: 256, Depth: 1},
	{Name: "delay1ms-10k", Path: DelayPath, Conns: 10000, Depth: 1},
	{Name: "idle10k", Path: Path, Conns: 10000, Kind: kindIdle},
	{Name: "latency", Path: Path, Conns: 256, Depth: 1, Kind: kindGen},
	{Name: "latency-pipelined16", Path: Path, Conns: 256, Depth: 16, Kind: kindGen},
}

func (sc Scenario) name() string { return sc.Name }

func scenarioNames() []string { return benchproc.NamesOf(scenarios, Scenario.name) }

// Measurement is one (scenario, server, run).
type Measurement struct {
	Scenario string `json:"scenario"`
	Server   string `json:"server"`
	Run      int    `json:"run"`
	WrkResult
	ServerCPU     float64 `json:"server_cpu_s"` // over wrk's run
	CPUPerReqUs   float64 `json:"server_cpu_us_per_req"`
	SysPerReqUs   float64 `json:"server_sys_us_per_req"` // of it, in the kernel
	ServerCPUFrac float64 `json:"server_cpu_fraction"`   // server CPU / wrk's time
	// ServerRSS is the server's resident set in bytes: its peak (VmHWM)
	// after a loaded run, and its current one with the idle connections
	// open (kind idle).
	ServerRSS int64  `json:"server_rss_bytes"`
	Invalid   string `json:"invalid,omitempty"` // why the run does not count
}

type runConfig struct {
	servers   []string
	scenarios []Scenario
	runs      int
	duration  time.Duration
	jsonOut   string
	pin       bool
	wrk       string
	smoke     bool
}

// debianWrk is where the Debian package puts wrk (a variable for tests).
var debianWrk = "/usr/bin/wrk"

// lookWrk finds wrk: $WRK, then the PATH, then debianWrk.
func lookWrk() (string, error) {
	if w := os.Getenv("WRK"); w != "" {
		if _, err := exec.LookPath(w); err != nil {
			return "", fmt.Errorf("WRK=%s: %w", w, err)
		}
		return w, nil
	}
	if p, err := exec.LookPath("wrk"); err == nil {
		return p, nil
	}
	if _, err := os.Stat(debianWrk); err == nil {
		return debianWrk, nil
	}
	return "", errors.New("wrk not found: install the Debian package (apt-get install wrk) or set WRK=/path/to/wrk")
}

func runAll(ctx context.Context, stderr io.Writer, rc runConfig) ([]Measurement, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	script, err := os.CreateTemp("", "httpbench-pipeline-*.lua")
	if err != nil {
		return nil, err
	}
	defer os.Remove(script.Name())
	if _, err := script.WriteString(pipelineScript); err != nil {
		script.Close()
		return nil, err
	}
	if err := script.Close(); err != nil {
		return nil, err
	}
	var ms []Measurement
	err = benchproc.Interleave(ctx, rc.scenarios, Scenario.name, rc.servers, rc.runs,
		func(sc Scenario, srv string, r int) error {
			m, err := measure(ctx, exe, rc, sc, srv, script.Name())
			if err != nil {
				return err
			}
			m.Run = r
			if m.Invalid != "" {
				fmt.Fprintf(stderr, "\n*** httpbench: %s, %s, run %d is INVALID: %s ***\n%s\n", sc.Name, srv, r, m.Invalid, m.Raw)
			}
			fmt.Fprintf(stderr, "httpbench: %-22s %-8s run %d: %.0f req/s, p99 %.0f µs, server CPU %.2f µs/req (%.2f of it system, %.0f%%)\n",
				sc.Name, srv, r, m.RPS, m.P99us, m.CPUPerReqUs, m.SysPerReqUs, 100*m.ServerCPUFrac)
			ms = append(ms, m)
			return nil
		})
	if err != nil {
		return nil, err
	}
	return ms, nil
}

// measure starts one server, checks its answers, runs wrk against it and
// reads the server's CPU time around wrk's run.
func measure(ctx context.Context, exe string, rc runConfig, sc Scenario, impl, script string) (m Measurement, err error) {
	m = Measurement{Scenario: sc.Name, Server: impl}
	srv, addr, err := benchproc.StartServer(ctx, exe, rc.pin, childVars, impl)
	if err != nil {
		return m, err
	}
	defer func() {
		if serr := srv.Stop(); serr != nil && err == nil {
			err = serr
		}
	}()
	if err := checkServer(addr); err != nil {
		return m, srv.Fail(fmt.Errorf("%s answers the plaintext endpoint wrongly: %w", impl, err))
	}
	pid := srv.Pid()
	user0, sys0, err := benchproc.ProcTimes(pid)
	if err != nil {
		return m, err
	}
	switch sc.Kind {
	case kindIdle:
		err = holdIdle(ctx, addr, sc, pid, &m)
	case kindGen:
		err = runGen(ctx, exe, rc, sc, addr, &m)
	default:
		err = runWrk(ctx, rc, sc, addr, script, &m)
	}
	if err != nil {
		return m, err
	}
	user1, sys1, err := benchproc.ProcTimes(pid)
	if err != nil {
		return m, err
	}
	if sc.Kind != kindIdle {
		if _, m.ServerRSS, err = benchproc.ProcMem(pid); err != nil {
			return m, err
		}
	}
	m.ServerCPU = user1 - user0 + sys1 - sys0
	if m.Seconds > 0 {
		m.ServerCPUFrac = m.ServerCPU / m.Seconds
	}
	if m.Requests > 0 {
		m.CPUPerReqUs = m.ServerCPU / float64(m.Requests) * 1e6
		m.SysPerReqUs = (sys1 - sys0) / float64(m.Requests) * 1e6
	}
	if verr := m.valid(sc); verr != nil {
		m.Invalid = verr.Error()
	}
	// The server must still answer rightly after the load.
	if err := checkServer(addr); err != nil {
		return m, srv.Fail(fmt.Errorf("%s answers wrongly after the load: %w", impl, err))
	}
	return m, nil
}

// runWrk loads the server at addr with wrk, pinned to CPU 1.
func runWrk(ctx context.Context, rc runConfig, sc Scenario, addr, script string, m *Measurement) error {
	depth, scr := sc.Depth, ""
	if depth > 1 {
		scr = script
	}
	wargs := wrkArgs("http://"+addr+sc.Path, sc.Conns, rc.duration, scr, depth)
	name, args := benchproc.Pinned(rc.pin, 1, rc.wrk, wargs...)
	cmd := exec.CommandContext(ctx, name, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w\n%s%s", cmd.Args, err, out.String(), errb.String())
	}
	var err error
	if m.WrkResult, err = parseWrk(out.String()); err != nil {
		return fmt.Errorf("%w; wrk said:\n%s%s", err, out.String(), errb.String())
	}
	if depth > 1 {
		// wrk's pipelined percentiles are wrong (see GenResult); the
		// gen scenarios measure them.
		m.P50us, m.P99us, m.P99IsMax = 0, 0, false
	}
	return nil
}

// runGen loads the server at addr with the latency generator, a child
// process pinned to CPU 1 with GOMAXPROCS=1 (as wrk -t1 is).
func runGen(ctx context.Context, exe string, rc runConfig, sc Scenario, addr string, m *Measurement) error {
	c, err := benchproc.Start(ctx, exe, 1, rc.pin, childVars, "load", "-addr", addr, "-path", sc.Path,
		"-conns", strconv.Itoa(sc.Conns), "-depth", strconv.Itoa(sc.Depth), "-duration", rc.duration.String())
	if err != nil {
		return err
	}
	c.Stdin.Close()
	line, err := c.Line()
	if err != nil {
		return err
	}
	if err := c.Wait(10 * time.Second); err != nil {
		return c.Fail(err)
	}
	var g GenResult
	if err := json.Unmarshal([]byte(line), &g); err != nil {
		return fmt.Errorf("load's output %q: %w", line, err)
	}
	m.Requests, m.Seconds = g.Requests, g.Seconds
	if g.Seconds > 0 {
		m.RPS = float64(g.Requests) / g.Seconds
	}
	m.P50us, m.P99us, m.MaxUs = g.P50us, g.P99us, g.MaxUs
	m.SocketErrors = g.Errors
	m.Raw = line
	return nil
}

// holdIdle opens sc.Conns keep-alive connections to addr, each asking for
// one response, waits a second with all of them open and idle, and reads
// the server's resident set then.
func holdIdle(ctx context.Context, addr string, sc Scenario, pid int, m *Measurement) error {
	conns := make([]net.Conn, sc.Conns)
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}()
	req := []byte("GET " + sc.Path + " HTTP/1.1\r\nHost: " + addr + "\r\n\r\n")
	start := time.Now()
	var (
		next     atomic.Int64
		failed   atomic.Int64
		firstErr atomic.Value
		wg       sync.WaitGroup
	)
	for range 64 {
		wg.Go(func() {
			var d net.Dialer
			b := make([]byte, 1024)
			for i := next.Add(1) - 1; i < int64(len(conns)); i = next.Add(1) - 1 {
				c, err := d.DialContext(ctx, "tcp", addr)
				if err == nil {
					conns[i] = c
					err = oneResponse(c, req, b)
				}
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
				}
			}
		})
	}
	wg.Wait()
	time.Sleep(time.Second)
	m.Seconds = time.Since(start).Seconds()
	m.Requests = int64(sc.Conns) - failed.Load()
	m.SocketErrors = failed.Load()
	if e, ok := firstErr.Load().(string); ok {
		m.Raw = "first error: " + e
	}
	var err error
	m.ServerRSS, _, err = benchproc.ProcMem(pid)
	return err
}

// oneResponse writes req to c and reads one whole 200 response into b.
func oneResponse(c net.Conn, req, b []byte) error {
	c.SetDeadline(time.Now().Add(10 * time.Second))
	defer c.SetDeadline(time.Time{})
	if _, err := c.Write(req); err != nil {
		return err
	}
	for have := 0; ; {
		if have == len(b) {
			return errors.New("a response larger than the buffer")
		}
		n, err := c.Read(b[have:])
		have += n
		if k, perr := responseLen(b[:have]); perr != nil {
			return perr
		} else if k > 0 {
			if k != have {
				return errors.New("more than one response")
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// childEnv marks a process started by the runner (the test binary uses it
// to act as httpbench).
const childEnv = "HTTPBENCH_CHILD"

// ChildArgs reports whether this process was started by the runner.
func ChildArgs() bool { return os.Getenv(childEnv) == "1" }

// childVars is what the runner adds to its servers' environment: the
// server runs with GOMAXPROCS=1.
var childVars = []string{childEnv + "=1", "GOMAXPROCS=1"}
