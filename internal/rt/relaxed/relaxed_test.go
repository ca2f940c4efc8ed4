package relaxed

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// Store64 stores the whole word, and a reader loading concurrently sees
// one of the values stored, never a mix of two.
func TestStore64(t *testing.T) {
	var w struct{ x uint64 }
	Store64(&w.x, 0x0123_4567_89ab_cdef)
	require.Equal(t, uint64(0x0123_4567_89ab_cdef), atomic.LoadUint64(&w.x))
	const a, b = 0xFFFF_FFFF_0000_0000, 0x0000_0000_FFFF_FFFF
	var wg sync.WaitGroup
	var stop atomic.Bool
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			if i%2 == 0 {
				Store64(&w.x, a)
			} else {
				Store64(&w.x, b)
			}
		}
	}()
	for range 100000 {
		v := atomic.LoadUint64(&w.x)
		if v != a && v != b && v != 0x0123_4567_89ab_cdef {
			stop.Store(true)
			wg.Wait()
			t.Fatalf("torn value %#x", v)
		}
	}
	stop.Store(true)
	wg.Wait()
}

func BenchmarkStore64(b *testing.B) {
	var x uint64
	for i := 0; b.Loop(); i++ {
		Store64(&x, uint64(i))
	}
}

func BenchmarkAtomicStore(b *testing.B) {
	var x atomic.Uint64
	for i := 0; b.Loop(); i++ {
		x.Store(uint64(i))
	}
}
