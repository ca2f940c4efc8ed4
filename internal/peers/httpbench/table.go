package httpbench

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/netkit/netkit/internal/peers/benchproc"
)

// Summary is the median over the valid runs of one (scenario, server).
type Summary struct {
	Scenario    string  `json:"scenario"`
	Server      string  `json:"server"`
	Kind        string  `json:"kind,omitempty"`
	Conns       int     `json:"conns"`
	Depth       int     `json:"depth"`
	Runs        int     `json:"runs"`
	Invalid     int     `json:"invalid_runs"`
	RPS         float64 `json:"requests_per_s"`
	P50us       float64 `json:"p50_us"`
	P99us       float64 `json:"p99_us"`
	P99IsMax    bool    `json:"p99_is_max,omitempty"` // some runs' p99 is wrk's max (see WrkResult)
	CPUPerReqUs float64 `json:"server_cpu_us_per_req"`
	SysPerReqUs float64 `json:"server_sys_us_per_req"`
	ServerCPU   float64 `json:"server_cpu_fraction"`
	RSSMiB      float64 `json:"server_rss_mib"`
	// Ratios to fasthttp and to net/http (higher requests/s is better;
	// lower p99, CPU and RSS are).
	RPSvsFast float64 `json:"requests_per_s_vs_fasthttp"`
	P99vsFast float64 `json:"p99_vs_fasthttp"`
	CPUvsFast float64 `json:"cpu_per_req_vs_fasthttp"`
	RSSvsFast float64 `json:"rss_vs_fasthttp"`
	RPSvsNet  float64 `json:"requests_per_s_vs_nethttp"`
	CPUvsNet  float64 `json:"cpu_per_req_vs_nethttp"`
	RSSvsNet  float64 `json:"rss_vs_nethttp"`
}

// summarize takes the median of each column over the valid runs of each
// (scenario, server), then the ratios to fasthttp and net/http.
func summarize(rc runConfig, ms []Measurement) []Summary {
	var out []Summary
	for _, sc := range rc.scenarios {
		var rows []Summary
		for _, srv := range rc.servers {
			s := Summary{Scenario: sc.Name, Server: srv, Kind: sc.Kind, Conns: sc.Conns, Depth: sc.Depth}
			var rps, p50, p99, cpu, sys, frac, rss []float64
			for _, m := range ms {
				if m.Scenario != sc.Name || m.Server != srv {
					continue
				}
				if m.Invalid != "" {
					s.Invalid++
					continue
				}
				rps, p50, p99 = append(rps, m.RPS), append(p50, m.P50us), append(p99, m.P99us)
				s.P99IsMax = s.P99IsMax || m.P99IsMax
				cpu, frac = append(cpu, m.CPUPerReqUs), append(frac, m.ServerCPUFrac)
				sys = append(sys, m.SysPerReqUs)
				rss = append(rss, float64(m.ServerRSS)/(1<<20))
			}
			s.Runs = len(rps)
			s.RPS, s.P50us, s.P99us = benchproc.Median(rps), benchproc.Median(p50), benchproc.Median(p99)
			s.CPUPerReqUs, s.ServerCPU = benchproc.Median(cpu), benchproc.Median(frac)
			s.RSSMiB, s.SysPerReqUs = benchproc.Median(rss), benchproc.Median(sys)
			if sc.Kind == kindIdle { // no load: no rate, no CPU per request
				s.RPS, s.CPUPerReqUs, s.SysPerReqUs, s.ServerCPU = math.NaN(), math.NaN(), math.NaN(), math.NaN()
			}
			rows = append(rows, s)
		}
		ref := func(name string) (Summary, bool) {
			i := slices.IndexFunc(rows, func(s Summary) bool { return s.Server == name })
			if i < 0 {
				return Summary{}, false
			}
			return rows[i], true
		}
		nan := math.NaN()
		f, okF := ref("fasthttp")
		n, okN := ref("nethttp")
		if !okF {
			f = Summary{RPS: nan, P99us: nan, CPUPerReqUs: nan, RSSMiB: nan}
		}
		if !okN {
			n = Summary{RPS: nan, CPUPerReqUs: nan, RSSMiB: nan}
		}
		for i := range rows {
			r := &rows[i]
			r.RPSvsFast, r.P99vsFast, r.CPUvsFast = r.RPS/f.RPS, r.P99us/f.P99us, r.CPUPerReqUs/f.CPUPerReqUs
			r.RPSvsNet, r.CPUvsNet = r.RPS/n.RPS, r.CPUPerReqUs/n.CPUPerReqUs
			r.RSSvsFast, r.RSSvsNet = r.RSSMiB/f.RSSMiB, r.RSSMiB/n.RSSMiB
		}
		out = append(out, rows...)
	}
	// JSON has no NaN: a value that does not exist (no valid run, no
	// reference) is 0 there and "–" in the table.
	for i := range out {
		r := &out[i]
		benchproc.ZeroNaN(&r.RPS, &r.P50us, &r.P99us, &r.CPUPerReqUs, &r.SysPerReqUs, &r.ServerCPU, &r.RSSMiB,
			&r.RPSvsFast, &r.P99vsFast, &r.CPUvsFast, &r.RSSvsFast, &r.RPSvsNet, &r.CPUvsNet, &r.RSSvsNet)
	}
	return out
}

func writeTable(w io.Writer, rc runConfig, sums []Summary) error {
	var b strings.Builder
	pin := "server on CPU 0 with GOMAXPROCS=1, load on CPU 1 (taskset)"
	if !rc.pin {
		pin = "UNPINNED (no taskset or fewer than 2 CPUs)"
	}
	kind := fmt.Sprintf("medians of %d runs", rc.runs)
	if rc.smoke {
		kind = "SMOKE RUN (1 run each, not a measurement)"
	}
	fmt.Fprintf(&b, "HTTP/1.1 servers, %s runs of %s each: %s, %s.\n", "wrk -t1 --latency (or the latency generator, gen)", wrkSeconds(rc.duration), kind, pin)
	b.WriteString("Latency: wrk's for unpipelined runs; none from wrk's pipelined runs (its percentiles are wrong there), the gen rows measure them.\n")
	b.WriteString("CPU is the server's user+system time per request (from /proc/<pid>/stat over the run), sys the system part of it; srv% is CPU over the run's length.\n")
	b.WriteString("RSS is the server's peak resident set (VmHWM) after a loaded run; for idle rows, its resident set with the connections open.\n\n")
	b.WriteString("| scenario | impl | conns | depth | requests/s | p50 | p99 | CPU µs/req | sys µs/req | srv% | RSS MiB | req/s ÷ fasthttp | CPU ÷ fasthttp | RSS ÷ fasthttp | req/s ÷ net/http | RSS ÷ net/http |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range sums {
		impl := s.Server
		if s.Invalid > 0 {
			impl += fmt.Sprintf(" (INVALID: %d of %d runs had errors)", s.Invalid, s.Invalid+s.Runs)
		}
		scen := s.Scenario
		if s.Kind != "" {
			scen += " (" + s.Kind + ")"
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			scen, impl, s.Conns, depthCell(s), num(s.RPS, "%.0f"), latency(s.P50us), p99Cell(s),
			num(s.CPUPerReqUs, "%.2f"), num(s.SysPerReqUs, "%.2f"), num(100*s.ServerCPU, "%.0f"), num(s.RSSMiB, "%.1f"),
			benchproc.Ratio(s.RPSvsFast), benchproc.Ratio(s.CPUvsFast), benchproc.Ratio(s.RSSvsFast),
			benchproc.Ratio(s.RPSvsNet), benchproc.Ratio(s.RSSvsNet))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func depthCell(s Summary) string {
	if s.Kind == kindIdle {
		return "–"
	}
	return fmt.Sprint(s.Depth)
}

func num(x float64, format string) string {
	if x == 0 || math.IsNaN(x) {
		return "–"
	}
	return fmt.Sprintf(format, x)
}

// p99Cell shows a p99 that is wrk's maximum latency (an upper bound) as
// "≤ max".
func p99Cell(s Summary) string {
	if s.P99IsMax && s.P99us > 0 {
		return "≤ " + latency(s.P99us) + " (max; wrk printed p99 0)"
	}
	return latency(s.P99us)
}

func latency(us float64) string {
	switch {
	case us == 0 || math.IsNaN(us):
		return "–"
	case us >= 1000:
		return fmt.Sprintf("%.2f ms", us/1000)
	}
	return fmt.Sprintf("%.0f µs", us)
}
