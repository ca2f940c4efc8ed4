package echobench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/netkit/netkit/internal/peers/benchproc"
)

// Scenario is one load shape of the table.
type Scenario struct {
	Name     string `json:"name"`
	Conns    int    `json:"conns"`
	Inflight int    `json:"inflight"`
	Size     int    `json:"size"`
	Idle     bool   `json:"idle,omitempty"` // RSS per idle connection, no throughput
	// Flood: one connection floods, another pings (FloodPing); rt/s and the
	// latencies are the ping's, MB/s the flood's.
	Flood bool `json:"flood,omitempty"`
}

var scenarios = []Scenario{
	{Name: "64x64B", Conns: 64, Inflight: 1, Size: 64},
	{Name: "256x512B", Conns: 256, Inflight: 1, Size: 512},
	{Name: "1x64B", Conns: 1, Inflight: 1, Size: 64},
	{Name: "16x4KiB-pipelined", Conns: 16, Inflight: 16, Size: 4096},
	{Name: "idle10k", Conns: 10000, Inflight: 1, Size: 64, Idle: true},
	{Name: "flood+ping", Conns: 2, Inflight: 1, Size: 64, Flood: true},
}

func (sc Scenario) name() string { return sc.Name }

func scenarioNames() []string { return benchproc.NamesOf(scenarios, Scenario.name) }

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
	Counters
	ProcCounters
	// CountersRun marks the extra run that perf counts in (Run is 0):
	// only its counters are used, not its rates, latencies or CPU.
	CountersRun bool `json:"counters_run,omitempty"`
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
	// Counters are the medians of the runs' counters, each over the runs
	// that have it: those of the counters run when perf counted in it,
	// else those of the measured runs.
	Counters
	// CountersFromExtraRun says the counters come from the counters run.
	CountersFromExtraRun bool `json:"counters_from_extra_run,omitempty"`
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
	// counters is the -counters mode in force (perf, proc or off) and
	// perfEvents the events perf counts here.
	counters   string
	perfEvents []string
}

func cmdRun(stdout, stderr io.Writer, args []string) error {
	fs := benchproc.NewFlags("echobench", "run", stderr)
	servers := fs.String("servers", strings.Join(Servers(), ","), "servers to compare")
	scens := fs.String("scenarios", strings.Join(scenarioNames(), ","), "scenarios")
	var rc runConfig
	fs.IntVar(&rc.runs, "runs", 5, "runs per scenario and server (the median is reported)")
	fs.DurationVar(&rc.duration, "duration", 3*time.Second, "measured window per run")
	fs.DurationVar(&rc.warmup, "warmup", 500*time.Millisecond, "warm-up before each window")
	fs.StringVar(&rc.jsonOut, "json", "", "also write every measurement and the summary as JSON here")
	counters := fs.String("counters", countersPerf, "the server's system calls and context switches per round trip: perf (tracepoints, falling back to proc with a warning), proc (/proc only) or off")
	// Hidden: the tests run the idle scenario small.
	fs.IntVar(&rc.idleConns, "idle-conns", 10000, "")
	fs.DurationVar(&rc.idleHold, "idle-hold", 2*time.Second, "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var err error
	if rc.servers, err = benchproc.Split("server", *servers, Servers()); err != nil {
		return err
	}
	if rc.scenarios, err = benchproc.Pick("scenario", *scens, scenarios, Scenario.name); err != nil {
		return err
	}
	for i, sc := range rc.scenarios {
		if sc.Idle {
			rc.scenarios[i].Conns = rc.idleConns
		}
	}
	if len(rc.servers) == 0 || len(rc.scenarios) == 0 || rc.runs < 1 {
		return errors.New("run: need at least one server, one scenario and one run")
	}
	if _, ok := starters["netkit"]; !ok {
		fmt.Fprintln(stderr, "echobench: NOTE: the netkit server is not built in yet; comparing the peers only")
	}
	rc.pin = benchproc.CanPin(stderr, "echobench", "load generator")
	if !slices.Contains([]string{countersPerf, countersProc, countersOff}, *counters) {
		return fmt.Errorf("run: -counters %q: want perf, proc or off", *counters)
	}
	rc.counters = countersOff // the idle scenario has no round trips to count over
	if slices.ContainsFunc(rc.scenarios, func(sc Scenario) bool { return !sc.Idle }) {
		rc.counters, rc.perfEvents = chooseCounters(stderr, *counters)
	}

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
		if err := benchproc.WriteJSON(rc.jsonOut, map[string]any{
			"go": runtime.Version(), "runs": rc.runs, "duration": rc.duration.String(),
			"warmup": rc.warmup.String(), "pinned": rc.pin, "scenarios": rc.scenarios,
			"counters": rc.counters, "perf_events": rc.perfEvents, "counters_run": rc.counters == countersPerf,
			"measurements": ms, "summary": sums,
		}); err != nil {
			return err
		}
	}
	return nil
}

func runAll(ctx context.Context, stderr io.Writer, rc runConfig) ([]Measurement, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	// perf's counting costs the server CPU (see countersRunNote): the
	// measured runs read /proc only, and perf counts in one extra run per
	// scenario and server after them.
	measured := rc
	if rc.counters == countersPerf {
		measured.counters = countersProc
	}
	var ms []Measurement
	for _, sc := range rc.scenarios {
		err = benchproc.Interleave(ctx, []Scenario{sc}, Scenario.name, rc.servers, rc.runs,
			func(sc Scenario, srv string, r int) error {
				m, err := measure(ctx, stderr, exe, measured, sc, srv, r)
				if err != nil {
					return err
				}
				fmt.Fprintf(stderr, "echobench: %-18s %-8s run %d: %s\n", sc.Name, srv, r, brief(sc, m))
				ms = append(ms, m)
				return nil
			})
		if err != nil {
			return nil, err
		}
		if rc.counters != countersPerf || sc.Idle {
			continue
		}
		for _, srv := range rc.servers {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("run: interrupted: %w", err)
			}
			m, err := measure(ctx, stderr, exe, rc, sc, srv, 0)
			if err != nil {
				if ctx.Err() != nil {
					return nil, fmt.Errorf("run: interrupted during %s, %s, counters run; every child killed", sc.Name, srv)
				}
				return nil, fmt.Errorf("run: %s, %s, counters run: %w", sc.Name, srv, err)
			}
			m.CountersRun = true
			fmt.Fprintf(stderr, "echobench: %-18s %-8s counters run: %s\n", sc.Name, srv, brief(sc, m))
			ms = append(ms, m)
		}
	}
	return ms, nil
}

func brief(sc Scenario, m Measurement) string {
	if sc.Idle {
		return fmt.Sprintf("%.0f B of RSS per connection", m.RSSPerConn)
	}
	s := fmt.Sprintf("%.0f rt/s, p50 %.0f µs, p99 %.0f µs, server CPU %.2f s/1M rt (%.0f%%), generator CPU %.0f%%",
		m.RTPS, m.P50us, m.P99us, m.CPUPer1M, 100*m.ServerCPUFrac, 100*m.LoadCPU)
	if m.Source != "" {
		s += fmt.Sprintf("; per rt: %s cs, %s syscalls (%s)",
			perRT(m.CtxSwitchesPerRT), perRT(m.SyscallsPerRT), m.Source)
	}
	return s
}

// childEnv marks a process started by the runner (the test binary uses it
// to act as echobench).
const childEnv = "ECHOBENCH_CHILD"

// ChildArgs reports whether this process was started by the runner.
func ChildArgs() bool { return os.Getenv(childEnv) == "1" }

// childVars is what the runner adds to its children's environment.
var childVars = []string{childEnv + "=1"}

func measure(ctx context.Context, stderr io.Writer, exe string, rc runConfig, sc Scenario, impl string, run int) (m Measurement, err error) {
	m = Measurement{Scenario: sc.Name, Server: impl, Run: run}
	srv, addr, err := benchproc.StartServer(ctx, exe, rc.pin, childVars, impl)
	if err != nil {
		return m, err
	}
	defer func() {
		if serr := srv.Stop(); serr != nil && err == nil {
			err = serr
		}
	}()
	pid := srv.Pid()

	if sc.Idle {
		return measureIdle(ctx, exe, rc, sc, addr, pid, m)
	}
	args := []string{"load", "-report", "-addr", addr,
		"-conns", strconv.Itoa(sc.Conns), "-inflight", strconv.Itoa(sc.Inflight), "-size", strconv.Itoa(sc.Size),
		"-duration", rc.duration.String(), "-warmup", rc.warmup.String()}
	if sc.Flood {
		// The flood's niced threads may wait long for the CPU on a busy
		// host: give its echo time to come back.
		args = append(args, "-flood", "-grace", "10s")
	}
	// perf starts before the load, so that its start-up is over when the
	// window starts.
	cs := startCounters(ctx, stderr, rc, pid)
	defer cs.close()
	ld, err := benchproc.Start(ctx, exe, 1, rc.pin, childVars, args...)
	if err != nil {
		return m, err
	}
	defer ld.Wait(time.Second)
	var cpu0, cpu1 float64
	for {
		l, err := ld.Line()
		if err != nil {
			return m, err
		}
		switch {
		case l == "window start":
			if cpu0, err = benchproc.ProcCPU(pid); err != nil {
				return m, err
			}
			if err := cs.windowStart(); err != nil {
				return m, err
			}
			// The load opens its window only now: counters that took a
			// while to start on a busy host still cover all of it.
			if _, err := io.WriteString(ld.Stdin, "go\n"); err != nil {
				return m, ld.Fail(err)
			}
		case l == "window end":
			if cpu1, err = benchproc.ProcCPU(pid); err != nil {
				return m, err
			}
			if err := cs.windowEnd(); err != nil {
				return m, err
			}
		case strings.HasPrefix(l, "result "):
			if err := json.Unmarshal([]byte(l[len("result "):]), &m.LoadResult); err != nil {
				return m, err
			}
			if err := ld.Wait(5 * time.Second); err != nil {
				return m, ld.Fail(err)
			}
			m.ServerCPU = cpu1 - cpu0
			m.ServerCPUFrac = m.ServerCPU / m.Seconds
			m.CPUPer1M = m.ServerCPU / float64(m.RoundTrips) * 1e6
			cs.fill(&m)
			return m, nil
		default:
			return m, ld.Fail(fmt.Errorf("unexpected line %q", l))
		}
	}
}

func measureIdle(ctx context.Context, exe string, rc runConfig, sc Scenario, addr string, pid int, m Measurement) (Measurement, error) {
	time.Sleep(200 * time.Millisecond) // let the server settle after start-up
	before, err := procRSS(pid)
	if err != nil {
		return m, err
	}
	ld, err := benchproc.Start(ctx, exe, 1, rc.pin, childVars, "load", "-addr", addr, "-conns", strconv.Itoa(sc.Conns),
		"-size", strconv.Itoa(sc.Size), "-idle", rc.idleHold.String())
	if err != nil {
		return m, err
	}
	defer ld.Wait(time.Second)
	l, err := ld.Line()
	if err != nil {
		return m, err
	}
	if l != "measure" {
		return m, ld.Fail(fmt.Errorf("unexpected line %q", l))
	}
	after, err := procRSS(pid)
	if err != nil {
		return m, err
	}
	if _, err := io.WriteString(ld.Stdin, "done\n"); err != nil {
		return m, ld.Fail(err)
	}
	if err := ld.Wait(10 * time.Second); err != nil {
		return m, ld.Fail(err)
	}
	m.RSSBefore, m.RSSWithConns = before, after
	m.RSSPerConn = float64(after-before) / float64(sc.Conns)
	return m, nil
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
