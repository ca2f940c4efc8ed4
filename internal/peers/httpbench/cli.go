// Package httpbench is netkit's HTTP/1.1 server benchmark: the
// TechEmpower plaintext and JSON endpoints and a handler that waits 1 ms,
// served by netkit's eventloop/httpserver (natively and through Adapt),
// fasthttp and net/http, and a runner that starts each server as its own
// process pinned to CPU 0 with GOMAXPROCS=1, checks its answers, loads it
// with wrk or with its own latency generator pinned to CPU 1 (or holds
// 10,000 idle connections to it), and reports requests/s, latency, the
// server's CPU time per request and its resident set. See README.md.
package httpbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/netkit/netkit/internal/peers/benchproc"
)

// Main runs one subcommand: serve, run or load.
func Main(stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 {
		usage(stderr)
		return errors.New("no subcommand")
	}
	benchproc.RaiseNofile(stderr, "httpbench")
	switch args[0] {
	case "serve":
		return registry.ServeCmd(stdout, stderr, "httpbench", args[1:], "netkit", ChildArgs())
	case "run":
		return cmdRun(stdout, stderr, args[1:])
	case "load":
		return cmdLoad(stdout, stderr, args[1:])
	case "h2":
		return cmdH2(stdout, stderr, args[1:])
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
       httpbench h2 [-servers netkit-h2,go-h2c] [-scenarios h2-plaintext,h2-json,h2-idle10k] [-runs 3] [-duration 5s] [-json out] [-smoke]
       httpbench load -addr 127.0.0.1:8080 [-path /plaintext] [-conns 256] [-depth 16] [-duration 5s]
`, strings.Join(Servers(), "|"), strings.Join(Servers(), ","), strings.Join(scenarioNames(), ","))
}

func cmdRun(stdout, stderr io.Writer, args []string) error {
	fs := benchproc.NewFlags("httpbench", "run", stderr)
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
	var err error
	if rc.servers, err = benchproc.Split("server", *servers, Servers()); err != nil {
		return err
	}
	if rc.scenarios, err = benchproc.Pick("scenario", *scens, scenarios, Scenario.name); err != nil {
		return err
	}
	if len(rc.servers) == 0 || len(rc.scenarios) == 0 || rc.runs < 1 {
		return errors.New("run: need at least one server, one scenario and one run")
	}
	if rc.duration < time.Second {
		return errors.New("run: -duration is wrk's -d, at least 1s")
	}
	if rc.wrk, err = lookWrk(); err != nil {
		fmt.Fprintf(stderr, "\n*** httpbench: ERROR: %v ***\n\n", err)
		return err
	}
	rc.pin = benchproc.CanPin(stderr, "httpbench", "wrk")

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
			"pinned": rc.pin, "smoke": rc.smoke, "scenarios": rc.scenarios,
			"measurements": ms, "summary": sums,
		}); err != nil {
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
