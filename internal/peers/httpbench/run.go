package httpbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/netkit/netkit/internal/peers/benchproc"
)

// Scenario is one load shape: pipelining depth 1 (wrk's plain GETs) or 16
// (TechEmpower's pipelined plaintext).
type Scenario struct {
	Name  string `json:"name"`
	Conns int    `json:"conns"`
	Depth int    `json:"depth"`
}

var scenarios = []Scenario{
	{Name: "plaintext", Conns: 256, Depth: 1},
	{Name: "plaintext-pipelined16", Conns: 256, Depth: 16},
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
	ServerCPUFrac float64 `json:"server_cpu_fraction"` // server CPU / wrk's time
	Invalid       string  `json:"invalid,omitempty"`   // why the run does not count
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
			fmt.Fprintf(stderr, "httpbench: %-22s %-8s run %d: %.0f req/s, p99 %.0f µs, server CPU %.2f µs/req (%.0f%%)\n",
				sc.Name, srv, r, m.RPS, m.P99us, m.CPUPerReqUs, 100*m.ServerCPUFrac)
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
	depth, scr := sc.Depth, ""
	if depth > 1 {
		scr = script
	}
	wargs := wrkArgs("http://"+addr+Path, sc.Conns, rc.duration, scr, depth)
	name, args := benchproc.Pinned(rc.pin, 1, rc.wrk, wargs...)
	cmd := exec.CommandContext(ctx, name, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cpu0, err := benchproc.ProcCPU(pid)
	if err != nil {
		return m, err
	}
	if err := cmd.Run(); err != nil {
		return m, fmt.Errorf("%s: %w\n%s%s", cmd.Args, err, out.String(), errb.String())
	}
	cpu1, err := benchproc.ProcCPU(pid)
	if err != nil {
		return m, err
	}
	if m.WrkResult, err = parseWrk(out.String()); err != nil {
		return m, fmt.Errorf("%w; wrk said:\n%s%s", err, out.String(), errb.String())
	}
	m.ServerCPU = cpu1 - cpu0
	if m.Seconds > 0 {
		m.ServerCPUFrac = m.ServerCPU / m.Seconds
	}
	if m.Requests > 0 {
		m.CPUPerReqUs = m.ServerCPU / float64(m.Requests) * 1e6
	}
	if verr := m.Valid(); verr != nil {
		m.Invalid = verr.Error()
	}
	// The server must still answer rightly after the load.
	if err := checkServer(addr); err != nil {
		return m, srv.Fail(fmt.Errorf("%s answers wrongly after the load: %w", impl, err))
	}
	return m, nil
}

// childEnv marks a process started by the runner (the test binary uses it
// to act as httpbench).
const childEnv = "HTTPBENCH_CHILD"

// ChildArgs reports whether this process was started by the runner.
func ChildArgs() bool { return os.Getenv(childEnv) == "1" }

// childVars is what the runner adds to its servers' environment: the
// server runs with GOMAXPROCS=1.
var childVars = []string{childEnv + "=1", "GOMAXPROCS=1"}
