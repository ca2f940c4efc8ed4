package echobench

import (
	"context"
	"fmt"
	"io"

	"github.com/netkit/netkit/internal/peers/benchproc"
)

// Counters are what the server process did over a run's window, per
// round trip (for flood+ping, per ping: the flood's calls are counted
// too). perf counts in a counters run of its own (its counting costs the
// server CPU: see countersRunNote), /proc is read in every run. A nil
// field was not measured: JSON leaves it out and the table shows "–".
type Counters struct {
	// Source says where they come from: "perf" (perf stat's tracepoints
	// and context-switches event; the /proc counters below are also
	// there), "proc" (/proc only) or empty (none: -counters=off, or the
	// idle scenario).
	Source string `json:"counters,omitempty"`
	// CtxSwitchesPerRT is voluntary plus nonvoluntary context switches of
	// all the server's threads: perf's context-switches when perf counts,
	// else /proc/<pid>/task/*/status.
	CtxSwitchesPerRT *float64 `json:"ctx_switches_per_rt,omitempty"`
	// SyscallsPerRT is every system call (raw_syscalls:sys_enter); perf only.
	SyscallsPerRT *float64 `json:"syscalls_per_rt,omitempty"`
	// ReadsPerRT is read, readv, recvfrom and recvmsg calls (perf), or
	// /proc/<pid>/io's syscr without perf (read-like calls through the
	// file layer: read, readv, pread64..., not recvfrom or recvmsg);
	// WritesPerRT is write, writev, sendto and sendmsg calls, or syscw.
	ReadsPerRT  *float64 `json:"reads_per_rt,omitempty"`
	WritesPerRT *float64 `json:"writes_per_rt,omitempty"`
	// FutexPerRT, EpollWaitsPerRT (epoll_wait, epoll_pwait, epoll_pwait2)
	// and SleepsPerRT (nanosleep, clock_nanosleep) are perf only.
	FutexPerRT      *float64 `json:"futex_per_rt,omitempty"`
	EpollWaitsPerRT *float64 `json:"epoll_waits_per_rt,omitempty"`
	SleepsPerRT     *float64 `json:"sleeps_per_rt,omitempty"`
}

// ProcCounters are the /proc counters of a window, per round trip, kept
// beside perf's to compare: the context switches lose threads that exited
// in the window, and syscr/syscw count the read-like and write-like calls
// of the file layer (not recvfrom, recvmsg, sendto or sendmsg).
type ProcCounters struct {
	ProcCtxSwitchesPerRT *float64 `json:"proc_ctx_switches_per_rt,omitempty"`
	ProcReadsPerRT       *float64 `json:"proc_reads_per_rt,omitempty"`
	ProcWritesPerRT      *float64 `json:"proc_writes_per_rt,omitempty"`
}

// The -counters modes.
const (
	countersPerf = "perf"
	countersProc = "proc"
	countersOff  = "off"
)

// perfColumns are the perf-counted columns, each the sum of its events.
// An event the kernel lacks is not asked for (perf would refuse the whole
// list); a column is there when one of its events was counted.
var perfColumns = []struct {
	field  func(*Counters) **float64
	events []string
}{
	{func(c *Counters) **float64 { return &c.SyscallsPerRT }, []string{"raw_syscalls:sys_enter"}},
	{func(c *Counters) **float64 { return &c.FutexPerRT }, []string{"syscalls:sys_enter_futex"}},
	{func(c *Counters) **float64 { return &c.SleepsPerRT }, []string{"syscalls:sys_enter_nanosleep", "syscalls:sys_enter_clock_nanosleep"}},
	{func(c *Counters) **float64 { return &c.EpollWaitsPerRT }, []string{"syscalls:sys_enter_epoll_wait", "syscalls:sys_enter_epoll_pwait", "syscalls:sys_enter_epoll_pwait2"}},
	// Reads and writes take in the socket calls too: netpoll reads with
	// readv and writes with sendmsg, and would show none otherwise.
	{func(c *Counters) **float64 { return &c.ReadsPerRT }, []string{"syscalls:sys_enter_read", "syscalls:sys_enter_readv", "syscalls:sys_enter_recvfrom", "syscalls:sys_enter_recvmsg"}},
	{func(c *Counters) **float64 { return &c.WritesPerRT }, []string{"syscalls:sys_enter_write", "syscalls:sys_enter_writev", "syscalls:sys_enter_sendto", "syscalls:sys_enter_sendmsg"}},
	{func(c *Counters) **float64 { return &c.CtxSwitchesPerRT }, []string{"context-switches"}},
}

// perfEvents lists every event of perfColumns.
func perfEvents() []string {
	var evs []string
	for _, c := range perfColumns {
		evs = append(evs, c.events...)
	}
	return evs
}

// chooseCounters settles a valid -counters mode: perf when asked for and
// usable (checked once here, with the events this kernel has), else proc,
// with a loud warning on stderr.
func chooseCounters(stderr io.Writer, mode string) (string, []string) {
	if mode != countersPerf {
		return mode, nil
	}
	evs, err := benchproc.ProbePerf(perfEvents())
	if err != nil {
		fmt.Fprintf(stderr, "*** echobench: WARNING: perf cannot count tracepoints here (%v): falling back to the /proc counters (cs/rt, reads/rt, writes/rt); sys/rt, futex/rt, epoll/rt and sleep/rt are NOT measured ***\n", err)
		return countersProc, nil
	}
	if missing := len(perfEvents()) - len(evs); missing > 0 {
		fmt.Fprintf(stderr, "echobench: NOTE: perf or this kernel lacks %d of the events; counting %v\n", missing, evs)
	}
	return countersPerf, evs
}

// procSample is one reading of the /proc counters of a process.
type procSample struct {
	switches map[int]uint64
	io       benchproc.IOCounts
}

func readProc(pid int) (procSample, error) {
	sw, err := benchproc.ThreadSwitches(pid)
	if err != nil {
		return procSample{}, err
	}
	ioc, err := benchproc.ProcIO(pid)
	if err != nil {
		return procSample{}, err
	}
	return procSample{switches: sw, io: ioc}, nil
}

// windowCounters follows the server's counters over one window: /proc
// always (unless off), perf when rc has it.
type windowCounters struct {
	rc     runConfig
	pid    int
	stderr io.Writer
	perf   *benchproc.Perf
	start  procSample
	end    procSample
	counts map[string]benchproc.PerfCount
	// perfErr is a perf failure in this window: its columns are left out,
	// with a warning, and the run goes on.
	perfErr error
}

// startCounters starts perf (its counters disabled) ahead of the window,
// so that its start-up is not inside it.
func startCounters(ctx context.Context, stderr io.Writer, rc runConfig, pid int) *windowCounters {
	w := &windowCounters{rc: rc, pid: pid, stderr: stderr}
	if rc.counters == countersPerf {
		// perf runs on the load generator's CPU, away from the server's.
		w.perf, w.perfErr = benchproc.StartPerf(ctx, pid, rc.perfEvents, 1, rc.pin)
	}
	return w
}

// windowStart samples /proc and enables perf.
func (w *windowCounters) windowStart() error {
	if w.rc.counters == countersOff {
		return nil
	}
	var err error
	if w.start, err = readProc(w.pid); err != nil {
		return err
	}
	if w.perf != nil && w.perfErr == nil {
		w.perfErr = w.perf.Enable()
	}
	return nil
}

// windowEnd samples /proc, stops perf and takes its counts.
func (w *windowCounters) windowEnd() error {
	if w.rc.counters == countersOff {
		return nil
	}
	var err error
	if w.end, err = readProc(w.pid); err != nil {
		return err
	}
	if w.perf != nil && w.perfErr == nil {
		w.counts, w.perfErr = w.perf.Stop()
	}
	return nil
}

// close kills perf if it still runs (error paths).
func (w *windowCounters) close() {
	if w.perf != nil {
		w.perf.Close()
	}
}

// fill sets m's counters per round trip.
func (w *windowCounters) fill(m *Measurement) {
	if w.rc.counters == countersOff || m.RoundTrips <= 0 {
		return
	}
	rt := float64(m.RoundTrips)
	per := func(n float64) *float64 { v := n / rt; return &v }
	ioc := w.end.io.Sub(w.start.io)
	m.ProcCounters = ProcCounters{
		ProcCtxSwitchesPerRT: per(float64(benchproc.SwitchesBetween(w.start.switches, w.end.switches))),
		ProcReadsPerRT:       per(float64(ioc.Syscr)),
		ProcWritesPerRT:      per(float64(ioc.Syscw)),
	}
	// Each column gets its own copy: perf's count may replace it.
	cp := func(v *float64) *float64 { x := *v; return &x }
	m.Counters = Counters{
		Source:           countersProc,
		CtxSwitchesPerRT: cp(m.ProcCtxSwitchesPerRT),
		ReadsPerRT:       cp(m.ProcReadsPerRT),
		WritesPerRT:      cp(m.ProcWritesPerRT),
	}
	if w.rc.counters != countersPerf {
		return
	}
	if w.perfErr != nil {
		run := fmt.Sprintf("run %d", m.Run)
		if m.Run == 0 {
			run = "counters run"
		}
		fmt.Fprintf(w.stderr, "*** echobench: WARNING: %s, %s, %s: perf failed (%v): this run has the /proc counters only ***\n",
			m.Scenario, m.Server, run, w.perfErr)
		return
	}
	m.Counters.Source = countersPerf
	for _, col := range perfColumns {
		sum, seen := 0.0, false
		for _, ev := range col.events {
			if c, ok := w.counts[ev]; ok && c.Counted() {
				sum += c.Value
				seen = true
			}
		}
		if seen {
			*col.field(&m.Counters) = per(sum)
		}
	}
}
