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
	Depth       int     `json:"depth"`
	Runs        int     `json:"runs"`
	Invalid     int     `json:"invalid_runs"`
	RPS         float64 `json:"requests_per_s"`
	P99us       float64 `json:"p99_us"`
	P99IsMax    bool    `json:"p99_is_max,omitempty"` // some runs' p99 is wrk's max (see WrkResult)
	CPUPerReqUs float64 `json:"server_cpu_us_per_req"`
	ServerCPU   float64 `json:"server_cpu_fraction"`
	// Ratios to fasthttp and to net/http (higher requests/s is better;
	// lower p99 and CPU are).
	RPSvsFast float64 `json:"requests_per_s_vs_fasthttp"`
	P99vsFast float64 `json:"p99_vs_fasthttp"`
	CPUvsFast float64 `json:"cpu_per_req_vs_fasthttp"`
	RPSvsNet  float64 `json:"requests_per_s_vs_nethttp"`
	CPUvsNet  float64 `json:"cpu_per_req_vs_nethttp"`
}

// summarize takes the median of each column over the valid runs of each
// (scenario, server), then the ratios to fasthttp and net/http.
func summarize(rc runConfig, ms []Measurement) []Summary {
	var out []Summary
	for _, sc := range rc.scenarios {
		var rows []Summary
		for _, srv := range rc.servers {
			s := Summary{Scenario: sc.Name, Server: srv, Depth: sc.Depth}
			var rps, p99, cpu, frac []float64
			for _, m := range ms {
				if m.Scenario != sc.Name || m.Server != srv {
					continue
				}
				if m.Invalid != "" {
					s.Invalid++
					continue
				}
				rps, p99 = append(rps, m.RPS), append(p99, m.P99us)
				s.P99IsMax = s.P99IsMax || m.P99IsMax
				cpu, frac = append(cpu, m.CPUPerReqUs), append(frac, m.ServerCPUFrac)
			}
			s.Runs = len(rps)
			s.RPS, s.P99us = benchproc.Median(rps), benchproc.Median(p99)
			s.CPUPerReqUs, s.ServerCPU = benchproc.Median(cpu), benchproc.Median(frac)
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
			f = Summary{RPS: nan, P99us: nan, CPUPerReqUs: nan}
		}
		if !okN {
			n = Summary{RPS: nan, CPUPerReqUs: nan}
		}
		for i := range rows {
			r := &rows[i]
			r.RPSvsFast, r.P99vsFast, r.CPUvsFast = r.RPS/f.RPS, r.P99us/f.P99us, r.CPUPerReqUs/f.CPUPerReqUs
			r.RPSvsNet, r.CPUvsNet = r.RPS/n.RPS, r.CPUPerReqUs/n.CPUPerReqUs
		}
		out = append(out, rows...)
	}
	// JSON has no NaN: a value that does not exist (no valid run, no
	// reference) is 0 there and "–" in the table.
	for i := range out {
		r := &out[i]
		benchproc.ZeroNaN(&r.RPS, &r.P99us, &r.CPUPerReqUs, &r.ServerCPU,
			&r.RPSvsFast, &r.P99vsFast, &r.CPUvsFast, &r.RPSvsNet, &r.CPUvsNet)
	}
	return out
}

func writeTable(w io.Writer, rc runConfig, sums []Summary) error {
	var b strings.Builder
	pin := "server on CPU 0 with GOMAXPROCS=1, wrk on CPU 1 (taskset)"
	if !rc.pin {
		pin = "UNPINNED (no taskset or fewer than 2 CPUs)"
	}
	kind := fmt.Sprintf("medians of %d runs", rc.runs)
	if rc.smoke {
		kind = "SMOKE RUN (1 run each, not a measurement)"
	}
	conns := 0
	if len(rc.scenarios) > 0 {
		conns = rc.scenarios[0].Conns
	}
	fmt.Fprintf(&b, "HTTP/1.1 plaintext (wrk -t1 -c%d -d%s --latency): %s, %s.\n", conns, wrkSeconds(rc.duration), kind, pin)
	b.WriteString("A p99 shown as ≤ max is wrk's maximum latency: in pipelined runs wrk can print a 99th percentile of 0.\n")
	b.WriteString("CPU is the server's user+system time per request (from /proc/<pid>/stat over wrk's run); srv% is that time over the run's length.\n\n")
	b.WriteString("| impl | pipelining | requests/s | p99 | CPU µs/req | srv% | req/s ÷ fasthttp | p99 ÷ fasthttp | CPU ÷ fasthttp | req/s ÷ net/http | CPU ÷ net/http |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range sums {
		impl := s.Server
		if s.Invalid > 0 {
			impl += fmt.Sprintf(" (INVALID: %d of %d runs had errors)", s.Invalid, s.Invalid+s.Runs)
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			impl, s.Depth, num(s.RPS, "%.0f"), p99Cell(s), num(s.CPUPerReqUs, "%.2f"), num(100*s.ServerCPU, "%.0f"),
			benchproc.Ratio(s.RPSvsFast), benchproc.Ratio(s.P99vsFast), benchproc.Ratio(s.CPUvsFast),
			benchproc.Ratio(s.RPSvsNet), benchproc.Ratio(s.CPUvsNet))
	}
	_, err := io.WriteString(w, b.String())
	return err
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
