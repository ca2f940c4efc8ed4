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
)

// The CPU profile label that a binary built by WithTimerLabels puts on a
// benchmark goroutine while its timer is stopped: TimerLabel=TimerStopped.
const (
	TimerLabel   = "netbench.timer"
	TimerStopped = "stopped"
)

// timerLabelsSuffix ends the name of the binary WithTimerLabels builds,
// beside the package's own.
const timerLabelsSuffix = ".timerlabels"

// timerFile is the file WithTimerLabels adds to the testing package. It
// keeps one labelled context, so that StopTimer allocates nothing.
const timerFile = `package testing

import (
	"context"
	"runtime/pprof"
)

var netbenchStopped = pprof.WithLabels(context.Background(), pprof.Labels(%q, %q))

// netbenchTimer labels the calling goroutine's CPU profile samples while
// its benchmark's timer is stopped, and clears its labels when it starts.
func netbenchTimer(on bool) {
	if on {
		pprof.SetGoroutineLabels(context.Background())
		return
	}
	pprof.SetGoroutineLabels(netbenchStopped)
}
`

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
// (go test -c -overlay), whose testing package labels the CPU profile
// samples of a benchmark goroutine taken while its timer is stopped
// (TimerLabel=TimerStopped): the set-up between b.StopTimer and
// b.StartTimer, which no difference of iteration counts removes when it
// grows with b.N. Everything else about the binary is p's. A binary built
// earlier and not older than p.Binary is reused.
//
// The overlay replaces testing/benchmark.go of the toolchain that builds
// in p.Dir with a copy that calls a hook where StartTimer has turned the
// timer on and where StopTimer begins, and adds the hook's file; when the statements
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
	overlay := map[string]map[string]string{"Replace": {
		filepath.Join(testingDir, "benchmark.go"):      filepath.Join(tmp, "benchmark.go"),
		filepath.Join(testingDir, "netbench_timer.go"): filepath.Join(tmp, "netbench_timer.go"),
	}}
	files := map[string][]byte{
		"benchmark.go":      patched,
		"netbench_timer.go": fmt.Appendf(nil, timerFile, TimerLabel, TimerStopped),
	}
	ov, err := json.Marshal(overlay)
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
