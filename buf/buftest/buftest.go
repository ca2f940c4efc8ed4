// Package buftest helps tests of code that uses package buf catch leaked
// buffers.
package buftest

import (
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/netkit/netkit/buf"
)

// CheckLeaks makes the calling test fail if a buffer got during the test is
// garbage-collected without its last Release. It sets buf.SetLeakLevel to
// LeakAll (every buffer is tracked, with its allocation stack and last
// accesses) and installs a reporter that collects reports; when the test
// ends it runs the GC until pooled and leaked headers have been collected
// and their cleanups have run, restores the level and the reporter, and
// fails the test with every report.
//
// The level and the reporter are process-wide: a test using CheckLeaks must
// not run in parallel with other tests that get buffers.
func CheckLeaks(t testing.TB) {
	t.Helper()
	var (
		mu    sync.Mutex
		leaks []string
	)
	prevLevel := buf.SetLeakLevel(buf.LeakAll)
	prevReporter := buf.SetLeakReporter(func(l *buf.Leak) {
		mu.Lock()
		leaks = append(leaks, l.String())
		mu.Unlock()
	})
	t.Cleanup(func() {
		Collect()
		buf.SetLeakReporter(prevReporter)
		buf.SetLeakLevel(prevLevel)
		mu.Lock()
		defer mu.Unlock()
		if len(leaks) > 0 {
			t.Errorf("buftest: %d buffer(s) leaked:\n%s", len(leaks), strings.Join(leaks, "\n"))
		}
	})
}

// Collect runs the garbage collector until buffers that nothing references
// have been collected and the runtime has run their cleanups (which count
// and report leaks). A released buffer sits in its pool through two
// collections before the GC may take it, so Collect runs several, waiting
// after each for a sentinel cleanup queued behind the buffers' ones.
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
