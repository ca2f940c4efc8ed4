// Package timerhook holds the source that netbench adds to the testing
// package of a benchmark's test binary (go test -c -overlay) to follow
// each benchmark's timer: a hook called where b.StartTimer turns the
// timer on and where b.StopTimer begins. The hook
//
//   - labels the benchmark goroutine's CPU profile samples with the
//     timer's state (pprof.SetGoroutineLabels), so that a profile can
//     leave out the set-up between b.StopTimer and b.StartTimer;
//   - under valgrind's callgrind, zeroes the instruction counts when the
//     timer starts and has them dumped when it stops (callgrind's client
//     requests ZERO_STATS and DUMP_STATS_AT), so that a count can leave
//     that set-up out too.
//
// A client request is a few instructions of amd64 assembly that do
// nothing outside valgrind, and it passes a pointer to the dump's name,
// which takes unsafe: so the source lives here, in rt. Its twin (the
// nounsafe or purego build of netbench) adds a hook that labels only, and
// Callgrind is false. On architectures other than amd64 the requests are
// empty functions.
package timerhook

import (
	"fmt"
	"strconv"
	"strings"
)

// Config names what the hook writes.
type Config struct {
	// Label is the profile label's key; Running and Stopped its values
	// while the timer runs and while it is stopped.
	Label, Running, Stopped string
	// TimedDump names the dump requested when the timer stops;
	// CappedDump the last one, after which (MaxDumps dumps in all) the
	// hook stops zeroing and dumping, so that a benchmark that stops its
	// timer every iteration does not write a dump each time.
	TimedDump, CappedDump string
	MaxDumps              int
}

// hookFile calls netbenchZero and netbenchDump, which the request files
// define. The hooks run on the benchmark's goroutine, one benchmark at a
// time, so the state needs no lock, and they allocate nothing.
const hookFile = `package testing

import (
	"context"
	"runtime/pprof"
)

var (
	netbenchRunning = pprof.WithLabels(context.Background(), pprof.Labels(%[1]q, %[2]q))
	netbenchStopped = pprof.WithLabels(context.Background(), pprof.Labels(%[1]q, %[3]q))
	netbenchOn      bool
	netbenchDumps   int
)

const netbenchMaxDumps = %[4]d

// netbenchTimer labels the calling goroutine's CPU profile samples with
// the state of its benchmark's timer and, under callgrind, zeroes the
// instruction counts when the timer starts and dumps them when it stops.
func netbenchTimer(on bool) {
	if on {
		pprof.SetGoroutineLabels(netbenchRunning)
		netbenchOn = true
		if netbenchDumps < netbenchMaxDumps {
			netbenchZero()
		}
		return
	}
	if !netbenchOn {
		return // StopTimer with the timer stopped
	}
	netbenchOn = false
	if netbenchDumps < netbenchMaxDumps {
		netbenchDumps++
		netbenchDump(netbenchDumps == netbenchMaxDumps)
	}
	pprof.SetGoroutineLabels(netbenchStopped)
}
`

// Files returns the files to add to the testing package, by name, for a
// testing/benchmark.go patched to call netbenchTimer(true) where the
// timer starts and netbenchTimer(false) where StopTimer begins.
func Files(c Config) map[string][]byte {
	files := map[string][]byte{
		"netbench_timer.go": fmt.Appendf(nil, hookFile, c.Label, c.Running, c.Stopped, c.MaxDumps),
	}
	names := strings.NewReplacer("$TIMED", strconv.Quote(c.TimedDump), "$CAPPED", strconv.Quote(c.CappedDump))
	for name, src := range requestFiles {
		files[name] = []byte(names.Replace(src))
	}
	return files
}
