package buf_test

import (
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/internal/invariants"
	"github.com/netkit/netkit/internal/testenv"
)

// captureLeaks installs a reporter that collects reports until the test
// ends. The function it returns runs the GC until a's Stats().Leaks
// reaches want — a leak is counted after its report is delivered, so every
// report is in by then — and returns the reports. Past ten seconds it
// fails the test.
func captureLeaks(t *testing.T) func(a *buf.Allocator, want uint64) []*buf.Leak {
	t.Helper()
	var (
		mu    sync.Mutex
		leaks []*buf.Leak
	)
	prev := buf.SetLeakReporter(func(l *buf.Leak) {
		mu.Lock()
		leaks = append(leaks, l)
		mu.Unlock()
	})
	t.Cleanup(func() { buf.SetLeakReporter(prev) })
	return func(a *buf.Allocator, want uint64) []*buf.Leak {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for a.Stats().Leaks < want {
			require.False(t, time.Now().After(deadline), "Stats().Leaks = %d after 10s, want %d", a.Stats().Leaks, want)
			runtime.GC()
			time.Sleep(time.Millisecond)
		}
		mu.Lock()
		defer mu.Unlock()
		return append([]*buf.Leak(nil), leaks...)
	}
}

//go:noinline
func leakOne(a *buf.Allocator) {
	b := a.Get(300)
	b.WriteString("forgotten")
	b.Retain()
	b.Release()
	b.Touch("handed to the decoder")
}

func TestLeakReported(t *testing.T) {
	leaks := captureLeaks(t)
	a := buf.NewAllocator(buf.WithLeakLevel(buf.LeakAll))
	leakOne(a)
	released := a.Get(300)
	released.Release()

	got := leaks(a, 1)
	require.Len(t, got, 1, "%d leak reports, want 1", len(got))
	l := got[0]
	report := l.String()
	t.Logf("report:\n%s", report)
	assert.Equal(t, 320, l.Size, "leak size %d, want 320 (the class of 300 bytes)", l.Size)
	assert.Contains(t, l.Alloc.String(), "buf_test.leakOne", "allocation stack does not name leakOne:\n%s", l.Alloc)
	assert.NotContains(t, l.Alloc.String(), "netkit/buf.(*Allocator)", "allocation stack starts inside package buf:\n%s", l.Alloc)
	var ops []string
	for _, r := range l.Records {
		ops = append(ops, r.Op+":"+r.Hint)
	}
	want := "Retain: Release: Touch:handed to the decoder"
	assert.Equal(t, want, strings.Join(ops, " "), "records")
	assert.True(t, strings.HasPrefix(report, "LEAK: a 320-byte buf.Buffer"), "report does not describe the leak:\n%s", report)
	assert.Contains(t, report, `Touch "handed to the decoder"`, "report does not describe the leak:\n%s", report)
	s := a.Stats()
	assert.Equal(t, uint64(1), s.Leaks, "Stats().Leaks = %d, want 1", s.Leaks)
}

// TestLeakCountedWhenUntracked: with tracking off a leak is still counted.
func TestLeakCountedWhenUntracked(t *testing.T) {
	testenv.SkipInvariants(t, "the invariants build tracks every buffer")
	leaks := captureLeaks(t)
	a := buf.NewAllocator(buf.WithLeakLevel(buf.LeakOff))
	for range 10 {
		leakOne(a)
	}
	got := leaks(a, 10)
	require.Empty(t, got, "%d reports with leak detection off", len(got))
	s := a.Stats()
	require.Equal(t, uint64(10), s.Leaks, "Stats().Leaks = %d, want 10", s.Leaks)
}

// TestLeakSampled: the default level reports about one leaked get in 128.
func TestLeakSampled(t *testing.T) {
	testenv.SkipInvariants(t, "the invariants build tracks every buffer")
	leaks := captureLeaks(t)
	a := buf.NewAllocator(buf.WithLeakLevel(buf.LeakSampled))
	const n = 128 * 16
	for range n {
		a.Get(16).WriteByte(1) // leaked
	}
	got := leaks(a, n)
	// Each leaked get is sampled with probability 1/128: expect 16; the
	// bounds fail with probability below 1e-6.
	require.NotEmpty(t, got, "%d of %d leaks reported, want about %d", len(got), n, n/128)
	require.LessOrEqual(t, len(got), 48, "%d of %d leaks reported, want about %d", len(got), n, n/128)
	s := a.Stats()
	require.Equal(t, uint64(n), s.Leaks, "Stats().Leaks = %d, want %d", s.Leaks, n)
}

func TestMisuseNamesStacks(t *testing.T) {
	a := buf.NewAllocator(buf.WithLeakLevel(buf.LeakAll))
	b := a.Get(64)
	b.Release()
	msg := panicMessage(t, func() { b.Release() })
	for _, want := range []string{"release", "allocated at:", "TestMisuseNamesStacks", "released at:"} {
		assert.Contains(t, msg, want, "double-release panic lacks %q:\n%s", want, msg)
	}
	if invariants.Enabled {
		return // every buffer is tracked
	}
	untracked := buf.NewAllocator(buf.WithLeakLevel(buf.LeakOff)).Get(64)
	untracked.Release()
	msg = panicMessage(t, func() { untracked.Len() })
	assert.Contains(t, msg, "-tags invariants", "untracked use-after-release panic does not say how to get stacks")
}

// panicMessage runs f, which must panic with an error wrapping
// buf.ErrReleased, and returns the error's text.
func panicMessage(t *testing.T, f func()) (msg string) {
	t.Helper()
	defer func() {
		err, _ := recover().(error)
		require.ErrorIs(t, err, buf.ErrReleased, "panic value %v, want an error wrapping buf.ErrReleased", err)
		msg = err.Error()
	}()
	f()
	t.Fatal("no panic")
	return ""
}

func TestParseLeakLevel(t *testing.T) {
	for _, l := range []buf.LeakLevel{buf.LeakOff, buf.LeakSampled, buf.LeakAll} {
		got, err := buf.ParseLeakLevel(strings.ToUpper(l.String()))
		assert.NoError(t, err, "ParseLeakLevel(%q) = %v", l, got)
		assert.Equal(t, l, got, "ParseLeakLevel(%q) = %v, %v", l, got, err)
	}
	_, err := buf.ParseLeakLevel("paranoid")
	assert.Error(t, err, "ParseLeakLevel accepted an unknown level")
}
