// Command netbench runs the testing.B benchmarks of the packages of a Go
// module, writes the results in the Go benchmark format, and compares two
// git revisions with benchstat's statistics.
//
// Usage:
//
//	netbench run [flags] [packages]
//	netbench run -instructions [flags] [packages]
//	netbench compare [flags] OLD NEW [packages]
//	netbench profile [flags] [packages]
//	netbench flame [flags] PROFILE...
//	netbench flame -diff [flags] BASE NEW
//	netbench clean
//	netbench help
//
// run builds each package's test binary once, runs its benchmarks and
// writes configuration lines (commit, go, gomaxprocs, machine) and the
// results to standard output or -o. Progress goes to standard error.
//
// compare checks out OLD and NEW (NEW may be "." for the work tree) in
// worktrees under the cache, builds their test binaries, runs them
// interleaved -count times, and prints the benchstat table (-format text,
// markdown, csv or json) or an HTML report with charts of the samples
// (-format html). Benchmarks that ran in one revision only are
// listed on standard error. With -profile, each benchmark that fails the
// gate in a unit of time is profiled once on each revision and gets a
// differential flame graph per operation, which the HTML report links.
//
// profile writes a CPU and an allocation profile of every benchmark, each
// run alone, under -o (default netbench-profiles/<commit>, which a
// .gitignore in netbench-profiles keeps out of git's view, so that the
// profiles do not make the tree dirty), with a flame graph of each CPU
// profile and an index.
//
// flame draws pprof profiles as one self-contained HTML flame graph, or
// writes folded stacks (-format folded); with -diff, two profiles as a
// differential flame graph colored by the change of each frame's share.
//
// clean removes the cache ($NETBENCH_CACHE, or netbench under the user
// cache directory). help, or -h after a command, prints the flags on
// standard output.
//
// Exit status: 0 on success; 1 when compare found a gated regression
// (significant at -alpha and larger than -threshold, or allocs/op or B/op
// grown while constant on both sides in runs of 100 iterations or more, or significantly from 0); 2 on bad usage, git, build, run or
// write errors, and for a comparison that cannot gate: nothing measured in
// both revisions, a -gate unit that no benchmark measured, or a -count too
// low for any p-value to reach -alpha,
// under -correct holm after the correction over the gated rows (unless
// -allow-low-count).
//
// SIGINT, SIGTERM, SIGHUP and SIGPIPE (a write to a closed pipe, as in
// netbench compare … | head -1) stop run, compare and profile through
// their clean-ups: the running benchmark is stopped, worktrees and
// temporary test binaries are removed, and the exit status is 2. A signal
// ignored when netbench starts (nohup) stays ignored.
//
// # run
//
// run lists the packages that have benchmarks, builds each test binary
// once (go test -c) and runs it. The configuration lines are commit:
// (with -dirty for a modified work tree), go:, gomaxprocs: and a machine
// fingerprint (kernel:, governor: when readable, loadavg: at the start),
// so that benchstat can compare files from different runs; under -cpu 1,2
// the line is "gomaxprocs: 1,2" and each result's -N suffix says which it
// ran at. Flags follow go test (-bench, -count, -benchtime, -cpu,
// -timeout) and are checked before anything is built. Progress is one
// updating line on a terminal, log lines otherwise. A benchmark that fails
// or a package that does not build stops the run with its output and exit
// status 2.
//
//	$ go run ./cmd/netbench run -bench RetainRelease -benchtime 1x ./buf
//	commit: 6c811facaaafdaaad54e4b0074acf9bccc118118
//	go: go1.26.8
//	gomaxprocs: 2
//	kernel: 6.18.44-fc-v669
//	loadavg: 0.26 0.84 0.89
//	goos: linux
//	goarch: amd64
//	pkg: github.com/netkit/netkit/buf
//	cpu: AMD EPYC
//	BenchmarkRetainRelease/contended=false-2    1    601.0 ns/op       0 B/op    0 allocs/op
//	BenchmarkRetainRelease/contended=true-2     1    87670 ns/op   67440 B/op   21 allocs/op
//
// # compare
//
// OLD and NEW are any revisions git knows (a SHA, a tag, HEAD~1; NEW may
// be "." for the work tree).
//
//   - Each invocation checks each revision out into a git worktree of its
//     own under the cache and removes it afterwards, also on Ctrl-C or
//     SIGTERM: git worktree list is as before, and two comparisons of the
//     same commit can run at once.
//   - Test binaries are cached per package under a key of everything that
//     shapes the build: commit, import path, module directory, Go version
//     and the go env that matters (GOOS/GOARCH and their variants, GOFLAGS
//     and build tags, GOEXPERIMENT, cgo settings). A second comparison
//     builds nothing; clean empties the cache.
//   - The runs are interleaved: round i runs every benchmark of both
//     revisions once, old-new and new-old alternating from a random start
//     (ABBA), -count rounds (default 10), so a machine that drifts during
//     the run hits both sides alike (BENCHMARKS.md has the experiment that
//     shows why).
//   - Test binaries run in go test's -json framing, so a benchmark that
//     prints to standard output keeps its result line, and nothing it
//     prints is taken for a result or a configuration line.
//   - -bench follows go test: -bench 'Get/size=64' matches each level
//     separately.
//   - The statistics are benchstat's: medians, 95% confidence intervals and
//     the Mann-Whitney U p-value, computed by golang.org/x/perf/benchmath;
//     a test runs the real benchstat on the same data and checks that every
//     median, interval, p-value and change agrees. The text table follows
//     benchstat's layout (-o file writes it to a file).
//   - The gate: sec/op, or a unit named in -gate, significantly worse (p <
//     -alpha, default 0.05, optionally -correct holm) by more than
//     -threshold (default 5, or 5%). allocs/op and B/op judged as the exit
//     status above says, because a run of few iterations reports a stray
//     runtime allocation whole, and one stray runtime byte must not hide a
//     new allocation. Benchmarks measured on one side only are marked in
//     the table.
//
// make compare OLD=HEAD~1 NEW=. runs it through make.
//
// # instructions/op
//
// run -instructions and compare -instructions add the instructions each
// operation executes to every result line, as one more unit
// ("… 0 allocs/op  53.12 instructions/op"). Unlike sec/op it does not move
// with the load of the machine, so it goes through the same statistics,
// table columns, formats and gate: compare -gate instructions/op fails a
// change that is significantly more instructions per operation than
// -threshold. Every result line of every -count round gets its own count,
// so compare has -count samples per revision and the ± column is the
// count's run-to-run spread; run with -count 2 or more, and compare of one
// commit against itself (compare HEAD HEAD, an A/A comparison), print the
// spread of each benchmark, (max-min)/median, on standard error.
//
// The method: after the round's wall-clock runs, each benchmark runs alone
// (an anchored pattern, as profile selects it) at two fixed iteration
// counts, -test.benchtime Nx and 2Nx, and the instructions of each whole
// run are counted; (I(2N) - I(N)) / N is the count per operation, because
// everything that does not scale with b.N is in both runs and cancels:
// process start, package initialisation, set-up outside the benchmark
// loop, the parents of a sub-benchmark, and the testing package's first
// run at b.N = 1. What still varies from run to run (the testing
// package's forced garbage collections and the work around them) is some
// 10^5 instructions whatever N, so N is chosen for the loop to execute
// about 10^8 instructions: the first count of a benchmark runs at an N
// estimated from its largest ns/op in the first round (5 ms of native
// work) and, when that N is too small by more than 1.5x, is made again at
// the N its instructions/op asks for. N is chosen once per benchmark and
// kept for every round and both revisions. Under callgrind this is 5 to 10
// s per count, whatever the benchmark.
//
// The counter: -instructions (auto) uses the kernel's hardware counter of
// retired instructions (perf_event_open, user space only, inherited by
// every thread of the run) where it is exposed, and valgrind's callgrind
// (its "Ir" total) otherwise; many virtual machines, the project's
// included, expose no hardware counter. -instructions=perf and
// -instructions=callgrind force one. Callgrind is about 50 times slower
// than the program; netbench runs it with Go's asynchronous preemption
// off (callgrind can fail an assertion on its signals) and at GOMAXPROCS 1
// whatever -cpu says (valgrind runs one thread at a time anyway, and the
// idle Ps of a larger GOMAXPROCS spend instructions looking for work for as
// long as the run lasts, which differs from run to run). Without valgrind,
// -instructions=callgrind (and auto on a machine without the hardware
// counter) stops before building anything with an error naming valgrind
// and how to install it (apt-get install -y valgrind), exit status 2;
// $NETBENCH_VALGRIND names another valgrind binary. .ci/run installs it.
//
// # profile, flame and compare -profile
//
// compare -profile profiles only the benchmarks that fail the gate in a
// unit of time (when nothing fails nothing is profiled), each alone, once
// on each revision, and writes a differential flame graph beside the
// report, which links it. Since compare knows the iteration count of both
// runs, its graphs are per operation: the base profile is scaled to the new
// run's iterations and each frame colored by the change of its own time
// per operation. That is what shows a benchmark that got slower
// throughout: it runs for about -benchtime whatever its speed, so its loop
// keeps its share of the profile and a change of shares shows nothing.
// Profiling runs last at least 1 s so that set-up outside the loop stays a
// small part.
//
// profile runs each benchmark (each sub-benchmark, at each -cpu) alone,
// with an anchored pattern so profiles do not mix, and writes its CPU and
// allocation profiles, a flame graph of the CPU profile, and index.json and
// index.txt listing benchmark to files.
//
// flame merges its profiles into one self-contained HTML page: no network,
// no graphviz, no other file. Click to zoom, a regular-expression search
// that shows the matched share, and hover details. -sample
// cpu|alloc_space|alloc_objects, -focus and -ignore as pprof, -min (frames
// under 0.05% of the total are left in their parent), and -format folded
// for flamegraph.pl or speedscope. flame -diff colors each frame by the
// change in its share of the total (red larger, blue smaller, a legend in
// the page); widths are NEW's.
//
// compare -format html is one self-contained page: the environment, the
// tables (the same cells as the text output) and, per benchmark,
// regressions first, every sample of both revisions with the median and
// its 95% interval.
//
// The browser tests (internal/browser drives headless Chromium over the
// DevTools pipe) open a generated report and flame graphs, check that there
// is no console or page error and no fetch beyond the file, count the drawn
// frames and table rows, check that a planted 3x slower function is the
// widest red frame, and take screenshots when NETKIT_SCREENSHOTS names a
// directory. .ci/run installs Chromium and makes a missing browser a
// failure; without one, make test skips them and says so.
package main
