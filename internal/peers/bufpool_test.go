package peers

import (
	"math/bits"
	"strconv"
	"sync"
	"testing"

	"github.com/bytedance/gopkg/lang/mcache"
	pool "github.com/libp2p/go-buffer-pool"
	"github.com/valyala/bytebufferpool"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/internal/benchcpu"
)

// sizes are the requested buffer sizes: a header, a small message, a page,
// and the largest size netkit pools by default (buf.DefaultMaxSize).
var sizes = []int{64, 1024, 4096, 65536}

// An impl is one buffer pool under comparison. newOp does the setup for one
// size, outside the timer, and returns the measured operation: get a buffer
// of at least size bytes, write one byte into it (so the get cannot be
// optimised away), and give it back. The operation must be safe for
// concurrent use, for the parallel benchmark.
type impl struct {
	name  string
	newOp func(size int) func()
}

var impls = []impl{
	{"netkit", newNetkit},
	{"netkit-leakoff", newNetkitLeakOff},
	{"syncpool-bare", newSyncPoolBare},
	{"syncpool-class", newSyncPoolClass},
	{"bytebufferpool", newByteBufferPool},
	{"gobufferpool", newGoBufferPool},
	{"mcache", newMcache},
}

// newNetkit is the headline: buf.Get, that is buf.Default at the default
// leak level (LeakSampled unless NETKIT_LEAK says otherwise), what users
// get.
func newNetkit(size int) func() {
	return func() {
		b := buf.Get(size)
		b.WriteByte(1)
		b.Release()
	}
}

// leakOffAlloc is the allocator of the netkit-leakoff impl, made once for
// all sizes, with leak sampling off: the pool's own cost.
var leakOffAlloc = buf.NewAllocator(buf.WithLeakLevel(buf.LeakOff))

func newNetkitLeakOff(size int) func() {
	return func() {
		b := leakOffAlloc.Get(size)
		b.WriteByte(1)
		b.Release()
	}
}

// newSyncPoolBare is the barest reference: one sync.Pool of *[]byte for the
// size, with no class lookup.
func newSyncPoolBare(size int) func() {
	p := &sync.Pool{New: func() any {
		s := make([]byte, size)
		return &s
	}}
	return func() {
		s := p.Get().(*[]byte)
		(*s)[0] = 1
		p.Put(s)
	}
}

// classPools is the per-class reference: a sync.Pool of *[]byte per power
// of two, looked up from the requested size on get and the capacity on put.
var classPools [17]sync.Pool

func newSyncPoolClass(size int) func() {
	return func() {
		c := bits.Len(uint(size - 1))
		s, _ := classPools[c].Get().(*[]byte)
		if s == nil {
			p := make([]byte, 1<<c)
			s = &p
		}
		(*s)[0] = 1
		classPools[bits.Len(uint(cap(*s)-1))].Put(s)
	}
}

// newByteBufferPool uses a bytebufferpool.Pool of its own per size (the
// package-level Get and Put are the same code on one shared Pool), so that
// one size's calibration does not carry over into the next.
//
// bytebufferpool is size-agnostic: a buffer too small for the request is
// grown once, which happens only while the pool warms up. Put calibrates on
// len(bb.B) and, once calibrated, drops buffers whose capacity exceeds the
// sizes it has seen; a buffer holding one byte would teach it that 64 bytes
// suffice and every larger buffer would then be dropped and allocated anew.
// So the buffer is extended to the requested size before Put, as the buffer
// of a caller that used size bytes would be.
func newByteBufferPool(size int) func() {
	p := new(bytebufferpool.Pool)
	return func() {
		bb := p.Get()
		if cap(bb.B) < size {
			bb.B = make([]byte, 0, size)
		}
		bb.WriteByte(1)
		bb.B = bb.B[:size]
		p.Put(bb)
	}
}

// newGoBufferPool uses libp2p's global pool (one sync.Pool per power of two).
func newGoBufferPool(size int) func() {
	return func() {
		p := pool.Get(size)
		p[0] = 1
		pool.Put(p)
	}
}

// newMcache uses bytedance's global mcache (one sync.Pool per power of two).
func newMcache(size int) func() {
	return func() {
		p := mcache.Malloc(size)
		p[0] = 1
		mcache.Free(p)
	}
}

// forEachCase runs measure as a sub-benchmark size=…/impl=… for every size
// and impl, with the impl's operation set up outside the timer.
func forEachCase(b *testing.B, measure func(b *testing.B, op func())) {
	for _, size := range sizes {
		b.Run("size="+strconv.Itoa(size), func(b *testing.B) {
			for _, im := range impls {
				b.Run("impl="+im.name, func(b *testing.B) {
					op := im.newOp(size)
					b.ReportAllocs()
					defer benchcpu.Report(b)()
					measure(b, op)
				})
			}
		})
	}
}

// BenchmarkGetRelease measures one get, one-byte write and release on one
// goroutine, for every size and impl.
func BenchmarkGetRelease(b *testing.B) {
	forEachCase(b, func(b *testing.B, op func()) {
		for b.Loop() {
			op()
		}
	})
}

// BenchmarkGetReleaseParallel is BenchmarkGetRelease on GOMAXPROCS
// goroutines sharing each pool.
func BenchmarkGetReleaseParallel(b *testing.B) {
	forEachCase(b, func(b *testing.B, op func()) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				op()
			}
		})
	})
}
