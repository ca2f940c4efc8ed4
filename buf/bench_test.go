package buf_test

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"runtime"
	"sync"
	"testing"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/internal/benchcpu"
)

var (
	sinkU64  uint64
	sinkBool bool
)

var benchSizes = []int{64, 1024, 4096, 65536}

// refPools is the per-class reference (impl=syncpool-class): a sync.Pool of
// *[]byte per power-of-two size class, the usual hand-rolled Go buffer pool.
var refPools [17]sync.Pool

func refGet(n int) *[]byte {
	c := bits.Len(uint(n - 1))
	if p, _ := refPools[c].Get().(*[]byte); p != nil {
		return p
	}
	p := make([]byte, 1<<c)
	return &p
}

func refPut(p *[]byte) { refPools[bits.Len(uint(cap(*p)-1))].Put(p) }

// newBarePool is the barest reference (impl=syncpool-bare): one sync.Pool
// of *[]byte of a single size, with no class lookup, the reference a pool's
// headline number is held against.
func newBarePool(size int) *sync.Pool {
	return &sync.Pool{New: func() any {
		p := make([]byte, size)
		return &p
	}}
}

// leakOff is the allocator of impl=netkit-leakoff: the pool's cost without
// the default leak sampling.
var leakOff = buf.NewAllocator(buf.WithLeakLevel(buf.LeakOff))

// A getReleaseImpl is one pool under comparison. newOp does the setup for
// one size outside the timer and returns the measured operation: get a
// buffer of at least size bytes, write one byte into it, give it back. The
// operation writes no shared variable (a sink written by every iteration
// is a cache line that the cores of the parallel benchmark fight over) and
// is safe for concurrent use.
type getReleaseImpl struct {
	name  string
	newOp func(size int) func()
}

// getReleaseImpls lists the headline first: buf.Get, which is buf.Default
// at the default leak level (LeakSampled unless NETKIT_LEAK says
// otherwise), what users get.
var getReleaseImpls = []getReleaseImpl{
	{"netkit", func(size int) func() {
		return func() {
			b := buf.Get(size)
			b.WriteByte(1)
			b.Release()
		}
	}},
	{"netkit-leakoff", func(size int) func() {
		return func() {
			b := leakOff.Get(size)
			b.WriteByte(1)
			b.Release()
		}
	}},
	{"syncpool-bare", func(size int) func() {
		pool := newBarePool(size)
		return func() {
			p := pool.Get().(*[]byte)
			(*p)[0] = 1
			pool.Put(p)
		}
	}},
	{"syncpool-class", func(size int) func() {
		return func() {
			p := refGet(size)
			(*p)[0] = 1
			refPut(p)
		}
	}},
	{"make", func(size int) func() {
		return func() {
			p := make([]byte, size)
			p[0] = 1
			runtime.KeepAlive(p)
		}
	}},
}

// forEachGetRelease runs measure as a sub-benchmark size=…/impl=… for every
// benchmark size and get-release implementation.
func forEachGetRelease(b *testing.B, measure func(b *testing.B, op func())) {
	for _, size := range benchSizes {
		for _, impl := range getReleaseImpls {
			b.Run(fmt.Sprintf("size=%d/impl=%s", size, impl.name), func(b *testing.B) {
				op := impl.newOp(size)
				b.ReportAllocs()
				defer benchcpu.Report(b)()
				measure(b, op)
			})
		}
	}
}

func BenchmarkGetRelease(b *testing.B) {
	forEachGetRelease(b, func(b *testing.B, op func()) {
		for b.Loop() {
			op()
		}
	})
}

func BenchmarkGetReleaseParallel(b *testing.B) {
	forEachGetRelease(b, func(b *testing.B, op func()) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				op()
			}
		})
	})
}

// BenchmarkGetWriteRelease is the plain loop a user writes, each body
// written out in the loop with no closure between the benchmark and the
// pool: Get(4096), WriteByte, Release, against a bare sync.Pool of *[]byte
// with the same body (get, append one byte, put), serially (par=1) and
// under RunParallel (par=P).
func BenchmarkGetWriteRelease(b *testing.B) {
	const size = 4096
	b.Run("par=1/impl=netkit", func(b *testing.B) {
		b.ReportAllocs()
		defer benchcpu.Report(b)()
		for b.Loop() {
			x := buf.Get(size)
			x.WriteByte(1)
			x.Release()
		}
	})
	b.Run("par=1/impl=netkit-leakoff", func(b *testing.B) {
		b.ReportAllocs()
		defer benchcpu.Report(b)()
		for b.Loop() {
			x := leakOff.Get(size)
			x.WriteByte(1)
			x.Release()
		}
	})
	b.Run("par=1/impl=syncpool-bare", func(b *testing.B) {
		pool := newBarePool(size)
		b.ReportAllocs()
		defer benchcpu.Report(b)()
		for b.Loop() {
			p := pool.Get().(*[]byte)
			*p = append((*p)[:0], 1)
			pool.Put(p)
		}
	})
	b.Run("par=P/impl=netkit", func(b *testing.B) {
		b.ReportAllocs()
		defer benchcpu.Report(b)()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				x := buf.Get(size)
				x.WriteByte(1)
				x.Release()
			}
		})
	})
	b.Run("par=P/impl=netkit-leakoff", func(b *testing.B) {
		b.ReportAllocs()
		defer benchcpu.Report(b)()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				x := leakOff.Get(size)
				x.WriteByte(1)
				x.Release()
			}
		})
	})
	b.Run("par=P/impl=syncpool-bare", func(b *testing.B) {
		pool := newBarePool(size)
		b.ReportAllocs()
		defer benchcpu.Report(b)()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				p := pool.Get().(*[]byte)
				*p = append((*p)[:0], 1)
				pool.Put(p)
			}
		})
	})
}

func BenchmarkRetainRelease(b *testing.B) {
	a := buf.NewAllocator(buf.WithLeakLevel(buf.LeakOff))
	b.Run("contended=false", func(b *testing.B) {
		x := a.Get(64)
		defer x.Release()
		b.ReportAllocs()
		for b.Loop() {
			sinkBool = x.Retain().Release()
		}
	})
	b.Run("contended=true", func(b *testing.B) {
		x := a.Get(64)
		defer x.Release()
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				x.Retain().Release() // no shared sink: x is the contended line
			}
		})
	})
}

// BenchmarkReadUint64 reads a 4 KiB buffer of big-endian uint64s over and
// over, against binary.BigEndian.Uint64 on a plain slice.
func BenchmarkReadUint64(b *testing.B) {
	const size = 4096
	b.Run("impl=netkit", func(b *testing.B) {
		x := buf.NewAllocator(buf.WithLeakLevel(buf.LeakOff)).Get(size)
		defer x.Release()
		for i := range size / 8 {
			x.WriteUint64(uint64(i))
		}
		b.SetBytes(8)
		b.ReportAllocs()
		var sum uint64
		for b.Loop() {
			v, err := x.ReadUint64()
			if err != nil {
				x.SetReaderIndex(0)
				v, _ = x.ReadUint64()
			}
			sum += v
		}
		sinkU64 = sum
	})
	b.Run("impl=binary", func(b *testing.B) {
		p := make([]byte, size)
		for i := range size / 8 {
			binary.BigEndian.PutUint64(p[8*i:], uint64(i))
		}
		b.SetBytes(8)
		b.ReportAllocs()
		var sum uint64
		off := 0
		for b.Loop() {
			if off == len(p) {
				off = 0
			}
			sum += binary.BigEndian.Uint64(p[off:])
			off += 8
		}
		sinkU64 = sum
	})
}

// BenchmarkWriteUint64 fills a 4 KiB buffer with big-endian uint64s over and
// over, against binary.BigEndian.PutUint64 on a plain slice.
func BenchmarkWriteUint64(b *testing.B) {
	const size = 4096
	b.Run("impl=netkit", func(b *testing.B) {
		x := buf.NewAllocator(buf.WithLeakLevel(buf.LeakOff)).Get(size)
		defer x.Release()
		b.SetBytes(8)
		b.ReportAllocs()
		v := uint64(0)
		for b.Loop() {
			if x.Len() == size {
				x.Reset()
			}
			x.WriteUint64(v)
			v++
		}
		sinkU64 = x.GetUint64(0)
	})
	b.Run("impl=binary", func(b *testing.B) {
		p := make([]byte, size)
		b.SetBytes(8)
		b.ReportAllocs()
		v, off := uint64(0), 0
		for b.Loop() {
			if off == len(p) {
				off = 0
			}
			binary.BigEndian.PutUint64(p[off:], v)
			off += 8
			v++
		}
		sinkU64 = binary.BigEndian.Uint64(p)
	})
}
