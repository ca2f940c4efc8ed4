package httpbench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
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

func scenarioNames() []string {
	var s []string
	for _, sc := range scenarios {
		s = append(s, sc.Name)
	}
	return s
}

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

// canPin reports whether the server and wrk can have a CPU each (taskset
// present, CPUs 0 and 1 both allowed); if not it says so loudly.
func canPin(stderr io.Writer) bool {
	warn := func(why string) bool {
		fmt.Fprintf(stderr, "\n*** httpbench: WARNING: %s: server and wrk run UNPINNED and share CPUs; the numbers are noisier and not comparable with pinned runs ***\n\n", why)
		return false
	}
	if _, err := exec.LookPath("taskset"); err != nil {
		return warn("taskset not found")
	}
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return warn("sched_getaffinity: " + err.Error())
	}
	if !set.IsSet(0) || !set.IsSet(1) {
		return warn(fmt.Sprintf("CPUs 0 and 1 are not both available (%d CPU(s) allowed)", set.Count()))
	}
	return true
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
	// Interleaved: run r of every server before run r+1 of any, the order
	// rotated per run, so that drift and noise hit all alike.
	for _, sc := range rc.scenarios {
		for r := 1; r <= rc.runs; r++ {
			for i := range rc.servers {
				srv := rc.servers[(i+r-1)%len(rc.servers)]
				if err := ctx.Err(); err != nil {
					return nil, fmt.Errorf("run: interrupted: %w", err)
				}
				m, err := measure(ctx, exe, rc, sc, srv, script.Name())
				if err != nil {
					if ctx.Err() != nil {
						return nil, fmt.Errorf("run: interrupted during %s, %s, run %d; every child killed", sc.Name, srv, r)
					}
					return nil, fmt.Errorf("run: %s, %s, run %d: %w", sc.Name, srv, r, err)
				}
				m.Run = r
				if m.Invalid != "" {
					fmt.Fprintf(stderr, "\n*** httpbench: %s, %s, run %d is INVALID: %s ***\n%s\n", sc.Name, srv, r, m.Invalid, m.Raw)
				}
				fmt.Fprintf(stderr, "httpbench: %-22s %-8s run %d: %.0f req/s, p99 %.0f µs, server CPU %.2f µs/req (%.0f%%)\n",
					sc.Name, srv, r, m.RPS, m.P99us, m.CPUPerReqUs, 100*m.ServerCPUFrac)
				ms = append(ms, m)
			}
		}
	}
	return ms, nil
}

// measure starts one server, checks its answers, runs wrk against it and
// reads the server's CPU time around wrk's run.
func measure(ctx context.Context, exe string, rc runConfig, sc Scenario, impl, script string) (m Measurement, err error) {
	m = Measurement{Scenario: sc.Name, Server: impl}
	srv, err := startServer1(ctx, exe, rc.pin, impl)
	if err != nil {
		return m, err
	}
	defer func() {
		srv.stdin.Close() // asks the server to stop
		if werr := srv.wait(5 * time.Second); werr != nil && err == nil {
			err = srv.fail(fmt.Errorf("server exit: %w", werr))
		}
	}()
	first, err := srv.line()
	if err != nil {
		return m, err
	}
	addr, ok := strings.CutPrefix(first, "listening ")
	if !ok {
		return m, srv.fail(fmt.Errorf("server's first line is %q, want \"listening <addr>\"", first))
	}
	if err := checkServer(addr); err != nil {
		return m, srv.fail(fmt.Errorf("%s answers the plaintext endpoint wrongly: %w", impl, err))
	}
	pid := srv.cmd.Process.Pid
	depth, scr := sc.Depth, ""
	if depth > 1 {
		scr = script
	}
	args := wrkArgs("http://"+addr+Path, sc.Conns, rc.duration, scr, depth)
	name := rc.wrk
	if rc.pin {
		name, args = "taskset", append([]string{"-c", "1", rc.wrk}, args...)
	}
	cmd := exec.CommandContext(ctx, name, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cpu0, err := procCPU(pid)
	if err != nil {
		return m, err
	}
	if err := cmd.Run(); err != nil {
		return m, fmt.Errorf("%s: %w\n%s%s", cmd.Args, err, out.String(), errb.String())
	}
	cpu1, err := procCPU(pid)
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
		return m, srv.fail(fmt.Errorf("%s answers wrongly after the load: %w", impl, err))
	}
	return m, nil
}

// child is a server process of this binary in its own process group,
// killed with its group on every exit path.
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  *bufio.Scanner
	stderr *syncBuffer
	done   chan struct{}
	err    error
}

// startServer1 starts "serve -impl impl" on CPU 0 (when pinning) with
// GOMAXPROCS=1.
func startServer1(ctx context.Context, exe string, pin bool, impl string) (*child, error) {
	name, argv := exe, []string{"serve", "-impl", impl, "-addr", "127.0.0.1:0"}
	if pin {
		name, argv = "taskset", append([]string{"-c", "0", exe}, argv...)
	}
	cmd := exec.Command(name, argv...)
	cmd.Env = append(os.Environ(), childEnv+"=1", "GOMAXPROCS=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c := &child{cmd: cmd, stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stderr = c.stderr
	var err error
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c.lines = bufio.NewScanner(out)
	go func() {
		select {
		case <-ctx.Done():
			c.kill()
		case <-c.done:
		}
	}()
	return c, nil
}

// childEnv marks a process started by the runner (the test binary uses it
// to act as httpbench).
const childEnv = "HTTPBENCH_CHILD"

// ChildArgs reports whether this process was started by the runner.
func ChildArgs() bool { return os.Getenv(childEnv) == "1" }

func (c *child) kill() { syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL) }

// line returns the next stdout line, or an error with the child's stderr.
func (c *child) line() (string, error) {
	if c.lines.Scan() {
		return c.lines.Text(), nil
	}
	err := c.lines.Err()
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return "", c.fail(err)
}

func (c *child) fail(err error) error {
	c.wait(2 * time.Second)
	msg := strings.TrimSpace(c.stderr.String())
	if c.err != nil {
		err = fmt.Errorf("%w (%v)", err, c.err)
	}
	if msg != "" {
		return fmt.Errorf("%s: %w; its stderr:\n%s", c.cmd.Args, err, msg)
	}
	return fmt.Errorf("%s: %w", c.cmd.Args, err)
}

// wait waits up to d for the child to exit, then kills its group.
func (c *child) wait(d time.Duration) error {
	select {
	case <-c.done:
		return c.err
	default:
	}
	exited := make(chan struct{})
	go func() {
		c.err = c.cmd.Wait()
		close(exited)
	}()
	select {
	case <-exited:
	case <-time.After(d):
		c.kill()
		<-exited
		if c.err == nil {
			c.err = fmt.Errorf("killed after %v", d)
		}
	}
	c.kill()
	close(c.done)
	return c.err
}

// clockTicks is USER_HZ, 100 on every Linux architecture Go runs on.
const clockTicks = 100

// procCPU is the process's utime+stime in seconds (/proc/<pid>/stat).
func procCPU(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name may hold spaces; the fields follow its ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no ')'", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	// Fields 14 and 15 of stat(5); f[0] is field 3.
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return float64(ut+st) / clockTicks, nil
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
