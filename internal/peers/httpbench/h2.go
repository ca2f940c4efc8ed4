package httpbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/netkit/netkit/codec/hpack"
	nkh2 "github.com/netkit/netkit/codec/http2"
	"github.com/netkit/netkit/eventloop"
	"github.com/netkit/netkit/eventloop/httpserver"
	"github.com/netkit/netkit/internal/peers/benchproc"
)

// The HTTP/2 benchmark (httpbench h2): netkit's h2c server against Go's
// h2c server (x/net/http2, as net/http bundles it), loaded by nghttp2's
// h2load, and both holding 10,000 idle HTTP/2 connections.

// h2Servers are the h2c servers, by -impl name; they are not in the
// HTTP/1.1 benchmark's default list.
var h2Servers = []string{"netkit-h2", "go-h2c"}

func init() {
	starters["netkit-h2"] = startNetkitH2
	starters["go-h2c"] = startGoH2C
}

// startNetkitH2 is startNetkit with WithH2C: the same handler answers
// HTTP/2 streams.
func startNetkitH2(addr string) (*benchproc.Server, error) {
	g, err := eventloop.NewGroup(eventloop.Config{})
	if err != nil {
		return nil, err
	}
	return serveNetkit(g, addr, netkitHandler, httpserver.WithH2C())
}

// startGoH2C is Go's HTTP/2 server (x/net/http2's, which net/http
// bundles) serving h2c, with the ServeMux nethttp serves and every
// setting at its default. x/net's h2c package and http2.Server are
// deprecated for this: an http.Server whose Protocols allow unencrypted
// HTTP/2, as here, is the documented way.
func startGoH2C(addr string) (*benchproc.Server, error) {
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	return serveNetHTTP(addr, &http.Server{Handler: benchMux("go-h2c"), Protocols: &p})
}

// H2Scenario is an HTTP/2 load shape: h2load with Conns connections of
// Streams concurrent streams each, or Conns idle connections (Idle).
type H2Scenario struct {
	Name    string `json:"name"`
	Path    string `json:"path"`
	Conns   int    `json:"conns"`
	Streams int    `json:"streams"`
	Idle    bool   `json:"idle,omitempty"`
}

var h2Scenarios = []H2Scenario{
	{Name: "h2-plaintext", Path: Path, Conns: 64, Streams: 100},
	{Name: "h2-json", Path: JSONPath, Conns: 64, Streams: 100},
	{Name: "h2-idle10k", Path: Path, Conns: 10000, Idle: true},
}

func (sc H2Scenario) name() string { return sc.Name }

// H2Measurement is one (scenario, server, run).
type H2Measurement struct {
	Scenario    string  `json:"scenario"`
	Server      string  `json:"server"`
	Run         int     `json:"run"`
	Requests    int64   `json:"requests"`
	Failed      int64   `json:"failed"`
	Seconds     float64 `json:"seconds"`
	RPS         float64 `json:"requests_per_s"`
	CPUPerReqUs float64 `json:"server_cpu_us_per_req"`
	SysPerReqUs float64 `json:"server_sys_us_per_req"`
	RSS         int64   `json:"server_rss_bytes"`
	Raw         string  `json:"raw,omitempty"`
}

// lookH2load finds h2load: $H2LOAD, then the PATH.
func lookH2load() (string, error) {
	if p := os.Getenv("H2LOAD"); p != "" {
		return p, nil
	}
	if p, err := exec.LookPath("h2load"); err == nil {
		return p, nil
	}
	return "", errors.New("h2load not found: install the Debian package (apt-get install nghttp2-client) or set H2LOAD=/path/to/h2load")
}

func cmdH2(stdout, stderr io.Writer, args []string) error {
	fs := benchproc.NewFlags("httpbench", "h2", stderr)
	servers := fs.String("servers", strings.Join(h2Servers, ","), "servers to compare")
	scens := fs.String("scenarios", strings.Join(benchproc.NamesOf(h2Scenarios, H2Scenario.name), ","), "scenarios")
	runs := fs.Int("runs", 3, "runs per scenario and server (the median is reported)")
	duration := fs.Duration("duration", 5*time.Second, "h2load's -D per run (whole seconds)")
	jsonOut := fs.String("json", "", "also write every measurement as JSON here")
	smoke := fs.Bool("smoke", false, "one 1-second run per server and scenario: checks the harness, measures nothing")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *smoke {
		*runs, *duration = 1, time.Second
	}
	srvs, err := benchproc.Split("server", *servers, h2Servers)
	if err != nil {
		return err
	}
	scs, err := benchproc.Pick("scenario", *scens, h2Scenarios, H2Scenario.name)
	if err != nil {
		return err
	}
	if *duration < time.Second || *runs < 1 {
		return errors.New("h2: -duration at least 1s, -runs at least 1")
	}
	h2load, err := lookH2load()
	if err != nil {
		fmt.Fprintf(stderr, "\n*** httpbench: ERROR: %v ***\n\n", err)
		return err
	}
	pin := benchproc.CanPin(stderr, "httpbench", "h2load")
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	var ms []H2Measurement
	err = benchproc.Interleave(ctx, scs, H2Scenario.name, srvs, *runs, func(sc H2Scenario, srv string, r int) error {
		m, err := measureH2(ctx, exe, h2load, pin, *duration, sc, srv)
		if err != nil {
			return err
		}
		m.Run = r
		fmt.Fprintf(stderr, "httpbench: %-14s %-10s run %d: %.0f req/s, server CPU %.2f µs/req (%.2f system), RSS %.1f MiB\n",
			sc.Name, srv, r, m.RPS, m.CPUPerReqUs, m.SysPerReqUs, float64(m.RSS)/(1<<20))
		ms = append(ms, m)
		return nil
	})
	if err != nil {
		return err
	}
	writeH2Table(stdout, scs, srvs, *runs, *duration, pin, *smoke, ms)
	if *jsonOut != "" {
		return benchproc.WriteJSON(*jsonOut, map[string]any{"go": runtime.Version(), "runs": *runs,
			"duration": duration.String(), "pinned": pin, "smoke": *smoke, "measurements": ms})
	}
	return nil
}

// measureH2 starts one server, loads it (or holds idle connections to it)
// and reads its CPU time and resident set.
func measureH2(ctx context.Context, exe, h2load string, pin bool, d time.Duration, sc H2Scenario, impl string) (m H2Measurement, err error) {
	m = H2Measurement{Scenario: sc.Name, Server: impl}
	srv, addr, err := benchproc.StartServer(ctx, exe, pin, childVars, impl)
	if err != nil {
		return m, err
	}
	defer func() {
		if serr := srv.Stop(); serr != nil && err == nil {
			err = serr
		}
	}()
	if err := checkH2(addr, sc.Path); err != nil {
		return m, srv.Fail(fmt.Errorf("%s answers HTTP/2 wrongly: %w", impl, err))
	}
	pid := srv.Pid()
	user0, sys0, err := benchproc.ProcTimes(pid)
	if err != nil {
		return m, err
	}
	if sc.Idle {
		err = holdIdleH2(ctx, addr, sc, &m)
		if err == nil {
			m.RSS, _, err = benchproc.ProcMem(pid)
		}
		return m, err
	}
	secs := strconv.Itoa(int(d / time.Second))
	name, args := benchproc.Pinned(pin, 1, h2load, "-c", strconv.Itoa(sc.Conns), "-m", strconv.Itoa(sc.Streams),
		"-t", "1", "-D", secs, "http://"+addr+sc.Path)
	cmd := exec.CommandContext(ctx, name, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return m, fmt.Errorf("%s: %w\n%s%s", cmd.Args, err, out.String(), errb.String())
	}
	if err := parseH2load(out.String(), &m); err != nil {
		return m, fmt.Errorf("%w; h2load said:\n%s%s", err, out.String(), errb.String())
	}
	if m.Failed > 0 || m.Requests == 0 {
		return m, fmt.Errorf("h2load: %d requests, %d failed:\n%s", m.Requests, m.Failed, out.String())
	}
	user1, sys1, err := benchproc.ProcTimes(pid)
	if err != nil {
		return m, err
	}
	if _, m.RSS, err = benchproc.ProcMem(pid); err != nil {
		return m, err
	}
	m.CPUPerReqUs = (user1 - user0 + sys1 - sys0) / float64(m.Requests) * 1e6
	m.SysPerReqUs = (sys1 - sys0) / float64(m.Requests) * 1e6
	if err := checkH2(addr, sc.Path); err != nil {
		return m, srv.Fail(fmt.Errorf("%s answers wrongly after the load: %w", impl, err))
	}
	return m, nil
}

var (
	h2Finished = regexp.MustCompile(`finished in ([0-9.]+)(m?s), ([0-9.]+) req/s`)
	h2Requests = regexp.MustCompile(`requests: (\d+) total, \d+ started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout`)
)

// parseH2load reads h2load's summary: its time, rate and request counts.
func parseH2load(out string, m *H2Measurement) error {
	f := h2Finished.FindStringSubmatch(out)
	r := h2Requests.FindStringSubmatch(out)
	if f == nil || r == nil {
		return errors.New("no summary in h2load's output")
	}
	m.Seconds, _ = strconv.ParseFloat(f[1], 64)
	if f[2] == "ms" {
		m.Seconds /= 1000
	}
	m.RPS, _ = strconv.ParseFloat(f[3], 64)
	m.Requests, _ = strconv.ParseInt(r[3], 10, 64)
	failed, _ := strconv.ParseInt(r[4], 10, 64)
	errored, _ := strconv.ParseInt(r[5], 10, 64)
	timeout, _ := strconv.ParseInt(r[6], 10, 64)
	m.Failed = failed + errored + timeout
	m.Raw = f[0] + "; " + r[0]
	return nil
}

// h2Conn opens an HTTP/2 connection to addr and sends one GET for path;
// it returns once the whole response has come.
func h2Conn(ctx context.Context, addr, path string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	defer c.SetDeadline(time.Time{})
	var enc hpack.Encoder
	block := enc.AppendFields(nil, []hpack.Field{{Name: ":method", Value: "GET"}, {Name: ":scheme", Value: "http"},
		{Name: ":path", Value: path}, {Name: ":authority", Value: addr}})
	w := append([]byte(nkh2.ClientPreface), nkh2.AppendSettings(nil)...)
	w, _ = nkh2.AppendHeaders(w, 1, true, true, block)
	if _, err := c.Write(w); err != nil {
		c.Close()
		return nil, err
	}
	dec := nkh2.Decoder{MaxFrameSize: nkh2.MaxFrameSizeLimit}
	var f nkh2.Frame
	var in []byte
	b := make([]byte, 4096)
	acked := false
	for {
		n, err := dec.DecodeBytes(in, &f)
		if err == nil {
			in = in[n:]
			switch {
			case f.Type == nkh2.FrameSettings && !f.Ack() && !acked:
				acked = true
				if _, err := c.Write(nkh2.AppendSettingsAck(nil)); err != nil {
					c.Close()
					return nil, err
				}
			case f.StreamID == 1 && f.EndStream():
				return c, nil
			case f.Type == nkh2.FrameGoAway || f.Type == nkh2.FrameRSTStream:
				c.Close()
				return nil, fmt.Errorf("%v from the server", f.Type)
			}
			continue
		}
		if !errors.Is(err, nkh2.ErrShort) {
			c.Close()
			return nil, err
		}
		k, rerr := c.Read(b)
		in = append(in, b[:k]...)
		if rerr != nil {
			c.Close()
			return nil, rerr
		}
	}
}

// checkH2 asks for path over h2c with Go's client and checks the answer.
func checkH2(addr, path string) error {
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	cl := &http.Client{Transport: &http.Transport{Protocols: &p}, Timeout: 10 * time.Second}
	defer cl.CloseIdleConnections()
	resp, err := cl.Get("http://" + addr + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	want := Body
	if path == JSONPath {
		want = string(jsonMessage())
	}
	if resp.ProtoMajor != 2 || resp.StatusCode != 200 || string(body) != want {
		return fmt.Errorf("HTTP/%d %d %q", resp.ProtoMajor, resp.StatusCode, body)
	}
	return nil
}

// holdIdleH2 opens sc.Conns HTTP/2 connections, each with one request
// answered, and waits a second with all of them open and idle.
func holdIdleH2(ctx context.Context, addr string, sc H2Scenario, m *H2Measurement) error {
	conns := make([]net.Conn, sc.Conns)
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}()
	var (
		next     atomic.Int64
		failed   atomic.Int64
		firstErr atomic.Value
		wg       sync.WaitGroup
	)
	for range 64 {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(len(conns)); i = next.Add(1) - 1 {
				c, err := h2Conn(ctx, addr, sc.Path)
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				conns[i] = c
			}
		})
	}
	wg.Wait()
	time.Sleep(time.Second)
	m.Requests = int64(sc.Conns) - failed.Load()
	m.Failed = failed.Load()
	if m.Failed > 0 {
		return fmt.Errorf("%d of %d idle HTTP/2 connections failed; first: %v", m.Failed, sc.Conns, firstErr.Load())
	}
	return nil
}

// writeH2Table prints the medians and the ratios to Go's server.
func writeH2Table(w io.Writer, scs []H2Scenario, srvs []string, runs int, d time.Duration, pin, smoke bool, ms []H2Measurement) {
	kind := fmt.Sprintf("medians of %d runs", runs)
	if smoke {
		kind = "SMOKE RUN (1 run each, not a measurement)"
	}
	where := "server on CPU 0 with GOMAXPROCS=1, h2load -t1 on CPU 1 (taskset)"
	if !pin {
		where = "UNPINNED (no taskset or fewer than 2 CPUs)"
	}
	fmt.Fprintf(w, "HTTP/2 h2c servers, h2load runs of %ds: %s, %s.\n", int(d/time.Second), kind, where)
	fmt.Fprintf(w, "CPU is the server's user+system time per request; RSS its peak (VmHWM) after a loaded run, its resident set with the connections open for idle rows.\n\n")
	fmt.Fprintln(w, "| scenario | impl | conns | streams | requests/s | CPU µs/req | sys µs/req | RSS MiB | req/s ÷ Go | CPU ÷ Go | RSS ÷ Go |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	type med struct{ rps, cpu, sys, rss float64 }
	for _, sc := range scs {
		meds := map[string]med{}
		for _, srv := range srvs {
			var rps, cpu, sys, rss []float64
			for _, m := range ms {
				if m.Scenario == sc.Name && m.Server == srv {
					rps, cpu, sys = append(rps, m.RPS), append(cpu, m.CPUPerReqUs), append(sys, m.SysPerReqUs)
					rss = append(rss, float64(m.RSS)/(1<<20))
				}
			}
			meds[srv] = med{benchproc.Median(rps), benchproc.Median(cpu), benchproc.Median(sys), benchproc.Median(rss)}
		}
		ref, ok := meds["go-h2c"]
		if !ok {
			ref = med{math.NaN(), math.NaN(), math.NaN(), math.NaN()}
		}
		for _, srv := range srvs {
			x := meds[srv]
			streams := strconv.Itoa(sc.Streams)
			if sc.Idle {
				streams = "idle"
				x.rps, x.cpu, x.sys = math.NaN(), math.NaN(), math.NaN()
			}
			fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", sc.Name, srv, sc.Conns, streams,
				num(x.rps, "%.0f"), num(x.cpu, "%.2f"), num(x.sys, "%.2f"), num(x.rss, "%.1f"),
				benchproc.Ratio(x.rps/ref.rps), benchproc.Ratio(x.cpu/ref.cpu), benchproc.Ratio(x.rss/ref.rss))
		}
	}
}
