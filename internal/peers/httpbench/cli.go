// Package httpbench is netkit's HTTP/1.1 plaintext benchmark: the
// TechEmpower plaintext endpoint (GET /plaintext → "Hello, World!") served
// by netkit's eventloop/httpserver, fasthttp and net/http, and a runner
// that starts each server as its own process pinned to CPU 0 with
// GOMAXPROCS=1, checks its answers, loads it with wrk pinned to CPU 1 (256
// connections, with and without 16-deep pipelining), and reports
// requests/s, p99 latency and the server's CPU time per request. See
// README.md.
package httpbench

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Main runs one subcommand: serve or run.
func Main(stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 {
		usage(stderr)
		return errors.New("no subcommand")
	}
	raiseNofile(stderr)
	switch args[0] {
	case "serve":
		return cmdServe(stdout, stderr, args[1:])
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
	fmt.Fprintf(w, `usage: httpbench serve -impl %s -addr 127.0.0.1:0
       httpbench run [-servers %s] [-scenarios %s] [-runs 3] [-duration 5s] [-json out] [-smoke]
`, strings.Join(Servers(), "|"), strings.Join(Servers(), ","), strings.Join(scenarioNames(), ","))
}

// raiseNofile lifts the soft open-file limit to the hard one (Go restores
// the old soft limit in the processes it starts).
func raiseNofile(stderr io.Writer) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		fmt.Fprintf(stderr, "httpbench: getrlimit: %v\n", err)
		return
	}
	if rl.Cur < rl.Max {
		rl.Cur = rl.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
			fmt.Fprintf(stderr, "httpbench: setrlimit: %v\n", err)
		}
	}
}

func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("httpbench "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

func cmdServe(stdout, stderr io.Writer, args []string) error {
	fs := newFlags("serve", stderr)
	impl := fs.String("impl", "netkit", "server: "+strings.Join(Servers(), ", "))
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
	if ChildArgs() {
		go func() {
			// Stdin closing (the runner exiting, however it exits) stops the server too.
			io.Copy(io.Discard, os.Stdin)
			sigs <- syscall.SIGHUP
		}()
	}
	go func() {
		<-sigs
		close(stop)
	}()
	return serve(stdout, *impl, *addr, stop)
}

func cmdRun(stdout, stderr io.Writer, args []string) error {
	fs := newFlags("run", stderr)
	servers := fs.String("servers", strings.Join(Servers(), ","), "servers to compare")
	scens := fs.String("scenarios", strings.Join(scenarioNames(), ","), "scenarios")
	var rc runConfig
	fs.IntVar(&rc.runs, "runs", 3, "runs per scenario and server (the median is reported)")
	fs.DurationVar(&rc.duration, "duration", 5*time.Second, "wrk's -d per run (whole seconds)")
	fs.StringVar(&rc.jsonOut, "json", "", "also write every measurement and the summary as JSON here")
	fs.BoolVar(&rc.smoke, "smoke", false, "one 1-second run per server and scenario: checks the harness, measures nothing")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if rc.smoke {
		rc.runs, rc.duration = 1, time.Second
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
		rc.scenarios = append(rc.scenarios, scenarios[i])
	}
	if len(rc.servers) == 0 || len(rc.scenarios) == 0 || rc.runs < 1 {
		return errors.New("run: need at least one server, one scenario and one run")
	}
	if rc.duration < time.Second {
		return errors.New("run: -duration is wrk's -d, at least 1s")
	}
	var err error
	if rc.wrk, err = lookWrk(); err != nil {
		fmt.Fprintf(stderr, "\n*** httpbench: ERROR: %v ***\n\n", err)
		return err
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
			"pinned": rc.pin, "smoke": rc.smoke, "scenarios": rc.scenarios,
			"measurements": ms, "summary": sums,
		}, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(rc.jsonOut, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	var bad int
	for _, m := range ms {
		if m.Invalid != "" {
			bad++
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d runs had errors (marked INVALID in the table)", bad, len(ms))
	}
	return nil
}
