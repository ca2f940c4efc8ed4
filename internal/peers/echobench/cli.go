// Package echobench is netkit's echo benchmark: echo servers on netkit,
// the standard library, gnet, netpoll and nbio; one load generator for all
// of them; and a runner that starts every server as its own process pinned
// to CPU 0, drives it from a load process pinned to CPU 1, and reports
// round trips per second, p50/p99 latency, server CPU per million round
// trips, the server's context switches and system calls per round trip
// (from /proc, and perf stat's tracepoints where perf can count them) and
// server memory per idle connection.
package echobench

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/netkit/netkit/internal/peers/benchproc"
)

// Main runs one subcommand: serve, load or run.
func Main(stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 {
		usage(stderr)
		return errors.New("no subcommand")
	}
	benchproc.RaiseNofile(stderr, "echobench")
	switch args[0] {
	case "serve":
		return registry.ServeCmd(stdout, stderr, "echobench", args[1:], "net", true)
	case "load":
		return cmdLoad(stdout, stderr, args[1:])
	case "run":
		return cmdRun(stdout, stderr, args[1:])
	case "help", "-h", "-help", "--help":
		usage(stdout)
		return nil
	}
	usage(stderr)
	return fmt.Errorf("unknown subcommand %q", args[0])
}

func usage(w io.Writer) {
	fmt.Fprintf(w, `usage: echobench serve -impl %s -addr 127.0.0.1:0
       echobench load -addr A -conns N -inflight K -size S -duration D -warmup W
       echobench run [-servers %s] [-scenarios %s] [-runs 5] [-duration 3s] [-counters perf|proc|off] [-json out]
`, strings.Join(Servers(), "|"), strings.Join(Servers(), ","), strings.Join(scenarioNames(), ","))
}

func cmdLoad(stdout, stderr io.Writer, args []string) error {
	fs := benchproc.NewFlags("echobench", "load", stderr)
	var cfg LoadConfig
	fs.StringVar(&cfg.Addr, "addr", "", "server address")
	fs.IntVar(&cfg.Conns, "conns", 64, "connections")
	fs.IntVar(&cfg.Inflight, "inflight", 1, "requests in flight per connection")
	fs.IntVar(&cfg.Size, "size", 64, "request size in bytes")
	fs.DurationVar(&cfg.Duration, "duration", 3*time.Second, "measured window")
	fs.DurationVar(&cfg.Warmup, "warmup", time.Second, "warm-up before the window")
	fs.DurationVar(&cfg.Grace, "grace", 2*time.Second, "time after the window for outstanding echoes")
	// Used by the runner: machine-readable lines on stdout.
	report := fs.Bool("report", false, "")
	idle := fs.Duration("idle", 0, "")
	flood := fs.Bool("flood", false, "flood+ping: one connection floods, a second pings -size bytes at a time")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.Addr == "" {
		return errors.New("load: -addr is required")
	}
	if *idle > 0 {
		return Idle(cfg.Addr, cfg.Conns, cfg.Size, func() error {
			time.Sleep(*idle)
			fmt.Fprintln(stdout, "measure")
			// Hold the connections until the runner has read the server's RSS.
			_, err := bufio.NewReader(os.Stdin).ReadString('\n')
			if err != nil && !errors.Is(err, io.EOF) {
				return err
			}
			return nil
		})
	}
	if *report {
		// The window opens when the runner answers "go" to "window start".
		in := bufio.NewReader(os.Stdin)
		cfg.Mark = func(ev string) error {
			if _, err := fmt.Fprintln(stdout, "window", ev); err != nil {
				return err
			}
			if ev != "start" {
				return nil
			}
			return awaitLine(in, "go", markTimeout)
		}
	}
	load := Load
	if *flood {
		load = FloodPing
	}
	res, err := load(cfg)
	if err != nil {
		return err
	}
	if *report {
		b, err := json.Marshal(res)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "result %s\n", b)
		return err
	}
	_, err = fmt.Fprintf(stdout, "%d round trips in %v: %.0f/s, %.1f MB/s, p50 %.1f µs, p99 %.1f µs, generator CPU %.0f%%\n",
		res.RoundTrips, cfg.Duration, res.RTPS, res.BytesPerSec/1e6, res.P50us, res.P99us, 100*res.LoadCPU)
	return err
}

// awaitLine reads one line from in and wants it to be want, within timeout.
func awaitLine(in *bufio.Reader, want string, timeout time.Duration) error {
	got := make(chan error, 1)
	go func() {
		l, err := in.ReadString('\n')
		if err == nil && strings.TrimSpace(l) != want {
			err = fmt.Errorf("load: the runner sent %q, want %q", l, want)
		}
		got <- err
	}()
	select {
	case err := <-got:
		if err != nil {
			return fmt.Errorf("load: waiting for the runner's %q: %w", want, err)
		}
		return nil
	case <-time.After(timeout):
		return fmt.Errorf("load: no %q from the runner in %v", want, timeout)
	}
}
