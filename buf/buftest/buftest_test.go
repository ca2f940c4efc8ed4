package buftest

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/buf/internal/leakcheck"
)

// fakeTB records what CheckLeaks reports instead of failing the real test,
// and runs the cleanups it registers when finish is called.
type fakeTB struct {
	testing.TB
	mu       sync.Mutex
	cleanups []func()
	errors   []string
}

func (f *fakeTB) Helper()           {}
func (f *fakeTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.Errorf(format, args...)
	runtime.Goexit()
}

// finish runs the registered cleanups, last first, as the testing package
// does when a test ends, and returns what they reported.
func (f *fakeTB) finish() string {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
	f.cleanups = nil
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.errors, "\n")
}

//go:noinline
func leak(a *buf.Allocator, n int) {
	for range n {
		a.Get(64).WriteString("never released")
	}
}

// TestCheckLeaksFailsEveryLeakingTest runs a test body that leaks n
// buffers under CheckLeaks again and again: every run must fail, reporting
// exactly n leaks. With a sentinel cleanup as the only barrier, reports
// still queued behind it (cleanups run concurrently since Go 1.25) let
// some runs pass or undercount.
func TestCheckLeaksFailsEveryLeakingTest(t *testing.T) {
	a := buf.NewAllocator()
	const runs, n = 20, 2000
	for run := range runs {
		f := &fakeTB{TB: t}
		CheckLeaks(f)
		leak(a, n)
		got := f.finish()
		want := fmt.Sprintf("buftest: %d buffer(s) leaked:", n)
		require.True(t, strings.HasPrefix(got, want), "run %d: CheckLeaks reported %.200q, want a failure starting %q", run, got, want)
	}
}

// TestCheckLeaksTimeout stalls the delivery of leak reports past
// CheckLeaks's time limit: the test must fail saying that the reports did
// not arrive, and the stalled reports, once delivered, go to the orphan
// handler (not to the finished test).
func TestCheckLeaksTimeout(t *testing.T) {
	release := make(chan struct{})
	stall := func() { <-release }
	leakcheck.BeforeReport.Store(&stall)
	var orphans atomic.Int32
	prev := leakcheck.SetOrphan(func(string) { orphans.Add(1) })
	t.Cleanup(func() { leakcheck.SetOrphan(prev) })

	f := &fakeTB{TB: t}
	checkLeaks(f, 50*time.Millisecond)
	a := buf.NewAllocator()
	leak(a, 3)
	got := f.finish()
	leakcheck.BeforeReport.Store(nil)
	close(release)

	want := "3 buffer(s) were garbage-collected without their last Release (leaked), and their reports had not arrived after 50ms"
	require.Contains(t, got, leakcheck.ErrTimeout.Error(), "CheckLeaks reported %q, want the timeout message with %q", got, want)
	require.Contains(t, got, want, "CheckLeaks reported %q, want the timeout message with %q", got, want)
	waitFor(t, "3 orphaned reports", func() bool { return orphans.Load() == 3 })
}

// waitFor polls cond for up to ten seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		require.False(t, time.Now().After(deadline), "gave up waiting for %s", what)
		time.Sleep(time.Millisecond)
	}
}

var kept *buf.Buffer

// TestCheckLeaksSessionsApart: a buffer still reachable when its test ends
// is no leak of that test; when it leaks later, during another test's
// session, its report reaches neither that test nor the process reporter,
// but the orphan handler.
func TestCheckLeaksSessionsApart(t *testing.T) {
	var (
		mu       sync.Mutex
		orphans  []string
		reported int
	)
	prevOrphan := leakcheck.SetOrphan(func(r string) {
		mu.Lock()
		orphans = append(orphans, r)
		mu.Unlock()
	})
	t.Cleanup(func() { leakcheck.SetOrphan(prevOrphan) })
	prevReporter := buf.SetLeakReporter(func(*buf.Leak) {
		mu.Lock()
		reported++
		mu.Unlock()
	})
	t.Cleanup(func() { buf.SetLeakReporter(prevReporter) })
	a := buf.NewAllocator()

	first := &fakeTB{TB: t}
	CheckLeaks(first)
	kept = getKept(a)
	released := a.Get(64)
	released.Release()
	got := first.finish()
	require.Equal(t, "", got, "first session, whose buffer is still reachable, failed: %s", got)

	second := &fakeTB{TB: t}
	CheckLeaks(second)
	kept = nil // the first session's buffer leaks now
	runtime.GC()
	waitFor(t, "the first session's leak to be counted", func() bool { return a.Stats().Leaks == 1 })
	require.Empty(t, second.finish(), "second session failed with the first one's leak")
	waitFor(t, "the orphaned report", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(orphans) == 1
	})
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 0, reported, "%d reports reached the process reporter, want 0", reported)
	assert.Contains(t, orphans[0], "buftest.getKept", "orphaned report does not name where the buffer was got:\n%s", orphans[0])
}

//go:noinline
func getKept(a *buf.Allocator) *buf.Buffer {
	b := a.Get(64)
	b.WriteString("kept past the test")
	return b
}

// TestCheckLeaksNested: a leak in a session started inside another (a
// subtest's CheckLeaks) fails the inner test only.
func TestCheckLeaksNested(t *testing.T) {
	a := buf.NewAllocator()
	outer := &fakeTB{TB: t}
	CheckLeaks(outer)
	inner := &fakeTB{TB: t}
	CheckLeaks(inner)
	leak(a, 2)
	got := inner.finish()
	assert.True(t, strings.HasPrefix(got, "buftest: 2 buffer(s) leaked:"), "inner session reported %.100q, want 2 leaks", got)
	b := a.Get(16)
	b.Release()
	assert.Empty(t, outer.finish(), "outer session failed with the inner one's leaks")
}

//go:noinline
func leakElsewhere(a *buf.Allocator) { a.Get(64).WriteString("also never released") }

// TestCheckLeaksGroupsReports leaks five buffers from one place and one
// from another: the failure counts all six but prints two reports, the
// first marked as standing for five buffers.
func TestCheckLeaksGroupsReports(t *testing.T) {
	a := buf.NewAllocator()
	f := &fakeTB{TB: t}
	CheckLeaks(f)
	leak(a, 5)
	leakElsewhere(a)
	got := f.finish()
	assert.True(t, strings.HasPrefix(got, "buftest: 6 buffer(s) leaked:\n5 buffers leaked with this same report:\nLEAK:"), "report starts %.200q, want 6 leaks and the first report standing for 5", got)
	n := strings.Count(got, "LEAK:")
	assert.Equal(t, 2, n, "%d reports printed, want 2 (one per allocation site):\n%s", n, got)
	assert.Contains(t, got, "leakElsewhere", "the second site is not reported:\n%s", got)
}
