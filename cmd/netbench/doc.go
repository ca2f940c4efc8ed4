// Command netbench runs the testing.B benchmarks of the packages of a Go
// module, writes the results in the Go benchmark format, and compares two
// git revisions with benchstat's statistics.
//
// Usage:
//
//	netbench run [flags] [packages]
//	netbench run -instructions [flags] [packages]
//	netbench compare [flags] OLD NEW [packages]
//	netbench stat [flags] FILE...
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
// Each compare keeps the raw results of both revisions (see "kept results"
// below).
//
// stat re-runs compare's statistics and gate on files of results, such as
// those compare keeps, grouped by benchstat's -col, -row, -filter and
// -ignore.
//
// profile writes a CPU and an allocation profile of every benchmark, each
// run alone, under -o (default netbench-profiles/<commit>, which a
// .gitignore in netbench-profiles keeps out of git's view, so that the
// profiles do not make the tree dirty), with flame graphs of the timed
// region per operation (see "profiles of the timed region" below) and an
// index.
//
// flame draws pprof profiles as one self-contained HTML flame graph, or
// writes folded stacks (-format folded); with -diff, two profiles as a
// differential flame graph colored by the change of each frame's share.
//
// clean removes the cache ($NETBENCH_CACHE, or netbench under the user
// cache directory), with the results compare kept there. help, or -h after a command, prints the flags on
// standard output.
//
// Exit status: 0 on success; 1 when compare or stat found a gated regression
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
// which say what a file was measured on (benchstat given files of two runs
// splits its tables by the keys that differ, such as commit:, unless it is
// given -ignore with them, as the stat command's hint says); under -cpu 1,2
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
// # kept results and stat
//
// compare keeps each revision's raw results in the Go benchmark format:
// old.txt and new.txt in -keep DIR, or else in a new directory under the
// cache's results (clean removes them). Each file starts with the configuration lines run
// writes for that revision — commit (the full hash; -dirty for a modified
// work tree), go (the version that builds in its tree), gomaxprocs, kernel,
// governor, loadavg before the runs — followed by the goos, goarch, pkg and
// cpu lines and the results of the test binaries. Standard error says where
// they went and gives the stat command that prints the same table again
// (label=path arguments name the columns as compare did), and which keys
// differ between the two files: benchstat's default -table .config splits
// tables by them unless it is given -ignore with those keys. A compare
// stopped by a signal or a failing run keeps the runs that finished.
//
// compare -format json is one object: "revisions", the old and the new
// revision with their names, full commits and configuration lines;
// "gate", the alpha, threshold and units judged; "environment", the
// lines shared by both sides (goos, goarch, pkg, cpu) and the load
// summary of the noise monitor ("load: before …"); and "rows", each with
// both sides' median, interval, count and samples (sorted), the change,
// the p-value, the verdict and whether it fails the gate.
//
// stat reads files of results (FILE or label=FILE, as benchstat) and groups
// them as benchstat -table pkg does: tables per package and unit, rows by
// -row (default .fullname), the two compared columns by -col (default
// .file, a column a file; -col /impl compares two sub-benchmarks of one
// file), results kept by -filter (default *), in the syntax of
// golang.org/x/perf/benchproc. A test runs the real benchstat with the same
// flags and checks every median, interval, change, p-value and warning.
// The columns must be two, the first the base; results without a value of
// the -col keys are left out with a warning. A cell whose results differ
// in a key no flag names gets benchstat's warning "benchmarks vary in KEY"
// (on standard error, and in -format json), unless -ignore names the key.
// -alpha, -confidence, -format, -gate, -threshold, -correct,
// -allow-low-count and -o are compare's, and so are the exit statuses:
// stat on the two files a compare kept prints that compare's table, noise
// marks included: outliers and uneven spread come from the samples, the
// busy machine from the noise-busy-N configuration lines compare writes
// into the files it keeps, and two files of one commit (-col .file) are an
// A/A comparison.
//
//	$ netbench stat -col /impl -filter '/size:64 .unit:sec/op' new.txt
//	pkg: example.com/m/a
//	sec/op         map          tree         vs base
//	Get/size=64-2  58.08n ± 1%  166.5n ± 2%  +186.73%  (p=0.000 n=10+10) !
//	geomean        58.07n       166.5n       +186.73%
//	netbench: 1 regression(s) beyond the gate (threshold 5%, alpha 0.05): Get/size=64-2 sec/op +186.7%
//
// # Noise
//
// run and compare judge the conditions their numbers were taken in, and
// say so on standard error (lines "netbench: warning: noise: …") and in
// their output.
//
//   - Other processes' CPU time. On Linux the machine is judged by the
//     CPU time that processes other than netbench and its runs used: the
//     busy time of /proc/stat (user, nice, system, irq, softirq, steal)
//     less netbench's own and its waited-for children's (getrusage).
//     Before anything is built it is measured over half a second; during
//     the runs, from the first to the last. The machine counts as busy in a
//     phase when others used more than the CPUs left once the benchmark
//     has one, CPUs - 1 on average, where CPUs is the number netbench may
//     run on (its affinity mask, runtime.NumCPU elsewhere): on two CPUs,
//     more than one CPU's time. A compare that ended a moment ago, or
//     netbench's own parallel instruction counts, are not others.
//   - The load. The 1-minute load average (/proc/loadavg) is read when
//     the command starts, every second while the benchmarks run, and when
//     they have ended; the summary in the output gives it. Where the CPU
//     time cannot be read (no /proc/stat) it judges instead: busy in a
//     phase when load - own > CPUs - 1, own being 0 before the runs and 1
//     during and after them, the median of the readings during the runs.
//     It lags by about a minute, so it also counts what netbench ran just
//     before. Where neither can be read, a warning says that the
//     conditions are unknown.
//   - Outliers. Per benchmark and unit and per side, the samples outside
//     Tukey's fences [Q1 - 1.5·IQR, Q3 + 1.5·IQR], the quartiles
//     interpolated between order statistics (R's and numpy's default), with
//     4 samples or more. The IQR is raised to 0.5% of the median first, so
//     that an almost constant metric (instructions/op) does not mark a
//     sample a few hundredths of a percent off.
//   - Uneven spread (compare). Each side's spread is its IQR over its
//     median; a row is marked when the larger spread is more than 4 times
//     the smaller, the smaller raised to 0.5% first (so a side that
//     measured the same value every time does not make any spread of the
//     other "infinitely" larger: the mark then needs a spread of 2%). The
//     Mann-Whitney test assumes both sides vary alike; a row where one side
//     is much noisier owes its p-value mostly to that side.
//
// run appends a "noise: …" configuration line per warning to its results
// (benchstat reads and ignores them), naming each benchmark and unit with
// outliers. compare marks the rows: "busy" (not on instructions/op,
// allocs/op and B/op rows: counts the load does not change), "outliers
// O+N" (O old and N new samples outside the fences), "spread R×" and, in
// an A/A run, "false positive" — after the row in the text and Markdown
// tables (with the warnings below them), in a "noise" column of the CSV
// (row marks only), in a "noise" object of each JSON row (marks,
// outliers_old/new, spread_old, spread_new, spread_ratio, and the run's
// busy warnings and aa counts, repeated in every row), and in the
// HTML report as a banner under the gate and a mark in each row's last
// cell; its environment table gets a "load" line with the readings.
//
// -cpu-list pins the test binaries, every thread of them, to the CPUs
// listed (as taskset -c writes them: "1", "0,1", "0-3,6"). A child
// inherits the affinity mask of the thread that forks it, and the Go
// runtime starts its threads early, so netbench sets the mask on one of its
// own threads, locked to the goroutine that starts the binary, for the
// fork only (internal/benchnoise.StartPinned); a test checks every thread's
// Cpus_allowed_list in /proc of a pinned Go binary. The pinned binary's Go
// runtime sets GOMAXPROCS to the number of CPUs listed (without -cpu), so
// its results lose the -N suffix on one CPU; the output says
// "gomaxprocs: N" and "cpulist: …". Profiling runs of compare -profile are
// pinned too. A malformed list, or a CPU netbench cannot run on, is a usage
// error (exit status 2) before anything is built; pinning needs Linux.
//
// A/A: compare of one commit against itself (compare HEAD HEAD, or two
// names of the same commit; "." against "." too) runs the same binaries on
// both sides, so every row judged better or worse is a false positive.
// Besides the normal report it prints, on standard error and in the report
// (text and Markdown below the tables, the HTML banner, JSON's aa object;
// CSV marks each such row "false positive"):
//
//	netbench: A/A comparison (both sides are the same code): false-positive rate 4.2% (1 of 24 compared rows judged significant at alpha 0.05), 0.0% of gated rows fail the gate (0 of 24)
//
// the share of compared rows judged significant and of the rows that can
// fail the gate (sec/op, -gate units, allocs/op and B/op) that do, at the
// current -count, -benchtime, -alpha, -threshold and -correct. The exit
// status is as for any comparison: 1 when a row fails the gate, which in an
// A/A run says that these settings fail unchanged code. Run it a few times
// (or with many benchmarks) before trusting the rate: one run of a dozen
// rows estimates it coarsely.
//
// # instructions/op
//
// run -instructions and compare -instructions add the instructions each
// operation executes to every result line, as one more unit
// ("… 0 allocs/op  53.12 instructions/op"). Unlike sec/op it does not move
// with the load of the machine, so it goes through the same statistics,
// table columns, formats and gate: compare -gate instructions/op fails a
// change that is significantly more instructions per operation than
// -threshold. A difference of less than 0.5% is ~ however small its
// p-value: the counts of unchanged code differ by up to that much from run
// to run (runtime work that follows the clock), and with their near-zero
// spread such a difference came out significant in some comparisons and
// not in others. Every result line of every -count round gets its own count,
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
// kept for every round and both revisions. Under callgrind this is 1.5 to
// 10 s per count, whatever the benchmark. The counts of a round run as many
// at a time as netbench may use CPUs: a count does not depend on what else
// runs, and the round's wall-clock runs are over by then.
//
// Set-up that grows with b.N (a tree rebuilt between b.StopTimer and
// b.StartTimer every thousand iterations) would not cancel. Under
// callgrind the counts are therefore made by the test binary with the
// timer hooks that profiles use (see "profiles of the timed region"
// below): when a benchmark's timer starts, the hook zeroes callgrind's
// counts (a client request, a few bytes of amd64 assembly that do
// nothing outside valgrind), and when it stops, it has them dumped, so
// that I(N) is the sum of the timed regions of all threads. After 256
// stops in one run the hook gives up, so that a benchmark that stops its
// timer every iteration does not write a dump each time; the rest of the
// run is then counted whole and the log says so, as it says when the
// hooks could not be built. perf counts whole runs.
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
// long as the run lasts, which differs from run to run), and with
// garbage collection that stops the world (GODEBUG=gcstoptheworld=1): a
// concurrent collection divides its work by the clock, and made an
// allocating benchmark's count vary by 40% from run to run; stopped, by
// 0.3%, its collections still counted. Without valgrind,
// -instructions=callgrind (and auto on a machine without the hardware
// counter) stops before building anything with an error naming valgrind
// and how to install it (apt-get install -y valgrind), exit status 2;
// $NETBENCH_VALGRIND names another valgrind binary. .ci/run installs it.
//
// # profile, flame and compare -profile
//
// compare -profile profiles only the benchmarks that fail the gate in a
// unit of time (when nothing fails nothing is profiled), each alone, on
// each revision, and writes a differential flame graph beside the report,
// which links it. Its graphs are per operation: each side is the
// difference of two runs (below), the work of a known number of
// iterations; the old side is scaled to the new side's iterations and each
// frame colored by the change of its own time per operation. That is what
// shows a benchmark that got slower throughout: it runs for about
// -benchtime whatever its speed, so its loop keeps its share of the
// profile and a change of shares shows nothing. Since set-up is subtracted
// on both sides, only work per operation is colored. The difference holds
// at least 1 s of the timed loop (a longer time -benchtime, or the count of
// an "Nx" -benchtime, is kept).
//
// profile runs each benchmark (each sub-benchmark, at each -cpu) alone,
// with an anchored pattern so profiles do not mix. For each it writes
// NAME.cpu.pprof and NAME.alloc.pprof (the larger run), NAME.cpu.small.pprof
// and NAME.alloc.small.pprof (the smaller), the flame graphs of the
// difference NAME.cpu.html (CPU time) and NAME.alloc.html (allocated bytes,
// when anything was allocated per operation), NAME.cpu.perop.folded (the
// CPU difference as folded stacks, the time of "ops" iterations), and
// index.json and index.txt listing benchmark to files with the share of
// samples outside the timed region.
//
// # Profiles of the timed region
//
// Go's profiler samples the whole test binary, not only the code between
// b.ResetTimer or b.StartTimer and the end of the loop: set-up (building a
// tree before b.ResetTimer, or in a parent benchmark around b.Run, and
// testing's own first run of one iteration) is in a plain profile too, and
// can be most of it. netbench therefore runs each profiled benchmark twice,
// at fixed iteration counts n and 3n (-test.benchtime nx and 3nx, so that
// both runs do the same set-up), and subtracts the first run's profile from
// the second's per call path: what is left is the work of 2n iterations,
// and a frame's width divided by 2n is its time per operation. With a
// duration -benchtime (default 1s) a short unprofiled run measures ns/op
// first and n is chosen for the difference to hold about that much of the
// timed loop; with -benchtime Nx, n is N (at least 2). CPU samples count
// the process's CPU time, so the difference holds on a loaded machine.
//
// Sampling noise of the set-up does not cancel exactly, and a plain
// difference per path would keep its positive half. A call path whose own
// samples grew by a ratio likelier for fixed work than for work per
// iteration (below about 1.71 for counts in the ratio 3) is left out; a
// path that shrank is clamped at zero. Each page and index.json say how
// much was clamped and left out.
//
// Every CPU flame page and index.txt also state what share of the samples
// lies outside the timed region, as "profile: 540 ns/op of samples,
// measured: 180 ns/op: 67% outside the timed region": the samples per
// operation against the benchmark's own ns/op, once for the plain profile
// of the larger run and once for the drawn difference. Allocation graphs
// leave out the allocations of runtime/pprof and of the testing package's
// bookkeeping (stacks with a testing frame but none of its calls of
// benchmark code), and are differenced the same way.
//
// Set-up that itself grows with b.N does not cancel: a benchmark that
// rebuilds its tree between b.StopTimer and b.StartTimer every thousand
// iterations, as btree's do, rebuilds three times as often in the larger
// run. For it, the profiled runs are made by a second build of the test
// binary (go test -c -overlay, beside the first) whose testing package
// labels a benchmark goroutine's CPU samples netbench.timer=running while
// its timer runs and netbench.timer=stopped from b.StopTimer to
// b.StartTimer: the hook is one call after each of the two statements of
// the toolchain's testing/benchmark.go that turn the timer off and on.
// The benchmark goroutine's stopped samples are left out of the
// difference, and the page says what share of the larger run's samples
// they were. Goroutines inherit the label of the moment they are started
// and count whole (a server started during set-up serves the timed
// loop). Samples of no benchmark goroutine and without a label, mostly
// the garbage collector's background workers, belong to both regions:
// the set-up's allocations make the collector work as much as the loop's.
// They count in the proportion of the benchmark goroutine's samples in
// the allocator (runtime.mallocgc) that lie in the timed region (or, when
// it has none there, of all its samples), and the page says at what
// share. For btree's Get, whose loop allocates nothing, that leaves the
// rebuilt trees' collections out. Where the hook cannot be placed (a Go
// release whose StartTimer and StopTimer differ), the profile is made by
// the plain binary and the page says why.
//
// Limits. The labels replace those the benchmark goroutine set itself
// (runtime/pprof.Do) when its timer stops or starts; allocation profiles
// carry no labels, so set-up under b.StopTimer stays in the allocation
// graph. The collector's background work is attributed by a proxy (time
// in the allocator, not bytes allocated). The statement of the share outside the timed region compares CPU samples with wall-clock ns/op:
// on a loaded machine the measured time is taken at the share of a CPU the
// run got (its CPU time over its wall-clock time, "at 40% of a CPU"), which
// assumes the load was even over the run, so the share is rough there; a
// benchmark that waits (I/O, sleeps) or runs on several goroutines has no
// meaningful share and shows 0%. Per-iteration work on a call path that
// carries more set-up than loop work (a benchmark function that calls the
// same function directly both in its set-up and in its loop), and paths
// sampled only a handful of times, can be left out as noise. Two profiled
// runs, and a calibration run, take about three times as long as one.
//
// flame merges its profiles into one self-contained HTML page: no network,
// no graphviz, no other file. Click to zoom, a regular-expression search
// that shows the matched share, and hover details. -sample
// cpu|alloc_space|alloc_objects, -focus and -ignore as pprof, -min (frames
// under 0.05% of the total are left in their parent), and -format folded
// for flamegraph.pl or speedscope. flame -diff colors each frame by the
// change in its share of the total (red larger, blue smaller, a legend in
// the page); widths are NEW's, and a frame found on BASE's call paths only
// is drawn too, at its BASE value put on NEW's scale.
//
// Beside every graph the page has a table of functions, flat (own) and
// cumulative values as pprof's top counts them, and for a diff BASE,
// NEW and the change (per operation for compare -profile's graphs, else
// as shares of each total), largest change first; a click on a row, or
// on a frame, shows the function's callers with the part of its
// cumulative value under each, in BASE and in NEW.
//
// A diff matches frames by call path and by normalized names, so that a
// refactoring that renames functions mechanically (the generics rewrite of
// github.com/google/btree from v1.0.1 to v1.1.2, say) does not make every
// frame differ. The rules:
//
//   - Type arguments are dropped, whatever they are: "(*node[go.shape.int]).get",
//     "(*node[...]).get", "(*node[T]).get" and "(*node).get" are one name.
//   - Closure suffixes are one: ".func1", ".func2.1", ".gowrap1",
//     ".deferwrap1" and "-range1", alone or in a run, become ".func*"
//     (two closures of one function become one frame).
//   - The method-value suffix "-fm" and inlining marks appended by tools
//     (" (inline)", "[inlined]", "_[i]") are dropped.
//   - -rename old=new (repeatable) then replaces old by new where it is a
//     whole identifier, in both profiles' names: for btree,
//     -rename BTree=BTreeG.
//   - A frame whose name so becomes its caller's, while their names in the
//     profile differ, is merged into its caller: the wrapper of a generic
//     instantiation and the shape function it calls, or with the -rename
//     above the old BTree.Get wrapper and the BTreeG.Get it calls. A
//     recursive call (the same name in the profile) stays two frames.
//
// -exact turns the normalization off. The page shows normalized names;
// hovering a frame shows its name in either profile. A function with no
// samples in one of the profiles is hatched ("only in base", "only in
// new" in the legend and in the table); a function found on both sides
// but on other call paths keeps the color of its change. compare
// -profile's graphs are matched the same way, with compare -rename
// old=new for its renames.
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
