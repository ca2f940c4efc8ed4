package fpstack

import (
	"regexp"
	"runtime"
	"slices"
	"testing"
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
func capture(max int) (fp, rt []uintptr) {
	fp = make([]uintptr, max)
	rt = make([]uintptr, max)
	fp = fp[:Callers(fp)]
	rt = rt[:runtime.Callers(2, rt)]
	return fp, rt
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
	fp, rt := outer(64)
	got, want := names(fp), names(rt)
	if !slices.Equal(got, want) {
		t.Fatalf("Callers (walked %v) symbolizes to\n%q\nruntime.Callers to\n%q", Walked, got, want)
	}
	if len(got) < 5 || got[0] != "github.com/netkit/netkit/internal/fpstack.inner" {
		t.Fatalf("stack %q does not start at the caller's caller", got)
	}
	if !slices.Contains(got, "github.com/netkit/netkit/internal/fpstack.middle") {
		t.Fatalf("stack %q lacks the inlined frame", got)
	}
}

// TestCallersTruncates fills no more PCs than the slice holds, and none
// into an empty one.
func TestCallersTruncates(t *testing.T) {
	for _, max := range []int{0, 1, 3} {
		fp, rt := outer(max)
		if len(fp) != max || len(rt) != max {
			t.Fatalf("max %d: Callers wrote %d, runtime.Callers %d", max, len(fp), len(rt))
		}
		if max > 0 && names(fp[:1])[0] != names(rt[:1])[0] {
			t.Fatalf("max %d: first frame %q, runtime.Callers %q", max, names(fp[:1]), names(rt[:1]))
		}
	}
}

// TestCallersDeepRecursion walks a stack that grew (and was copied) many
// times: every frame pointer on it must have been moved with it.
func TestCallersDeepRecursion(t *testing.T) {
	var fp, rt []uintptr
	var rec func(int)
	rec = func(d int) {
		var pad [256]byte
		if d == 0 {
			fp, rt = capture(4096)
			return
		}
		rec(d - 1)
		runtime.KeepAlive(pad)
	}
	rec(2000)
	if got, want := names(fp), names(rt); !slices.Equal(got, want) {
		t.Fatalf("deep stack: Callers gives %d frames, runtime.Callers %d", len(got), len(want))
	}
}

func TestCallersNoAllocs(t *testing.T) {
	var pcs [32]uintptr
	if n := testing.AllocsPerRun(100, func() { Callers(pcs[:]) }); n != 0 {
		t.Fatalf("Callers: %v allocs, want 0", n)
	}
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
