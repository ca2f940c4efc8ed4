package fpstack

import (
	"regexp"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/rt"
)

// names symbolizes pcs as runtime.CallersFrames prints them, inlined
// calls expanded, leaving out the go-statement and defer wrappers that
// runtime.Callers leaves out too.
func names(pcs []uintptr) []string {
	var out []string
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		if !wrapper.MatchString(f.Function) {
			out = append(out, f.Function)
		}
		if !more {
			return out
		}
	}
}

var wrapper = regexp.MustCompile(`\.(gowrap|deferwrap)\d+$`)

// capture returns the stacks of its caller as Callers and runtime.Callers
// see them.
//
//go:noinline
func capture(max int) (fp, ref []uintptr) {
	fp = make([]uintptr, max)
	ref = make([]uintptr, max)
	fp = fp[:Callers(fp)]
	ref = ref[:runtime.Callers(2, ref)]
	return fp, ref
}

//go:noinline
func outer(max int) ([]uintptr, []uintptr) { return middle(max) }

// middle is inlined into outer: Callers has no PC of its own for it, and
// CallersFrames must find it behind outer's.
func middle(max int) ([]uintptr, []uintptr) { return inner(max) }

//go:noinline
func inner(max int) ([]uintptr, []uintptr) { return capture(max) }

// TestCallersMatchesRuntime: the same functions, in the same order, as
// runtime.Callers gives, inlined frames included, down to the bottom of
// the goroutine.
func TestCallersMatchesRuntime(t *testing.T) {
	fp, ref := outer(64)
	got, want := names(fp), names(ref)
	require.Equal(t, want, got, "Callers (walked %v) and runtime.Callers symbolize differently", Walked)
	require.GreaterOrEqual(t, len(got), 5, "stack %q", got)
	assert.Equal(t, "github.com/netkit/netkit/internal/rt/fpstack.inner", got[0],
		"the stack does not start at the caller's caller")
	assert.Contains(t, got, "github.com/netkit/netkit/internal/rt/fpstack.middle",
		"the stack lacks the inlined frame")
}

// TestCallersTruncates fills no more PCs than the slice holds, and none
// into an empty one.
func TestCallersTruncates(t *testing.T) {
	for _, max := range []int{0, 1, 3} {
		fp, ref := outer(max)
		require.Len(t, fp, max, "max %d: PCs written by Callers", max)
		require.Len(t, ref, max, "max %d: PCs written by runtime.Callers", max)
		if max > 0 {
			assert.Equal(t, names(ref[:1])[0], names(fp[:1])[0], "max %d: first frame", max)
		}
	}
}

// TestCallersDeepRecursion walks a stack that grew (and was copied) many
// times: every frame pointer on it must have been moved with it.
func TestCallersDeepRecursion(t *testing.T) {
	var fp, ref []uintptr
	var rec func(int)
	rec = func(d int) {
		var pad [256]byte
		if d == 0 {
			fp, ref = capture(4096)
			return
		}
		rec(d - 1)
		runtime.KeepAlive(pad)
	}
	rec(2000)
	got, want := names(fp), names(ref)
	require.Equal(t, len(want), len(got), "deep stack: frames of Callers and of runtime.Callers")
	require.Equal(t, want, got, "deep stack")
}

// TestTwinSelected: the frame-pointer walk is built exactly on amd64
// without the nounsafe and purego tags; every other build gets the twin
// that calls runtime.Callers (which the tests above then check against
// itself, so this is what proves the tags reach the package).
func TestTwinSelected(t *testing.T) {
	want := runtime.GOARCH == "amd64" && rt.Unsafe && rt.Asm
	assert.Equal(t, want, Walked, "Walked on %s with rt.Unsafe=%v rt.Asm=%v", runtime.GOARCH, rt.Unsafe, rt.Asm)
}

func TestCallersNoAllocs(t *testing.T) {
	var pcs [32]uintptr
	n := testing.AllocsPerRun(100, func() { Callers(pcs[:]) })
	assert.Zero(t, n, "Callers allocates")
}

func BenchmarkCallers(b *testing.B) {
	var pcs [32]uintptr
	b.Run("impl=fpstack", func(b *testing.B) {
		for b.Loop() {
			Callers(pcs[:])
		}
	})
	b.Run("impl=runtime", func(b *testing.B) {
		for b.Loop() {
			runtime.Callers(2, pcs[:])
		}
	})
}
