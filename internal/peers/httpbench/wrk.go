package httpbench

import (
	"bufio"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// pipelineScript is the wrk script of the pipelined runs: it builds one
// GET of the path with the headers TechEmpower's plaintext test sends, and
// repeats it depth times (depth is the script's first argument) into one
// string that every request() call returns — so each write to a connection
// carries depth requests, and wrk waits for depth responses before it
// writes again.
const pipelineScript = `-- httpbench: depth pipelined GETs per write.
local batch

function init(args)
  local depth = tonumber(args[1] or "1")
  local headers = {
    ["Accept"] = "` + acceptHeader + `",
    ["Connection"] = "` + connectionHeader + `",
  }
  local one = wrk.format("GET", wrk.path, headers, nil)
  batch = string.rep(one, depth)
end

function request()
  return batch
end
`

// WrkResult is what wrk reported for one run.
type WrkResult struct {
	Requests int64   `json:"requests"`       // responses counted
	Seconds  float64 `json:"seconds"`        // wrk's own measured time
	RPS      float64 `json:"requests_per_s"` // Requests/sec
	P50us    float64 `json:"p50_us"`
	P99us    float64 `json:"p99_us"`
	// P99IsMax is set when wrk printed a 99th percentile of 0 (it does so
	// in pipelined runs, when its count of latencies exceeds what it
	// recorded): P99us is then wrk's maximum latency, an upper bound.
	P99IsMax     bool    `json:"p99_is_max,omitempty"`
	MaxUs        float64 `json:"max_us"`
	Non2xx       int64   `json:"non_2xx_3xx"`
	SocketErrors int64   `json:"socket_errors"` // connect + read + write + timeout
	Raw          string  `json:"-"`
}

// valid reports whether the run of sc counts: it had responses and no
// errors of any kind; an idle run, all its connections.
func (m Measurement) valid(sc Scenario) error {
	if sc.Kind == kindIdle {
		if m.SocketErrors > 0 {
			return fmt.Errorf("%d of %d connections failed (%s)", m.SocketErrors, sc.Conns, m.Raw)
		}
		return nil
	}
	return m.WrkResult.Valid()
}

// Valid reports whether the run counts: it had responses and no errors of
// any kind.
func (r WrkResult) Valid() error {
	var errs []error
	if r.Requests == 0 || r.RPS == 0 {
		errs = append(errs, errors.New("no requests completed"))
	}
	if r.Non2xx > 0 {
		errs = append(errs, fmt.Errorf("%d non-2xx or 3xx responses", r.Non2xx))
	}
	if r.SocketErrors > 0 {
		errs = append(errs, fmt.Errorf("%d socket errors", r.SocketErrors))
	}
	return errors.Join(errs...)
}

// parseWrk reads wrk's report (run with --latency).
func parseWrk(out string) (WrkResult, error) {
	r := WrkResult{Raw: out}
	var haveRPS, have99 bool
	inDist := false
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		f := strings.Fields(line)
		switch {
		case line == "Latency Distribution":
			inDist = true
		case !inDist && len(f) >= 4 && f[0] == "Latency":
			// Latency   avg   stdev   max   +/-stdev
			d, err := parseWrkDuration(f[3])
			if err != nil {
				return r, fmt.Errorf("wrk latency line %q: %w", line, err)
			}
			r.MaxUs = d
		case inDist && len(f) == 2 && strings.HasSuffix(f[0], "%"):
			d, err := parseWrkDuration(f[1])
			if err != nil {
				return r, fmt.Errorf("wrk latency line %q: %w", line, err)
			}
			switch f[0] {
			case "50%", "50.000%":
				r.P50us = d
			case "99%", "99.000%":
				r.P99us, have99 = d, true
			}
		case len(f) >= 5 && f[1] == "requests" && f[2] == "in":
			inDist = false
			n, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				return r, fmt.Errorf("wrk line %q: %w", line, err)
			}
			r.Requests = n
			d, err := parseWrkDuration(strings.TrimSuffix(f[3], ","))
			if err != nil {
				return r, fmt.Errorf("wrk line %q: %w", line, err)
			}
			r.Seconds = d / 1e6
		case strings.HasPrefix(line, "Socket errors:"):
			// Socket errors: connect 0, read 0, write 0, timeout 0
			for i := 2; i+1 < len(f); i += 2 {
				n, err := strconv.ParseInt(strings.TrimSuffix(f[i+1], ","), 10, 64)
				if err != nil {
					return r, fmt.Errorf("wrk line %q: %w", line, err)
				}
				r.SocketErrors += n
			}
		case strings.HasPrefix(line, "Non-2xx or 3xx responses:"):
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimPrefix(line, "Non-2xx or 3xx responses:")), 10, 64)
			if err != nil {
				return r, fmt.Errorf("wrk line %q: %w", line, err)
			}
			r.Non2xx = n
		case strings.HasPrefix(line, "Requests/sec:"):
			v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimPrefix(line, "Requests/sec:")), 64)
			if err != nil {
				return r, fmt.Errorf("wrk line %q: %w", line, err)
			}
			r.RPS, haveRPS = v, true
		default:
			if len(f) > 0 && !strings.HasSuffix(f[0], "%") {
				inDist = false
			}
		}
	}
	if !haveRPS {
		return r, errors.New("wrk's output has no Requests/sec line")
	}
	if !have99 {
		return r, errors.New("wrk's output has no 99% latency line (run with --latency)")
	}
	if r.P99us == 0 && r.MaxUs > 0 {
		r.P99us, r.P99IsMax = r.MaxUs, true
	}
	return r, nil
}

// parseWrkDuration reads one of wrk's durations ("812.00us", "1.23ms",
// "2.00s", "1.50m", "1.00h") in microseconds.
func parseWrkDuration(s string) (float64, error) {
	units := []struct {
		suffix string
		us     float64
	}{{"us", 1}, {"ms", 1e3}, {"s", 1e6}, {"m", 60e6}, {"h", 3600e6}}
	for _, u := range units {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return 0, err
			}
			return x * u.us, nil
		}
	}
	return 0, fmt.Errorf("unknown duration %q", s)
}

// The request headers besides Host that TechEmpower's plaintext test
// sends; the pipeline script sets the same.
const (
	acceptHeader     = "text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7"
	connectionHeader = "keep-alive"
)

// wrkArgs returns wrk's arguments for one run against url: with the
// pipeline script when script is set, else with the same headers as -H
// flags (a script's request() would cost wrk a Lua call per request).
func wrkArgs(url string, conns int, d time.Duration, script string, depth int) []string {
	args := []string{"-t1", "-c" + strconv.Itoa(conns), "-d" + wrkSeconds(d), "--latency"}
	if script != "" {
		args = append(args, "-s", script)
	} else {
		args = append(args, "-H", "Accept: "+acceptHeader, "-H", "Connection: "+connectionHeader)
	}
	args = append(args, url)
	if script != "" {
		args = append(args, "--", strconv.Itoa(depth))
	}
	return args
}

// wrkSeconds formats d for wrk's -d, which takes whole units.
func wrkSeconds(d time.Duration) string {
	s := int64(d / time.Second)
	if s < 1 {
		s = 1
	}
	return strconv.FormatInt(s, 10) + "s"
}
