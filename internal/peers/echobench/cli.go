// Package echobench is netkit's echo benchmark: echo servers on netkit,
// the standard library, gnet, netpoll and nbio; one load generator for all
// of them; and a runner that starts every server as its own process pinned
// to CPU 0, drives it from a load process pinned to CPU 1, and reports
// round trips per second, p50/p99 latency, server CPU per million round
// trips and server memory per idle connection.
package echobench

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"
)

// Main runs one subcommand: serve, load or run.
func Main(stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 {
		usage(stderr)
		return errors.New("no subcommand")
	}
	raiseNofile(stderr)
	switch args[0] {
	case "serve":
		return cmdServe(stdout, stderr, args[1:])
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
       echobench run [-servers %s] [-scenarios %s] [-runs 5] [-duration 3s] [-json out]
`, strings.Join(Servers(), "|"), strings.Join(Servers(), ","), strings.Join(scenarioNames(), ","))
}

// raiseNofile lifts the soft open-file limit to the hard one. Go's runtime
// already does so at start-up (since Go 1.19), but restores the old soft
// limit in processes it executes, so every echobench process makes sure.
func raiseNofile(stderr io.Writer) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		fmt.Fprintf(stderr, "echobench: getrlimit: %v\n", err)
		return
	}
	if rl.Cur < rl.Max {
		rl.Cur = rl.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
			fmt.Fprintf(stderr, "echobench: setrlimit: %v\n", err)
		}
	}
}

func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("echobench "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

func cmdServe(stdout, stderr io.Writer, args []string) error {
	fs := newFlags("serve", stderr)
	impl := fs.String("impl", "net", "server: "+strings.Join(Servers(), ", "))
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	cpuprofile := fs.String("cpuprofile", "", "write the server's CPU profile here (until it stops)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return err
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}
	stop := make(chan struct{})
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		// Stdin closing (the runner exiting, however it exits) stops the server too.
		io.Copy(io.Discard, os.Stdin)
		sigs <- syscall.SIGHUP
	}()
	go func() {
		<-sigs
		close(stop)
	}()
	return serve(stdout, *impl, *addr, stop)
}

func cmdLoad(stdout, stderr io.Writer, args []string) error {
	fs := newFlags("load", stderr)
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
		cfg.Mark = func(ev string) { fmt.Fprintln(stdout, "window", ev) }
	}
	res, err := Load(cfg)
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
