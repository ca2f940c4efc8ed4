package echobench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Scenario is one load shape of the table.
type Scenario struct {
	Name     string `json:"name"`
	Conns    int    `json:"conns"`
	Inflight int    `json:"inflight"`
	Size     int    `json:"size"`
	Idle     bool   `json:"idle,omitempty"` // RSS per idle connection, no throughput
}

var scenarios = []Scenario{
	{Name: "64x64B", Conns: 64, Inflight: 1, Size: 64},
	{Name: "256x512B", Conns: 256, Inflight: 1, Size: 512},
	{Name: "1x64B", Conns: 1, Inflight: 1, Size: 64},
	{Name: "16x4KiB-pipelined", Conns: 16, Inflight: 16, Size: 4096},
	{Name: "idle10k", Conns: 10000, Inflight: 1, Size: 64, Idle: true},
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
	LoadResult
	ServerCPU     float64 `json:"server_cpu_s"`         // over the window
	CPUPer1M      float64 `json:"server_cpu_s_per_1m"`  // server CPU seconds per 1M round trips
	RSSPerConn    float64 `json:"rss_bytes_per_conn"`   // idle scenario only
	RSSBefore     int64   `json:"rss_before_bytes"`     // idle scenario only
	RSSWithConns  int64   `json:"rss_with_conns_bytes"` // idle scenario only
	ServerCPUFrac float64 `json:"server_cpu_fraction"`  // server CPU / window
}

// Summary is the median over runs for one (scenario, server).
type Summary struct {
	Scenario    string  `json:"scenario"`
	Server      string  `json:"server"`
	Runs        int     `json:"runs"`
	RTPS        float64 `json:"round_trips_per_s"`
	BytesPerSec float64 `json:"bytes_per_s"`
	P50us       float64 `json:"p50_us"`
	P99us       float64 `json:"p99_us"`
	CPUPer1M    float64 `json:"server_cpu_s_per_1m"`
	ServerCPU   float64 `json:"server_cpu_fraction"`
	LoadCPU     float64 `json:"load_cpu_fraction"`
	RSSPerConn  float64 `json:"rss_bytes_per_conn,omitempty"`
	// Ratios to the best non-netkit server for that column (higher rt/s is
	// better; lower p99, CPU and RSS are) and to net.
	RTPSvsBest float64 `json:"round_trips_per_s_vs_best_peer"`
	P99vsBest  float64 `json:"p99_vs_best_peer"`
	CPUvsBest  float64 `json:"server_cpu_vs_best_peer"`
	RSSvsBest  float64 `json:"rss_vs_best_peer"`
	RTPSvsNet  float64 `json:"round_trips_per_s_vs_net"`
	P99vsNet   float64 `json:"p99_vs_net"`
	CPUvsNet   float64 `json:"server_cpu_vs_net"`
	RSSvsNet   float64 `json:"rss_vs_net"`
}

type runConfig struct {
	servers   []string
	scenarios []Scenario
	runs      int
	duration  time.Duration
	warmup    time.Duration
	idleConns int
	idleHold  time.Duration
	jsonOut   string
	pin       bool
}

func cmdRun(stdout, stderr io.Writer, args []string) error {
	fs := newFlags("run", stderr)
	servers := fs.String("servers", strings.Join(Servers(), ","), "servers to compare")
	scens := fs.String("scenarios", strings.Join(scenarioNames(), ","), "scenarios")
	var rc runConfig
	fs.IntVar(&rc.runs, "runs", 5, "runs per scenario and server (the median is reported)")
	fs.DurationVar(&rc.duration, "duration", 3*time.Second, "measured window per run")
	fs.DurationVar(&rc.warmup, "warmup", 500*time.Millisecond, "warm-up before each window")
	fs.StringVar(&rc.jsonOut, "json", "", "also write every measurement and the summary as JSON here")
	// Hidden: the tests run the idle scenario small.
	fs.IntVar(&rc.idleConns, "idle-conns", 10000, "")
	fs.DurationVar(&rc.idleHold, "idle-hold", 2*time.Second, "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for _, s := range strings.Split(*servers, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if _, ok := starters[s]; !ok {
			return fmt.Errorf("run: unknown server %q (have %v)", s, Servers())
		}
		rc.servers = append(rc.servers, s)
	}
	for _, s := range strings.Split(*scens, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		i := slices.IndexFunc(scenarios, func(sc Scenario) bool { return sc.Name == s })
		if i < 0 {
			return fmt.Errorf("run: unknown scenario %q (have %v)", s, scenarioNames())
		}
		sc := scenarios[i]
		if sc.Idle {
			sc.Conns = rc.idleConns
		}
		rc.scenarios = append(rc.scenarios, sc)
	}
	if len(rc.servers) == 0 || len(rc.scenarios) == 0 || rc.runs < 1 {
		return errors.New("run: need at least one server, one scenario and one run")
	}
	if _, ok := starters["netkit"]; !ok {
		fmt.Fprintln(stderr, "echobench: NOTE: the netkit server is not built in yet; comparing the peers only")
	}
	rc.pin = canPin(stderr)

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	ms, err := runAll(ctx, stderr, rc)
	if err != nil {
		return err
	}
	sums := summarize(rc, ms)
	if err := writeTable(stdout, rc, sums); err != nil {
		return err
	}
	if rc.jsonOut != "" {
		b, err := json.MarshalIndent(map[string]any{
			"go": runtime.Version(), "runs": rc.runs, "duration": rc.duration.String(),
			"warmup": rc.warmup.String(), "pinned": rc.pin, "scenarios": rc.scenarios,
			"measurements": ms, "summary": sums,
		}, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(rc.jsonOut, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// canPin reports whether the server and the generator can have a CPU each
// (taskset present, CPUs 0 and 1 both allowed); if not it says so loudly.
func canPin(stderr io.Writer) bool {
	warn := func(why string) bool {
		fmt.Fprintf(stderr, "\n*** echobench: WARNING: %s: server and load generator run UNPINNED and share CPUs; the numbers are noisier and not comparable with pinned runs ***\n\n", why)
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
	var ms []Measurement
	// Interleaved: run r of every server before run r+1 of any, and the
	// server order rotated per run, so drift and noise hit all alike.
	for _, sc := range rc.scenarios {
		for r := 1; r <= rc.runs; r++ {
			for i := range rc.servers {
				srv := rc.servers[(i+r-1)%len(rc.servers)]
				if err := ctx.Err(); err != nil {
					return nil, fmt.Errorf("run: interrupted: %w", err)
				}
				m, err := measure(ctx, exe, rc, sc, srv)
				if err != nil && ctx.Err() != nil {
					return nil, fmt.Errorf("run: interrupted during %s, %s, run %d; every child killed", sc.Name, srv, r)
				}
				if err != nil {
					return nil, fmt.Errorf("run: %s, %s, run %d: %w", sc.Name, srv, r, err)
				}
				m.Run = r
				fmt.Fprintf(stderr, "echobench: %-18s %-8s run %d: %s\n", sc.Name, srv, r, brief(sc, m))
				ms = append(ms, m)
			}
		}
	}
	return ms, nil
}

func brief(sc Scenario, m Measurement) string {
	if sc.Idle {
		return fmt.Sprintf("%.0f B of RSS per connection", m.RSSPerConn)
	}
	return fmt.Sprintf("%.0f rt/s, p50 %.0f µs, p99 %.0f µs, server CPU %.2f s/1M rt (%.0f%%), generator CPU %.0f%%",
		m.RTPS, m.P50us, m.P99us, m.CPUPer1M, 100*m.ServerCPUFrac, 100*m.LoadCPU)
}

// child is a process of this binary in its own process group, killed with
// its group on every exit path.
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  *bufio.Scanner
	stderr *syncBuffer
	done   chan struct{}
	err    error
}

func startChild(ctx context.Context, exe string, cpu int, pin bool, args ...string) (*child, error) {
	name, argv := exe, args
	if pin {
		name, argv = "taskset", append([]string{"-c", strconv.Itoa(cpu), exe}, args...)
	}
	cmd := exec.Command(name, argv...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
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
// to act as echobench).
const childEnv = "ECHOBENCH_CHILD"

// ChildArgs reports whether this process was started by the runner.
func ChildArgs() bool { return os.Getenv(childEnv) == "1" }

func (c *child) kill() {
	// The whole group: taskset execs, but be sure nothing is left behind.
	syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
}

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
	c.kill() // anything the child itself started
	close(c.done)
	return c.err
}

func measure(ctx context.Context, exe string, rc runConfig, sc Scenario, impl string) (m Measurement, err error) {
	m = Measurement{Scenario: sc.Name, Server: impl}
	srv, err := startChild(ctx, exe, 0, rc.pin, "serve", "-impl", impl, "-addr", "127.0.0.1:0")
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
	pid := srv.cmd.Process.Pid

	if sc.Idle {
		return measureIdle(ctx, exe, rc, sc, addr, pid, m)
	}
	args := []string{"load", "-report", "-addr", addr,
		"-conns", strconv.Itoa(sc.Conns), "-inflight", strconv.Itoa(sc.Inflight), "-size", strconv.Itoa(sc.Size),
		"-duration", rc.duration.String(), "-warmup", rc.warmup.String()}
	ld, err := startChild(ctx, exe, 1, rc.pin, args...)
	if err != nil {
		return m, err
	}
	defer ld.wait(time.Second)
	var cpu0, cpu1 float64
	for {
		l, err := ld.line()
		if err != nil {
			return m, err
		}
		switch {
		case l == "window start":
			if cpu0, err = procCPU(pid); err != nil {
				return m, err
			}
		case l == "window end":
			if cpu1, err = procCPU(pid); err != nil {
				return m, err
			}
		case strings.HasPrefix(l, "result "):
			if err := json.Unmarshal([]byte(l[len("result "):]), &m.LoadResult); err != nil {
				return m, err
			}
			if err := ld.wait(5 * time.Second); err != nil {
				return m, ld.fail(err)
			}
			m.ServerCPU = cpu1 - cpu0
			m.ServerCPUFrac = m.ServerCPU / m.Seconds
			m.CPUPer1M = m.ServerCPU / float64(m.RoundTrips) * 1e6
			return m, nil
		default:
			return m, ld.fail(fmt.Errorf("unexpected line %q", l))
		}
	}
}

func measureIdle(ctx context.Context, exe string, rc runConfig, sc Scenario, addr string, pid int, m Measurement) (Measurement, error) {
	time.Sleep(200 * time.Millisecond) // let the server settle after start-up
	before, err := procRSS(pid)
	if err != nil {
		return m, err
	}
	ld, err := startChild(ctx, exe, 1, rc.pin, "load", "-addr", addr, "-conns", strconv.Itoa(sc.Conns),
		"-size", strconv.Itoa(sc.Size), "-idle", rc.idleHold.String())
	if err != nil {
		return m, err
	}
	defer ld.wait(time.Second)
	l, err := ld.line()
	if err != nil {
		return m, err
	}
	if l != "measure" {
		return m, ld.fail(fmt.Errorf("unexpected line %q", l))
	}
	after, err := procRSS(pid)
	if err != nil {
		return m, err
	}
	if _, err := io.WriteString(ld.stdin, "done\n"); err != nil {
		return m, ld.fail(err)
	}
	if err := ld.wait(10 * time.Second); err != nil {
		return m, ld.fail(err)
	}
	m.RSSBefore, m.RSSWithConns = before, after
	m.RSSPerConn = float64(after-before) / float64(sc.Conns)
	return m, nil
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

// procRSS is the process's VmRSS in bytes (/proc/<pid>/status).
func procRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			f := strings.Fields(v)
			if len(f) != 2 || f[1] != "kB" {
				return 0, fmt.Errorf("/proc/%d/status: odd VmRSS line %q", pid, l)
			}
			kb, err := strconv.ParseInt(f[0], 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no VmRSS", pid)
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
