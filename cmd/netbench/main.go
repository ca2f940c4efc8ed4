// Command netbench runs the testing.B benchmarks of the packages of a Go
// module, writes the results in the Go benchmark format, and compares two
// git revisions with benchstat's statistics.
//
// Usage:
//
//	netbench run [flags] [packages]
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
package main

import (
	"errors"
	"fmt"
	"os"
)

func main() {
	err := run(os.Stdout, os.Stderr, os.Args[1:])
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, "netbench:", err)
	var se *statusError
	if errors.As(err, &se) {
		os.Exit(se.code)
	}
	os.Exit(2)
}
