package benchrun

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"

	"github.com/netkit/netkit/internal/benchinstr"
)

// Instructions returns the instructions per operation of the one benchmark
// of p named name (a full result name, as Profile takes it), counted by c:
// the benchmark runs alone, selected as Profile selects it, once at n
// iterations (-test.benchtime nx) and once at 2n, and the result is
// (I(2n) - I(n)) / n, where I is a whole run's count. What does not scale
// with b.N (process start, set-up outside the benchmark loop, the testing
// package's first run at b.N = 1) is in both runs and cancels.
// opts.Timeout limits each run; opts.Bench, Count, Benchtime and CPU are
// ignored. Each run must print exactly one result line, of name, at the
// iteration count asked for.
//
// Under benchinstr.Callgrind the benchmark runs at GOMAXPROCS 1 whatever
// the -N suffix of name says: valgrind runs one thread at a time anyway,
// and with more Ps the Go scheduler's idle Ps look for work (findRunnable,
// lock2, wakep) for as long as the run lasts, which varies from run to run
// and does not cancel. A RunParallel benchmark then runs its goroutines
// one at a time: the same work per operation, without contention.
func (p Package) Instructions(ctx context.Context, opts Options, name string, n int64, c benchinstr.Counter) (float64, error) {
	if n < 1 {
		return 0, fmt.Errorf("benchrun: %d iterations: want at least 1", n)
	}
	pattern, cpu, err := profilePattern(name)
	if err != nil {
		return 0, err
	}
	printed := name // the result name the runs print
	if c.Method() == benchinstr.Callgrind && cpu != 1 {
		printed = strings.TrimSuffix(name, "-"+strconv.Itoa(cpu))
		cpu = 1
	}
	var counts [2]uint64
	for i, iters := range []int64{n, 2 * n} {
		args := []string{"-test.run", "^$", "-test.bench", pattern, "-test.cpu", strconv.Itoa(cpu), "-test.count", "1",
			"-test.benchtime", strconv.FormatInt(iters, 10) + "x", "-test.v=test2json"}
		if opts.Timeout > 0 {
			args = append(args, "-test.timeout", opts.Timeout.String())
		}
		cmd := exec.CommandContext(ctx, p.Binary, args...)
		cmd.Dir = p.Dir
		count, out, err := c.Count(ctx, cmd)
		if err != nil {
			if ctx.Err() != nil {
				return 0, context.Cause(ctx)
			}
			return 0, &RunError{ImportPath: p.ImportPath, Err: err, Output: string(out)}
		}
		ran := resultLines(out)
		if len(ran) != 1 || strings.Fields(ran[0])[0] != printed || strings.Fields(ran[0])[1] != strconv.FormatInt(iters, 10) {
			return 0, fmt.Errorf("benchrun: counting the instructions of %s of %s at %d iterations printed %q, want one result of %s (-test.bench %s -test.cpu %d)",
				name, p.ImportPath, iters, ran, printed, pattern, cpu)
		}
		counts[i] = count
	}
	return (float64(counts[1]) - float64(counts[0])) / float64(n), nil
}

// resultLines returns the result lines in out, the standard output of a
// test binary run with -test.v=test2json, as Run reads them.
func resultLines(out []byte) []string {
	var sc scanner
	var results []string
	for line := range strings.Lines(string(out)) {
		for _, seg := range splitMarker(strings.TrimRight(line, "\r\n")) {
			for _, l := range sc.line(seg) {
				if isResult(l) {
					results = append(results, l)
				}
			}
		}
	}
	return results
}
