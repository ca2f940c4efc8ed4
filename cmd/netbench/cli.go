package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/netkit/netkit/internal/benchrun"
)

// exitFailure is the exit status of usage, git, build and benchmark errors.
const exitFailure = 2

// statusError carries the exit status main should use.
type statusError struct {
	code int
	err  error
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

// fail wraps err with the exit status of a failure.
func fail(err error) error { return &statusError{exitFailure, err} }

func usageError(format string, args ...any) error {
	return fail(fmt.Errorf(format, args...))
}

const usage = `netbench runs the Go benchmarks of a module and writes the Go benchmark format.

Usage:
  netbench run [flags] [packages]   build each package's test binary once, run its
                                    benchmarks, write results (default packages: ./...)
  netbench compare [flags] OLD NEW [packages]
                                    run both revisions' benchmarks interleaved and
                                    compare them with benchstat's statistics; NEW
                                    may be "." for the work tree
  netbench clean                    remove the cache of worktrees and test binaries
  netbench help                     show this text

Flags of run (named as go test's):
  -bench regexp     benchmarks to run (default ".")
  -count n          runs of each benchmark (default 1)
  -benchtime d      time or iterations per benchmark, as go test (default 1s)
  -cpu list         GOMAXPROCS values, as go test
  -timeout d        limit for each test binary (default 30m)
  -o file           write results to file instead of standard output

Flags of compare: those of run (with -count defaulting to 10) and
  -threshold pct    smallest gated slowdown (default 5)
  -alpha a          significance level (default 0.05)
  -gate units       units gated besides sec/op, comma-separated (e.g. B/s)
  -correct holm     Holm correction of the gated p-values
  -format f         text (default), csv, json or markdown
  -seed n           seed of the interleaving order
  -interleave=false run all rounds of OLD, then of NEW (to measure drift)
compare exits 1 when a gated unit regressed significantly by more than the
threshold, or allocs/op or B/op grew while constant on both sides; 2 on
usage, git, build or benchmark errors. The cache lives in $NETBENCH_CACHE,
or netbench under the user cache directory.

The output of run starts with configuration lines (commit, go, gomaxprocs, kernel,
governor, loadavg); each package adds goos, goarch, pkg and cpu. Progress goes
to standard error: one updating line on a terminal, plain log lines otherwise.
`

// run is the whole command; main only sets the exit status.
func run(stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return usageError("no command given")
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	case "run":
		return interruptible(func(ctx context.Context) error { return runCmd(ctx, stdout, stderr, args[1:]) })
	case "compare":
		return interruptible(func(ctx context.Context) error { return compareCmd(ctx, stdout, stderr, args[1:]) })
	case "clean":
		return cleanCmd(stdout, args[1:])
	}
	fmt.Fprint(stderr, usage)
	return usageError("unknown command %q", args[0])
}

// interruptible runs cmd with a context that SIGINT and SIGTERM cancel.
// Cancelling kills the go, git and test-binary processes started with it,
// and cmd returns through its deferred clean-ups (worktrees, temporary
// binaries) before the signal's own failure is reported.
func interruptible(cmd func(ctx context.Context) error) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := cmd(ctx)
	if err != nil && ctx.Err() != nil {
		return fail(fmt.Errorf("stopped: %w", context.Cause(ctx)))
	}
	return err
}

func runCmd(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("netbench run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opts benchrun.Options
	var outFile string
	fs.StringVar(&opts.Bench, "bench", ".", "benchmarks to run (regexp)")
	fs.IntVar(&opts.Count, "count", 1, "runs of each benchmark")
	fs.StringVar(&opts.Benchtime, "benchtime", "", "time or iterations per benchmark")
	fs.StringVar(&opts.CPU, "cpu", "", "GOMAXPROCS values")
	fs.DurationVar(&opts.Timeout, "timeout", 30*time.Minute, "limit for each test binary")
	fs.StringVar(&outFile, "o", "", "output file")
	if err := fs.Parse(args); err != nil {
		return fail(err)
	}
	if opts.Count < 1 {
		return usageError("-count must be at least 1")
	}
	opts.Packages = fs.Args()

	config, err := benchrun.Config(ctx, "")
	if err != nil {
		return fail(err)
	}
	pkgs, err := benchrun.List(ctx, opts)
	if err != nil {
		return fail(err)
	}
	binDir, err := os.MkdirTemp("", "netbench-bin-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(binDir)
	prog := newProgress(stderr)
	prog.logf("building test binaries of %d packages", len(pkgs))
	pkgs, err = benchrun.Build(ctx, opts, pkgs, binDir)
	if err != nil {
		return fail(err)
	}
	if len(pkgs) == 0 {
		return usageError("no benchmarks match -bench %q in %v", opts.Bench, packagesOrDefault(opts.Packages))
	}

	out := stdout
	if outFile != "" {
		f, err := os.Create(outFile)
		if err != nil {
			return fail(err)
		}
		defer f.Close()
		out = f
	}
	for _, line := range config {
		fmt.Fprintln(out, line)
	}
	prog.start(pkgs)
	for i, p := range pkgs {
		prog.pkg(i, p)
		if err := p.Run(ctx, opts, out, prog.result); err != nil {
			prog.done()
			return fail(err)
		}
	}
	prog.done()
	if f, ok := out.(*os.File); ok && outFile != "" {
		if err := f.Close(); err != nil {
			return fail(err)
		}
	}
	return nil
}

func packagesOrDefault(p []string) []string {
	if len(p) == 0 {
		return []string{"./..."}
	}
	return p
}

func cleanCmd(stdout io.Writer, args []string) error {
	if len(args) > 0 {
		return usageError("clean takes no arguments")
	}
	dir, err := benchrun.CacheDir()
	if err != nil {
		return fail(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return fail(err)
	}
	fmt.Fprintln(stdout, "netbench: removed", dir)
	return nil
}
