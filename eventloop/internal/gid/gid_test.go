package gid

import (
	"runtime"
	"sync"
	"testing"
)

// TestCurrent: a goroutine sees the same value every time, and goroutines
// alive at the same time see different values.
func TestCurrent(t *testing.T) {
	const n = 64
	ids := make([]uintptr, n)
	var start, done sync.WaitGroup
	start.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			ids[i] = Current()
			start.Done()
			start.Wait() // all alive at once
			for range 1000 {
				if Current() != ids[i] {
					t.Errorf("goroutine %d: Current changed", i)
					return
				}
				runtime.Gosched()
			}
		}()
	}
	done.Wait()
	seen := map[uintptr]bool{}
	for _, id := range ids {
		if id == 0 || seen[id] {
			t.Fatalf("identifiers %x: zero or shared by two live goroutines", ids)
		}
		seen[id] = true
	}
	if Current() == ids[0] {
		t.Error("the test goroutine has the identifier of another live goroutine")
	}
}

func BenchmarkCurrent(b *testing.B) {
	var s uintptr
	for b.Loop() {
		s += Current()
	}
	_ = s
}
