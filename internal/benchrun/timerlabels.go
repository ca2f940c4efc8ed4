package benchrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/netkit/netkit/internal/benchinstr"
	"github.com/netkit/netkit/internal/rt/timerhook"
)

// The CPU profile label that a binary built by WithTimerLabels puts on a
// benchmark goroutine: TimerLabel=TimerRunning while its timer runs and
// TimerLabel=TimerStopped while it is stopped. Goroutines the benchmark
// starts inherit the label of the moment they are started.
const (
	TimerLabel   = "netbench.timer"
	TimerRunning = "running"
	TimerStopped = "stopped"
)

// timerLabelsSuffix ends the name of the binary WithTimerLabels builds,
// beside the package's own; the hook of netbench's twin build, which
// labels only, has a name of its own.
var timerLabelsSuffix = map[bool]string{true: ".timerhooks", false: ".timerlabels"}[timerhook.Callgrind]

// The lines of the testing package that timerPatch finds, each exactly
// once, and follows with a call of netbenchTimer: the statement of
// StartTimer that turns the timer on (after its bookkeeping, which the
// measured time leaves out too) and the first line of StopTimer (before
// its bookkeeping).
const (
	timerOnStmt  = "\t\tb.timerOn = true\n"
	timerOffStmt = "func (b *B) StopTimer() {\n"
)

// ErrTimerPatch is wrapped by WithTimerLabels when the testing package of
// the toolchain does not have the statements it hooks (a Go release that
// rewrote the benchmark timer).
var ErrTimerPatch = errors.New("the testing package's StartTimer/StopTimer are not as netbench knows them")

// timerPatch returns the source of testing/benchmark.go with a call of
// netbenchTimer where the timer starts and where it stops.
func timerPatch(src []byte) ([]byte, error) {
	s := string(src)
	for _, stmt := range []string{timerOnStmt, timerOffStmt} {
		if n := strings.Count(s, stmt); n != 1 {
			return nil, fmt.Errorf("%w: %q found %d times, want once", ErrTimerPatch, strings.TrimSpace(stmt), n)
		}
	}
	s = strings.Replace(s, timerOnStmt, timerOnStmt+"\t\tnetbenchTimer(true)\n", 1)
	s = strings.Replace(s, timerOffStmt, timerOffStmt+"\tnetbenchTimer(false)\n", 1)
	return []byte(s), nil
}

// WithTimerLabels returns p with a test binary, built beside p.Binary
// (go test -c -overlay), whose testing package follows each benchmark's
// timer: it labels the CPU profile samples of the benchmark goroutine
// with TimerLabel (TimerRunning or TimerStopped), so that the set-up
// between b.StopTimer and b.StartTimer, which no difference of iteration
// counts removes when it grows with b.N, can be told apart; and under
// valgrind's callgrind it zeroes the instruction counts when the timer
// starts and dumps them (benchinstr.TimedDump) when it stops, so that the
// counts can leave the set-up out too. Everything else about the binary
// is p's. A binary built earlier and not older than p.Binary is reused.
//
// The overlay replaces testing/benchmark.go of the toolchain that builds
// in p.Dir with a copy that calls a hook where StartTimer has turned the
// timer on and where StopTimer begins, and adds the hook's files
// (package timerhook; without timerhook.Callgrind, in the build of
// netbench on rt's safe twins, the hook only labels); when the statements
// are not found the error wraps ErrTimerPatch. The labels replace any the
// benchmark goroutine had set itself when the timer starts or stops.
func (p Package) WithTimerLabels(ctx context.Context) (Package, error) {
	out := p.Binary + timerLabelsSuffix
	if fi, err := os.Stat(out); err == nil {
		if bi, err := os.Stat(p.Binary); err == nil && !fi.ModTime().Before(bi.ModTime()) {
			p.Binary = out
			return p, nil
		}
	}
	goroot, err := goCmd(ctx, p.Dir, "env", "GOROOT")
	if err != nil {
		return p, err
	}
	testingDir := filepath.Join(string(bytes.TrimSpace(goroot)), "src", "testing")
	src, err := os.ReadFile(filepath.Join(testingDir, "benchmark.go"))
	if err != nil {
		return p, err
	}
	patched, err := timerPatch(src)
	if err != nil {
		return p, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(p.Binary), ".timerlabels-")
	if err != nil {
		return p, err
	}
	defer os.RemoveAll(tmp)
	files := timerhook.Files(timerhook.Config{
		Label: TimerLabel, Running: TimerRunning, Stopped: TimerStopped,
		TimedDump: benchinstr.TimedDump, CappedDump: benchinstr.CappedDump, MaxDumps: benchinstr.MaxTimedDumps,
	})
	files["benchmark.go"] = patched
	replace := map[string]string{}
	for name := range files {
		replace[filepath.Join(testingDir, name)] = filepath.Join(tmp, name)
	}
	ov, err := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err != nil {
		return p, err
	}
	files["overlay.json"] = ov
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(tmp, name), b, 0o644); err != nil {
			return p, err
		}
	}
	bin := filepath.Join(tmp, filepath.Base(out))
	ok, err := buildTest(ctx, p.Dir, p.ImportPath, bin, []string{"-overlay", filepath.Join(tmp, "overlay.json")})
	if err != nil {
		return p, err
	}
	if !ok {
		return p, fmt.Errorf("benchrun: go test -c -overlay wrote no test binary of %s", p.ImportPath)
	}
	// Another run may have stored one first; either is as good.
	if err := os.Rename(bin, out); err != nil {
		return p, err
	}
	p.Binary = out
	return p, nil
}
