package echobench

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/netkit/netkit/internal/peers/benchproc"
)

// summaryCounters are the counters of (scenario, server): from its
// counters run where perf counted in it (the second result is then true),
// else from its measured runs.
func summaryCounters(ms []Measurement, scenario, server string) (Counters, bool) {
	extra := func(m *Measurement) bool { return m.CountersRun && m.Source == countersPerf }
	for i := range ms {
		if m := &ms[i]; m.Scenario == scenario && m.Server == server && extra(m) {
			return medianCounters(ms, scenario, server, extra), true
		}
	}
	return medianCounters(ms, scenario, server, func(m *Measurement) bool { return !m.CountersRun }), false
}

// medianCounters is the median of each counter over the runs of
// (scenario, server) that use picks and that have it, nil where none
// has; its source is the runs' one, or their sources joined by "+" where
// they differ (perf failed in some).
func medianCounters(ms []Measurement, scenario, server string, use func(*Measurement) bool) Counters {
	var out Counters
	var sources []string
	for i := range ms {
		m := &ms[i]
		if m.Scenario == scenario && m.Server == server && use(m) && m.Source != "" && !slices.Contains(sources, m.Source) {
			sources = append(sources, m.Source)
		}
	}
	slices.Sort(sources)
	out.Source = strings.Join(sources, "+")
	for _, col := range counterColumns {
		var xs []float64
		for i := range ms {
			m := &ms[i]
			if m.Scenario != scenario || m.Server != server || !use(m) {
				continue
			}
			if v := *col.field(&m.Counters); v != nil {
				xs = append(xs, *v)
			}
		}
		if len(xs) > 0 {
			med := benchproc.Median(xs)
			*col.field(&out) = &med
		}
	}
	return out
}

// summarize takes the median of every column over the runs of each
// (scenario, server), then the ratios to the best peer and to net.
func summarize(rc runConfig, ms []Measurement) []Summary {
	var out []Summary
	for _, sc := range rc.scenarios {
		var rows []Summary
		for _, srv := range rc.servers {
			var rt, bps, p50, p99, cpu, scpu, lcpu, rss []float64
			for _, m := range ms {
				if m.Scenario != sc.Name || m.Server != srv || m.CountersRun {
					continue
				}
				rt, bps = append(rt, m.RTPS), append(bps, m.BytesPerSec)
				p50, p99 = append(p50, m.P50us), append(p99, m.P99us)
				cpu, scpu, lcpu = append(cpu, m.CPUPer1M), append(scpu, m.ServerCPUFrac), append(lcpu, m.LoadCPU)
				rss = append(rss, m.RSSPerConn)
			}
			rows = append(rows, Summary{
				Scenario: sc.Name, Server: srv, Runs: len(rt),
				RTPS: benchproc.Median(rt), BytesPerSec: benchproc.Median(bps),
				P50us: benchproc.Median(p50), P99us: benchproc.Median(p99),
				CPUPer1M: benchproc.Median(cpu), ServerCPU: benchproc.Median(scpu),
				LoadCPU: benchproc.Median(lcpu), RSSPerConn: benchproc.Median(rss),
			})
			r := &rows[len(rows)-1]
			r.Counters, r.CountersFromExtraRun = summaryCounters(ms, sc.Name, srv)
		}
		best := func(get func(Summary) float64, higher bool) float64 {
			b := math.NaN()
			for _, r := range rows {
				if r.Server == "netkit" {
					continue
				}
				v := get(r)
				if math.IsNaN(b) || (higher && v > b) || (!higher && v < b) {
					b = v
				}
			}
			return b
		}
		net := func(get func(Summary) float64) float64 {
			for _, r := range rows {
				if r.Server == "net" {
					return get(r)
				}
			}
			return math.NaN()
		}
		rtps := func(s Summary) float64 { return s.RTPS }
		p99 := func(s Summary) float64 { return s.P99us }
		cpu := func(s Summary) float64 { return s.CPUPer1M }
		rss := func(s Summary) float64 { return s.RSSPerConn }
		bRT, bP99, bCPU, bRSS := best(rtps, true), best(p99, false), best(cpu, false), best(rss, false)
		nRT, nP99, nCPU, nRSS := net(rtps), net(p99), net(cpu), net(rss)
		for i := range rows {
			r := &rows[i]
			r.RTPSvsBest, r.P99vsBest, r.CPUvsBest, r.RSSvsBest = r.RTPS/bRT, r.P99us/bP99, r.CPUPer1M/bCPU, r.RSSPerConn/bRSS
			r.RTPSvsNet, r.P99vsNet, r.CPUvsNet, r.RSSvsNet = r.RTPS/nRT, r.P99us/nP99, r.CPUPer1M/nCPU, r.RSSPerConn/nRSS
		}
		out = append(out, rows...)
	}
	// JSON has no NaN: a column that does not apply (RSS of a throughput
	// scenario, a ratio without net or peers) is 0 there, "–" in the table.
	for i := range out {
		r := &out[i]
		benchproc.ZeroNaN(&r.RTPS, &r.BytesPerSec, &r.P50us, &r.P99us, &r.CPUPer1M, &r.ServerCPU, &r.LoadCPU, &r.RSSPerConn,
			&r.RTPSvsBest, &r.P99vsBest, &r.CPUvsBest, &r.RSSvsBest, &r.RTPSvsNet, &r.P99vsNet, &r.CPUvsNet, &r.RSSvsNet)
	}
	return out
}

func writeTable(w io.Writer, rc runConfig, sums []Summary) error {
	var b strings.Builder
	pin := "server on CPU 0, load generator on CPU 1 (taskset)"
	if !rc.pin {
		pin = "UNPINNED (no taskset or fewer than 2 CPUs)"
	}
	window := fmt.Sprintf("%v window after %v warm-up", rc.duration, rc.warmup)
	if slices.IndexFunc(rc.scenarios, func(sc Scenario) bool { return !sc.Idle }) < 0 {
		window = fmt.Sprintf("%d idle connections held %v", rc.idleConns, rc.idleHold)
	}
	fmt.Fprintf(&b, "Echo: medians of %d runs, %s, %s.\n", rc.runs, window, pin)
	var thr, idle []Summary
	for _, s := range sums {
		if isIdle(rc, s.Scenario) {
			idle = append(idle, s)
		} else {
			thr = append(thr, s)
		}
	}
	b.WriteString("\"best\" is the best non-netkit server for that column")
	if len(thr) > 0 {
		b.WriteString("; CPU is server CPU seconds per 1M round trips;\n" +
			"srv%/gen% are the server's and the load generator's CPU use over the window (gen near 100% = generator-bound)")
	}
	b.WriteString(".\n")
	counters := len(thr) > 0 && rc.counters != countersOff
	if counters {
		writeCounterNotes(&b, rc)
	}
	if slices.IndexFunc(rc.scenarios, func(sc Scenario) bool { return sc.Flood }) >= 0 {
		b.WriteString("flood+ping: rt/s, p50 and p99 are the ping connection's (one message at a time), MB/s the flood connection's echo, both on one server.\n")
		if counters {
			b.WriteString("flood+ping: the …/rt columns are per ping, with the flood's system calls and switches in the numerator: not comparable with the other scenarios.\n")
		}
	}
	b.WriteString("\n")
	if len(thr) > 0 {
		b.WriteString("| scenario | server | rt/s | MB/s | p50 µs | p99 µs | CPU s/1M | srv% | gen% | rt/s ÷ best | p99 ÷ best | CPU ÷ best | rt/s ÷ net | CPU ÷ net |")
		if counters {
			for _, c := range counterColumns {
				b.WriteString(" " + c.head + " |")
			}
		}
		b.WriteString("\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
		if counters {
			b.WriteString(strings.Repeat("---:|", len(counterColumns)))
		}
		b.WriteString("\n")
		for _, s := range thr {
			fmt.Fprintf(&b, "| %s | %s | %.0f | %.1f | %.0f | %.0f | %.2f | %.0f | %.0f | %s | %s | %s | %s | %s |",
				s.Scenario, s.Server, s.RTPS, s.BytesPerSec/1e6, s.P50us, s.P99us, s.CPUPer1M,
				100*s.ServerCPU, 100*s.LoadCPU,
				benchproc.Ratio(s.RTPSvsBest), benchproc.Ratio(s.P99vsBest), benchproc.Ratio(s.CPUvsBest),
				benchproc.Ratio(s.RTPSvsNet), benchproc.Ratio(s.CPUvsNet))
			if counters {
				for _, c := range counterColumns {
					b.WriteString(" " + perRT(*c.field(&s.Counters)) + " |")
				}
			}
			b.WriteString("\n")
		}
	}
	if len(idle) > 0 {
		if len(thr) > 0 {
			b.WriteString("\n")
		}
		b.WriteString("| scenario | server | server RSS per idle conn | ÷ best | ÷ net |\n")
		b.WriteString("|---|---|---:|---:|---:|\n")
		for _, s := range idle {
			fmt.Fprintf(&b, "| %s | %s | %.0f B | %s | %s |\n", s.Scenario, s.Server, s.RSSPerConn,
				benchproc.Ratio(s.RSSvsBest), benchproc.Ratio(s.RSSvsNet))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func isIdle(rc runConfig, name string) bool {
	for _, sc := range rc.scenarios {
		if sc.Name == name {
			return sc.Idle
		}
	}
	return false
}

// counterColumns are the table's counter columns, in order, with their
// notes.
var counterColumns = []struct {
	head  string
	field func(*Counters) **float64
	note  string
}{
	{"cs/rt", func(c *Counters) **float64 { return &c.CtxSwitchesPerRT },
		"context switches (voluntary + nonvoluntary) of all the server's threads: perf's context-switches, else summed over /proc/<pid>/task/*/status (threads that exit in the window are lost)"},
	{"sys/rt", func(c *Counters) **float64 { return &c.SyscallsPerRT },
		"every system call of the server (perf: raw_syscalls:sys_enter)"},
	{"reads/rt", func(c *Counters) **float64 { return &c.ReadsPerRT },
		"read, readv, recvfrom and recvmsg calls (perf), else /proc/<pid>/io's syscr (read, readv, pread64...: no recvfrom or recvmsg)"},
	{"writes/rt", func(c *Counters) **float64 { return &c.WritesPerRT },
		"write, writev, sendto and sendmsg calls (perf), else /proc/<pid>/io's syscw (write, writev, pwrite64...: no sendto or sendmsg)"},
	{"futex/rt", func(c *Counters) **float64 { return &c.FutexPerRT },
		"futex calls (perf): threads parking and waking each other"},
	{"epoll/rt", func(c *Counters) **float64 { return &c.EpollWaitsPerRT },
		"epoll_wait, epoll_pwait and epoll_pwait2 calls (perf)"},
	{"sleep/rt", func(c *Counters) **float64 { return &c.SleepsPerRT },
		"nanosleep and clock_nanosleep calls (perf)"},
}

// countersRunNote says why perf counts in a run of its own: what its
// counting cost the server, measured on a 2-CPU VM with `echobench run
// -servers netkit,gnet -scenarios 64x64B,1x64B`, runs with and without
// perf alternating (10 of each): server CPU per round trip +10.8% and
// +8.9% at 64x64B (netkit, gnet), +11.4% and +46% at 1x64B. Each system
// call takes the traced path (getppid: 110 -> 175 ns), and each context
// switch of a thread perf follows switches its 16 events out and in (a
// pipe ping-pong of two threads on one CPU: 4.5 -> 14 µs per round trip).
// The /proc counters, read at the window's edges only, cost nothing in
// it.
const countersRunNote = "counting added 9–46% to the server's CPU per round trip (netkit, gnet; 64x64B, 1x64B)"

// writeCounterNotes explains the counter columns, a line each.
func writeCounterNotes(b *strings.Builder, rc runConfig) {
	switch rc.counters {
	case countersPerf:
		b.WriteString("…/rt: the server process's calls and switches over the window per round trip, counted by perf stat (tracepoints; perf on CPU 1) in one extra\n" +
			"\"counters run\" per scenario and server after the measured ones, whose rt/s, latencies and CPU are not used: " + countersRunNote + "; \"–\" = not measured.\n")
	default:
		b.WriteString("…/rt: the server process's calls and switches over the measured window per round trip, from /proc only (perf not used: sys/rt, futex/rt, epoll/rt and sleep/rt are \"–\").\n")
	}
	for _, c := range counterColumns {
		fmt.Fprintf(b, "%s: %s.\n", c.head, c.note)
	}
}

// perRT shows a per-round-trip count with two or three significant
// digits (0.043, 1.00, 3.02, 12.5), and "–" for nil (not measured).
func perRT(v *float64) string {
	switch x := math.Abs(ptrOr(v)); {
	case v == nil:
		return "–"
	case x == 0:
		return "0"
	case x >= 100:
		return fmt.Sprintf("%.0f", *v)
	case x >= 10:
		return fmt.Sprintf("%.1f", *v)
	case x >= 0.1:
		return fmt.Sprintf("%.2f", *v)
	case x >= 0.001:
		return fmt.Sprintf("%.3f", *v)
	default:
		return fmt.Sprintf("%#.2g", *v)
	}
}

func ptrOr(v *float64) float64 {
	if v == nil {
		return 0
	}
	return *v
}
