package benchrun

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"

	"github.com/netkit/netkit/internal/benchinstr"
	"github.com/netkit/netkit/internal/rt/timerhook"
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
//
// Under benchinstr.Callgrind the runs are made by p.WithTimerLabels's
// binary, whose hooks make callgrind count the timed regions only, so
// that set-up between b.StopTimer and b.StartTimer that grows with b.N
// (a table rebuilt every thousand iterations) is left out as well; when
// that binary cannot be built, by p's own, and InstrCount.NoTimed says
// why.
func (p Package) Instructions(ctx context.Context, opts Options, name string, n int64, c benchinstr.Counter) (InstrCount, error) {
	var res InstrCount
	if n < 1 {
		return res, fmt.Errorf("benchrun: %d iterations: want at least 1", n)
	}
	pattern, cpu, err := profilePattern(name)
	if err != nil {
		return res, err
	}
	if c.Method() == benchinstr.Callgrind {
		switch hp, err := p.WithTimerLabels(ctx); {
		case ctx.Err() != nil:
			return res, context.Cause(ctx)
		case err != nil:
			res.NoTimed = err
		case !timerhook.Callgrind:
			res.NoTimed = errNoRequests
		default:
			p = hp
		}
	}
	printed := name // the result name the runs print
	if c.Method() == benchinstr.Callgrind && cpu != 1 {
		printed = strings.TrimSuffix(name, "-"+strconv.Itoa(cpu))
		cpu = 1
	}
	var counts [2]benchinstr.Count
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
				return res, context.Cause(ctx)
			}
			return res, &RunError{ImportPath: p.ImportPath, Err: err, Output: string(out)}
		}
		ran := resultLines(out)
		if len(ran) != 1 || strings.Fields(ran[0])[0] != printed || strings.Fields(ran[0])[1] != strconv.FormatInt(iters, 10) {
			return res, fmt.Errorf("benchrun: counting the instructions of %s of %s at %d iterations printed %q, want one result of %s (-test.bench %s -test.cpu %d)",
				name, p.ImportPath, iters, ran, printed, pattern, cpu)
		}
		counts[i] = count
	}
	if counts[0].Timed != counts[1].Timed {
		return res, fmt.Errorf("benchrun: counting the instructions of %s of %s: the run at %d iterations counted the timed region only (%v), the run at %d (%v) not",
			name, p.ImportPath, n, counts[0].Timed, 2*n, counts[1].Timed)
	}
	res.Timed = counts[0].Timed
	res.Capped = counts[0].Capped || counts[1].Capped
	res.PerOp = (float64(counts[1].Instructions) - float64(counts[0].Instructions)) / float64(n)
	return res, nil
}

// errNoRequests is InstrCount.NoTimed in netbench's twin build.
var errNoRequests = errors.New("this netbench was built with the safe twins of internal/rt, whose timer hook makes no callgrind requests")

// An InstrCount is the result of Instructions.
type InstrCount struct {
	// PerOp is the instructions per operation.
	PerOp float64
	// Timed is set when both runs counted the benchmark's timed regions
	// only; Capped when the timer stopped so often that the hooks gave up
	// (benchinstr.MaxTimedDumps) and the rest of a run was counted whole.
	Timed, Capped bool
	// NoTimed says why the runs under callgrind were counted whole: the
	// binary with the timer hooks could not be built.
	NoTimed error
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
