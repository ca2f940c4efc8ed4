package gid

import (
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
				if !assert.Equal(t, ids[i], Current(), "goroutine %d: Current changed", i) {
					return
				}
				runtime.Gosched()
			}
		}()
	}
	done.Wait()
	seen := map[uintptr]bool{}
	for _, id := range ids {
		require.NotZero(t, id, "identifiers %x", ids)
		require.False(t, seen[id], "identifiers %x: one shared by two live goroutines", ids)
		seen[id] = true
	}
	assert.NotEqual(t, ids[0], Current(), "the test goroutine has the identifier of another live goroutine")
}

func BenchmarkCurrent(b *testing.B) {
	var s uintptr
	for b.Loop() {
		s += Current()
	}
	_ = s
}
