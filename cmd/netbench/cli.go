package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
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
  netbench stat [flags] FILE...     the statistics and gate of compare, again, on
                                    files of results (compare keeps its own), grouped
                                    as benchstat's -col, -row, -filter and -ignore say
  netbench profile [flags] [packages]
                                    write a CPU and an allocation profile of every
                                    benchmark, each run alone, and an index
  netbench flame [flags] PROFILE... write the flame graph of pprof profiles (merged)
                                    as one self-contained HTML page
  netbench flame -diff [flags] BASE NEW
                                    write the differential flame graph of two
                                    profiles: frames colored by the change in
                                    their share of the total (red: larger)
  netbench clean                    remove the cache of worktrees, test binaries
                                    and kept results
  netbench help                     show this text

Flags of run and compare (named as go test's):
  -bench regexp     benchmarks to run, split at "/" into one regexp per
                    level of the name as go test splits it (default ".")
  -count n          runs of each benchmark (default 1; compare: 10; at most
                    1000000)
  -benchtime d      time or iterations per benchmark, as go test (default 1s)
  -cpu list         GOMAXPROCS values, as go test
  -timeout d        limit for each test binary run (default 30m)
  -instructions[=m] also measure instructions/op, added to each result
                    line: each benchmark runs alone at N and 2N iterations
                    and (I(2N) - I(N)) / N is reported, so that set-up
                    cancels; m is auto (default), callgrind (valgrind, on
                    any machine, about 50x slower) or perf (the kernel's
                    hardware counter; virtual machines often lack it)
  -o file           write results (compare: the comparison) to file instead
                    of standard output: to a temporary file in its directory,
                    renamed over file at the end, so that a failed or
                    interrupted run leaves the previous file as it was
  -cpu-list cpus    pin every thread of the test binaries to these CPUs
                    (as taskset -c: "1", "0,1", "0-3"), with sched_setaffinity
                    (Linux only); a malformed list or a CPU netbench cannot
                    run on is a usage error. A pinned binary runs at
                    GOMAXPROCS = the number of CPUs (without -cpu)

Noise: run and compare read the 1-minute load average before, every second
during and after the runs, and warn on standard error and in the output when
the machine was busy (the load not the benchmark's own above the CPUs left
once it has one: on 2 CPUs, above 1 before the runs, above 2 during and after
them), when a benchmark has samples outside Tukey's fences (Q1-1.5*IQR,
Q3+1.5*IQR; -count 4 or more) and, in compare, when one revision's spread
(IQR/median) is more than 4x the other's. compare OLD NEW naming one commit
twice (compare HEAD HEAD) is an A/A run: it reports the share of rows judged
significant and of gated rows failing the gate, all of them false positives.

Flags of compare only:
  -threshold pct    smallest gated slowdown, "5" or "5%" (default 5)
  -alpha a          significance level (default 0.05)
  -allow-low-count  compare even when -count is too low for any p-value to
                    reach -alpha, after -correct holm if given (then only
                    allocs/op and B/op can fail)
  -gate units       units gated besides sec/op, comma-separated (e.g. B/s,
                    or instructions/op, which needs -instructions),
                    as benchstat names them (ns/op is sec/op, MB/s is B/s);
                    a unit that no benchmark measured is an error (exit
                    status 2, after the report)
  -correct holm     Holm correction of the gated p-values: over m gated rows
                    the smallest p-value is multiplied by m, so it needs a
                    larger -count (8 rows: 6; 100 rows: 8); a count at which
                    no row can reach -alpha is refused after the runs
  -format f         text (default), csv, json, markdown or html (one
                    self-contained page: tables, environment, sample charts);
                    json holds the revisions (names, full commits,
                    configuration lines), the gate and every row's samples
  -seed n           seed of the interleaving order
  -interleave=false run all rounds of OLD, then of NEW (to measure drift)
  -profile[=dir]    after judging, profile each benchmark that fails the gate
                    in a unit of time (sec/op, -gate units; not B/op or
                    allocs/op) with one run on each revision, and write
                    <dir>/<package>/<benchmark>.old.cpu.pprof, .new.cpu.pprof
                    and .diff.html; nothing runs when nothing fails (default
                    dir: beside -o, "report.html" giving report-profiles, or
                    netbench-profiles/compare-<old>-<new>)
  -rename old=new   with -profile: old in OLD's function names is new in NEW's,
                    for the flame graphs' matching (see flame -rename)
  -keep dir         where to keep each revision's raw results, old.txt and
                    new.txt, configuration lines first (default: a new
                    directory under the cache's results); stderr says where,
                    and the netbench stat command that prints the same table
                    again; an interrupted or failed compare keeps the runs
                    that finished

Flags of stat (and -alpha, -threshold, -gate, -correct, -allow-low-count,
-format and -o, as compare's):
  -col keys         split the results into the two compared columns by keys,
                    benchstat's syntax (default .file: one column a file; a
                    FILE argument label=path names its column label)
  -row keys         split the results into rows by keys (default .fullname)
  -filter query     keep only the results matching query (default *)
  -ignore keys      do not warn when a cell's results differ in keys
  -confidence c     confidence level of the intervals (default 0.95)
Tables are per package and unit, as compare's (benchstat -table pkg); the
columns must be two, the first the base. A cell that mixes results differing
in a key that no flag names gets benchstat's warning "benchmarks vary in
KEY" on standard error and in -format json.

Flags of profile (besides -bench, -benchtime, -cpu and -timeout):
  -o dir            output directory (default netbench-profiles/<commit>, the
                    first 12 digits of HEAD, "-dirty" when the tree has
                    changes; netbench-profiles gets a .gitignore of "*", so
                    that the profiles do not make the tree dirty)
  -mem=false        CPU profiles only
  -force            write into a non-empty -o directory, overwriting the files
                    of the same names
profile lists the benchmarks with one -benchtime 1x run of each package, then
runs every benchmark that printed a result (a sub-benchmark, at each -cpu
value) alone, with an anchored pattern, so that profiles do not mix. It
writes <dir>/<package>/<benchmark>.cpu.pprof and .alloc.pprof (allocations
sampled at the runtime's default rate), and index.json and index.txt listing
benchmark -> files. Interrupted, it keeps the profiles finished so far
(without an index) and removes the one in progress.

Flags of flame:
  -o file           output file, "-" for standard output (default flame.html,
                    flame.folded with -format folded)
  -format f         html (default) or folded: Brendan Gregg's folded stacks
                    ("a;b;c value", with -diff "a;b;c base new") for
                    flamegraph.pl, speedscope and other tools
  -sample type      cpu, alloc_space, alloc_objects or another sample type of
                    the profiles (default: cpu, else alloc_space, else the
                    profile's default)
  -focus regexp     keep only samples with a function matching regexp on
                    their stack, as pprof
  -ignore regexp    drop samples with a function matching regexp on their
                    stack, as pprof
  -diff             two profiles, BASE NEW; widths are NEW's values, frames on
                    BASE's call paths only are drawn at their BASE value (on
                    NEW's scale); frames are matched by normalized names
                    (type arguments, closure numbers, inlining marks dropped)
  -rename old=new   with -diff: old in BASE's names is new in NEW's, as a type
                    renamed by a rewrite (BTree=BTreeG); repeatable
  -exact            with -diff: match frames by their exact names
  -min pct          frames under pct percent of the total are not drawn but
                    left in their parent's self (default 0.05; 0 draws all)
  -title text       title of the page (default: the profiles' names)

Exit status: 0 on success; 1 when compare or stat found a gated regression (a gated
unit significantly worse by more than -threshold, or allocs/op or B/op grown
while constant on both sides in runs of 100 iterations or more, or significantly from 0); 2 on usage, git, build, benchmark or write
errors, and when compare cannot gate: no benchmark measured in both
revisions, a -gate unit that no benchmark measured, or a -count at which no p-value can reach -alpha (under -correct
holm, after the correction: found after the runs, and the report is written
first), unless -allow-low-count. Benchmarks measured in one revision only are listed on
standard error and marked added or removed in the table. The cache lives in
$NETBENCH_CACHE, or netbench under the user cache directory. SIGINT, SIGTERM,
SIGHUP and SIGPIPE (a closed output pipe) stop a command after it has
stopped its benchmark and removed its worktrees and temporary binaries (exit
status 2).

The output of run starts with configuration lines (commit, go, gomaxprocs,
kernel, governor, loadavg); each package adds goos, goarch, pkg and cpu. Under
-cpu, gomaxprocs gives the list, and each result name's -N suffix the value
it ran at (none for 1). Progress goes to standard error: one updating line on
a terminal, plain log lines otherwise.
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
	case "profile":
		return interruptible(func(ctx context.Context) error { return profileCmd(ctx, stdout, stderr, args[1:]) })
	case "flame":
		return flameCmd(stdout, stderr, args[1:])
	case "stat":
		return statCmd(stdout, stderr, args[1:])
	case "clean":
		return cleanCmd(stdout, args[1:])
	}
	fmt.Fprint(stderr, usage)
	return usageError("unknown command %q", args[0])
}

// stopSignals stop a command the way ^C does: through its clean-ups
// (worktrees, temporary test binaries, the running benchmark), never by
// dying with them left behind. SIGHUP is a closed terminal; SIGPIPE is a
// write to a pipe whose reader has gone (`netbench compare … | head -1`),
// which, when not asked for, kills a Go program that writes to a broken
// pipe on fd 1 or 2 on the spot.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE}

// interruptible runs cmd with a context that the stopSignals cancel.
// Cancelling kills the go, git and test-binary processes started with it,
// and cmd returns through its deferred clean-ups (worktrees, temporary
// binaries) before the signal's own failure is reported. A signal ignored
// when netbench started stays ignored, so that nohup and a background job
// of a shell keep their meaning. After a broken pipe, SIGPIPE stays
// ignored: the error message may be bound for the same closed pipe, and
// writing it must fail quietly rather than kill netbench with an exit
// status other than 2.
func interruptible(cmd func(ctx context.Context) error) error {
	var sigs []os.Signal
	for _, s := range stopSignals {
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			cancel(&stoppedError{s})
		case <-done:
		}
	}()
	err := cmd(ctx)
	close(done)
	signal.Stop(ch)
	var stopped *stoppedError
	if errors.Is(err, syscall.EPIPE) || errors.As(context.Cause(ctx), &stopped) && stopped.sig == syscall.SIGPIPE {
		signal.Ignore(syscall.SIGPIPE)
	}
	if err != nil && ctx.Err() != nil {
		return fail(fmt.Errorf("stopped: %w", context.Cause(ctx)))
	}
	return err
}

// stoppedError is the cause of a context cancelled by one of stopSignals.
type stoppedError struct{ sig os.Signal }

func (e *stoppedError) Error() string {
	if e.sig == syscall.SIGPIPE {
		return "broken pipe signal received (the output's reader has gone)"
	}
	return e.sig.String() + " signal received"
}

// maxCount is the largest -count. A million runs of the shortest
// benchmark take days; a larger count is a typo, refused before anything
// is built rather than discovered by a run that never ends.
const maxCount = 1_000_000

// runFlags are the flags run and compare share, named as go test's.
type runFlags struct {
	opts    benchrun.Options
	out     string // -o: results file; "" is standard output
	cpuList string // -cpu-list: CPUs to pin the test binaries to
}

// addRunFlags registers the flags of run on fs; compare registers them too,
// with its own default -count.
func addRunFlags(fs *flag.FlagSet, f *runFlags, count int) {
	fs.StringVar(&f.opts.Bench, "bench", ".", "benchmarks to run (regexp, split at / as go test does)")
	fs.IntVar(&f.opts.Count, "count", count, "runs of each benchmark")
	fs.StringVar(&f.opts.Benchtime, "benchtime", "", "time or iterations per benchmark")
	fs.StringVar(&f.opts.CPU, "cpu", "", "GOMAXPROCS values")
	fs.DurationVar(&f.opts.Timeout, "timeout", 30*time.Minute, "limit for each test binary run")
	fs.StringVar(&f.out, "o", "", "write results to file instead of standard output")
	fs.StringVar(&f.cpuList, "cpu-list", "", "pin the test binaries to these CPUs (as taskset -c: 0,1 or 0-3)")
}

// check reports a bad flag of addRunFlags before anything is built.
func (f *runFlags) check() error {
	if f.opts.Count < 1 {
		return usageError("-count must be at least 1")
	}
	if f.opts.Count > maxCount {
		return usageError("-count must be at most %d, not %d", maxCount, f.opts.Count)
	}
	for _, err := range []error{benchrun.CheckBench(f.opts.Bench), benchrun.CheckCPU(f.opts.CPU), benchrun.CheckBenchtime(f.opts.Benchtime)} {
		if err != nil {
			return fail(err)
		}
	}
	if f.opts.Timeout < 0 {
		return usageError("-timeout must not be negative")
	}
	return nil
}

// create returns the output of -o (see output), or stdout, so that an
// unwritable file is reported before anything is built.
func (f *runFlags) create(stdout io.Writer) (*output, error) {
	return createOutput(f.out, stdout)
}

// parseFlags parses args into fs. On -h or -help it prints the usage to
// stdout and returns help == true; errors are usage errors, which main
// prints once (the flag package prints nothing itself).
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) (help bool, err error) {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	switch err := fs.Parse(args); {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, usage)
		return true, nil
	case err != nil:
		return false, usageError("%s: %v (see netbench help)", fs.Name(), err)
	}
	return false, nil
}

func runCmd(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("netbench run", flag.ContinueOnError)
	var f runFlags
	addRunFlags(fs, &f, 1)
	instr := addInstrFlag(fs)
	if help, err := parseFlags(fs, args, stdout); help || err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	nz, err := newNoise(f.cpuList)
	if err != nil {
		return err
	}
	opts := f.opts
	opts.Packages = fs.Args()
	out, err := f.create(stdout)
	if err != nil {
		return err
	}
	defer out.abort()

	config, err := benchrun.Config(ctx, "")
	if err != nil {
		return fail(err)
	}
	prog := newProgress(stderr)
	meter, err := newInstrMeter(*instr, opts.Timeout, prog)
	if err != nil {
		return err
	}
	pkgs, remove, err := buildBenchmarks(ctx, opts, prog)
	if err != nil {
		return err
	}
	defer remove()
	nz.pinAll(pkgs)

	for _, line := range nz.config(withCPUList(config, opts.CPU), opts.CPU) {
		if _, err := fmt.Fprintln(out, line); err != nil {
			return fail(fmt.Errorf("writing the results: %w", err))
		}
	}
	prog.start(pkgs)
	var results bytes.Buffer // for the noise diagnosis
	nz.mon.Start()
	defer nz.mon.Halt()
	for i, p := range pkgs {
		prog.pkg(i, p)
		if err := runPackage(ctx, p, opts, io.MultiWriter(out, &results), prog.result, meter); err != nil {
			prog.stop()
			return fail(err)
		}
	}
	nz.mon.Stop()
	prog.stop()
	err = writeRunNotes(out, stderr, nz.runNotes(results.Bytes()))
	if err == nil {
		err = out.commit()
	}
	if err != nil {
		prog.stop()
		return fail(fmt.Errorf("writing the results: %w", err))
	}
	prog.done()
	meter.reportSpread(stderr, "run-to-run")
	return nil
}

// withCPUList returns the configuration lines with the gomaxprocs line
// giving the -cpu list, when there is one: the results then ran at several
// GOMAXPROCS values, and each result name's -N suffix tells which (none
// for 1), as under go test.
func withCPUList(config []string, cpu string) []string {
	if cpu == "" {
		return config
	}
	var list []string
	for v := range strings.SplitSeq(cpu, ",") {
		if v = strings.TrimSpace(v); v != "" {
			list = append(list, v)
		}
	}
	out := slices.Clone(config)
	for i, line := range out {
		if strings.HasPrefix(line, "gomaxprocs: ") {
			out[i] = "gomaxprocs: " + strings.Join(list, ",")
		}
	}
	return out
}

// buildBenchmarks lists the packages of opts, builds their test binaries
// into a temporary directory, which remove deletes, and returns those with
// benchmarks matching opts.Bench. None is a usage error.
func buildBenchmarks(ctx context.Context, opts benchrun.Options, prog *progress) (pkgs []benchrun.Package, remove func(), err error) {
	pkgs, err = benchrun.List(ctx, opts)
	if err != nil {
		return nil, nil, fail(err)
	}
	binDir, err := os.MkdirTemp("", "netbench-bin-")
	if err != nil {
		return nil, nil, fail(err)
	}
	remove = func() { os.RemoveAll(binDir) }
	prog.logf("building test binaries of %d packages", len(pkgs))
	if pkgs, err = benchrun.Build(ctx, opts, pkgs, binDir); err != nil {
		remove()
		return nil, nil, fail(err)
	}
	if len(pkgs) == 0 {
		remove()
		return nil, nil, usageError("no benchmarks match -bench %q in %v", opts.Bench, packagesOrDefault(opts.Packages))
	}
	return pkgs, remove, nil
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
