package benchrun

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Profile runs the one benchmark of p named name, once, and writes its CPU
// profile to cpuOut and, when memOut is not "", its allocation profile to
// memOut. name is a full result name as Run writes it, with the
// -GOMAXPROCS suffix when not 1: "BenchmarkGet/size=64/impl=pool-2".
// Relative output paths are relative to the current directory, not to
// p.Dir where the benchmark runs.
//
// The testing package profiles the whole run of the binary, so Profile
// selects the benchmark with a pattern anchored at every level
// (^BenchmarkGet$/^size=64$/^impl=pool$) and runs it at the GOMAXPROCS
// of the suffix (1 without one) with -test.count 1 and opts.Benchtime;
// opts.Bench, Count and CPU are ignored. Siblings of a sub-benchmark do
// not run, but the code of its parents around their b.Run calls (set-up)
// does, and is in the profile. A trailing "-N" is always read as the
// suffix: a sub-benchmark whose own name ends in "-N" (N > 1) cannot be
// profiled at GOMAXPROCS 1.
//
// The allocation profile is sampled at the runtime's default rate (one
// sample per 512 KiB allocated on average; pprof scales the samples to
// estimates of the totals). -test.memprofilerate=1 would record every
// allocation, but it takes a stack trace per allocation in the same
// process, which slows allocation-heavy code several times and shows up
// in the CPU profile of the same run; the default costs nothing visible.
//
// Profile returns the benchmark's iteration count (b.N) in that run, which
// scales a profile to time per operation. It fails, and removes the files
// it was to write, when the binary fails or when its output holds anything
// but exactly one result line, of name.
func (p Package) Profile(ctx context.Context, opts Options, name string, cpuOut, memOut string) (ops int64, err error) {
	r, err := p.ProfileRun(ctx, opts, name, cpuOut, memOut)
	return r.Ops, err
}

// ProfileResult is the result line of a profiled run.
type ProfileResult struct {
	// Ops is the iteration count of the result (b.N).
	Ops int64
	// Values holds the result's values by unit: "ns/op", "B/op",
	// "allocs/op" and any the benchmark reported.
	Values map[string]float64
	// Wall is the wall-clock time of the run of the test binary; CPU its
	// CPU time (user and system, all threads), or 0 when unknown (not a
	// Unix system, or another child process of netbench ended meanwhile).
	// CPU/Wall is the share of a CPU the run got: below 1 on a loaded
	// machine for a benchmark of one goroutine.
	Wall, CPU time.Duration
}

// ProfileRun is Profile, returning the whole result line. cpuOut may be
// "" too: the run then writes no CPU profile (a run that only measures,
// to choose the iteration count of profiled ones).
func (p Package) ProfileRun(ctx context.Context, opts Options, name string, cpuOut, memOut string) (res ProfileResult, err error) {
	pattern, cpu, err := profilePattern(name)
	if err != nil {
		return res, err
	}
	outs := []*string{&cpuOut, &memOut}
	for _, o := range outs {
		if *o == "" {
			continue
		}
		if *o, err = filepath.Abs(*o); err != nil {
			return res, err
		}
	}
	defer func() {
		if err != nil {
			removeFiles(cpuOut, memOut)
		}
	}()
	args := []string{"-test.run", "^$", "-test.bench", pattern, "-test.cpu", strconv.Itoa(cpu), "-test.count", "1",
		"-test.benchmem", "-test.v=test2json"}
	if cpuOut != "" {
		args = append(args, "-test.cpuprofile", cpuOut)
	}
	if memOut != "" {
		args = append(args, "-test.memprofile", memOut)
	}
	if opts.Benchtime != "" {
		args = append(args, "-test.benchtime", opts.Benchtime)
	}
	if opts.Timeout > 0 {
		args = append(args, "-test.timeout", opts.Timeout.String())
	}
	var out bytes.Buffer
	cpu0, cpuOK := childrenCPU()
	start := time.Now()
	if err := p.exec(ctx, args, &out, nil); err != nil {
		return res, err
	}
	res.Wall = time.Since(start)
	if cpu1, ok := childrenCPU(); ok && cpuOK {
		res.CPU = cpu1 - cpu0
	}
	var ran []string
	for line := range strings.Lines(out.String()) {
		if isResult(line) {
			f := strings.Fields(line)
			ran = append(ran, f[0])
			res.Ops, _ = strconv.ParseInt(f[1], 10, 64) // isResult checked it
			res.Values = map[string]float64{}
			for i := 2; i+1 < len(f); i += 2 {
				if v, err := strconv.ParseFloat(f[i], 64); err == nil {
					res.Values[f[i+1]] = v
				}
			}
		}
	}
	if len(ran) != 1 || ran[0] != name {
		return ProfileResult{}, fmt.Errorf("benchrun: profiling %s of %s ran %q, want exactly that benchmark (-test.bench %s -test.cpu %d)", name, p.ImportPath, ran, pattern, cpu)
	}
	return res, nil
}

// profilePattern returns the -test.bench pattern that selects exactly the
// benchmark of result name name, and the GOMAXPROCS it ran at.
func profilePattern(name string) (pattern string, cpu int, err error) {
	if !strings.HasPrefix(name, "Benchmark") || strings.ContainsAny(name, " \t\n") {
		return "", 0, fmt.Errorf("benchrun: %q is not a benchmark result name", name)
	}
	cpu = 1
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		if n, err := strconv.Atoi(name[i+1:]); err == nil && n > 1 && !strings.HasPrefix(name[i+1:], "+") {
			name, cpu = name[:i], n
		}
	}
	levels := strings.Split(name, "/")
	for i, l := range levels {
		levels[i] = "^" + regexp.QuoteMeta(l) + "$"
	}
	return strings.Join(levels, "/"), cpu, nil
}

func removeFiles(paths ...string) {
	for _, p := range paths {
		if p != "" {
			os.Remove(p) // absent when the run failed early
		}
	}
}
