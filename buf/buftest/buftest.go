// Package buftest helps tests of code that uses package buf catch leaked
// buffers.
package buftest

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/buf/internal/leakcheck"
)

// CheckLeaks makes the calling test fail if a buffer got during the test is
// garbage-collected without its last Release. It sets buf.SetLeakLevel to
// LeakAll (every buffer is tracked, with its allocation stack and last
// accesses) and starts a leak-checking session that every tracked buffer
// handed out until the test ends belongs to. The leak report of such a
// buffer goes to the session, never to the reporter of buf.SetLeakReporter
// (or to another test).
//
// When the test ends, CheckLeaks runs the garbage collector, then waits
// for the report of each of the session's buffers that the GC found
// unreachable while live — an exact count, not a guess — and fails the
// test with every report. Buffers still reachable then are not leaks. If
// the reports do not all arrive within ten seconds the test fails saying
// so, and a report arriving after that is written to standard error,
// marked as late. It then restores the level.
//
// The level is process-wide: a test using CheckLeaks must not run in
// parallel with other tests that get buffers, which would join its session.
func CheckLeaks(t testing.TB) {
	t.Helper()
	checkLeaks(t, 10*time.Second)
}

func checkLeaks(t testing.TB, timeout time.Duration) {
	t.Helper()
	prevLevel := buf.SetLeakLevel(buf.LeakAll)
	s := leakcheck.Start()
	t.Cleanup(func() {
		leaks, err := s.Finish(timeout)
		buf.SetLeakLevel(prevLevel)
		if len(leaks) > 0 {
			t.Errorf("buftest: %d buffer(s) leaked:\n%s", len(leaks), group(leaks))
		}
		if err != nil {
			t.Errorf("%v", err)
		}
	})
}

// Collect runs the garbage collector until buffers that nothing references
// have been collected and the runtime has run their cleanups (which count
// and report leaks). A released buffer sits in its pool through two
// collections before the GC may take it, so Collect runs several, waiting
// after each for a sentinel cleanup queued behind the buffers' ones.
//
// Collect is a best effort: since Go 1.25 cleanups run concurrently, so a
// buffer's cleanup may still be running when the sentinel's has finished.
// CheckLeaks does not rely on it.
func Collect() {
	for range 4 {
		done := make(chan struct{})
		sentinel := new([64]byte) // not a tiny allocation: cleanups run promptly
		runtime.AddCleanup(sentinel, func(c chan struct{}) { close(c) }, done)
		sentinel = nil
		runtime.GC()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
	}
	time.Sleep(time.Millisecond) // let cleanups queued beside the sentinel finish
}

// group joins reports, printing each distinct report once with the number
// of buffers it stands for, the most frequent first (ties in the order they
// first arrived): a loop that leaks a thousand buffers from one place gives
// one report, not a thousand identical ones.
func group(reports []string) string {
	count := make(map[string]int, len(reports))
	var order []string
	for _, r := range reports {
		if count[r] == 0 {
			order = append(order, r)
		}
		count[r]++
	}
	slices.SortStableFunc(order, func(a, b string) int { return count[b] - count[a] })
	var sb strings.Builder
	for i, r := range order {
		if i > 0 {
			sb.WriteByte('\n')
		}
		if n := count[r]; n > 1 {
			fmt.Fprintf(&sb, "%d buffers leaked with this same report:\n", n)
		}
		sb.WriteString(r)
	}
	return sb.String()
}
