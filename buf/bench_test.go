package buf_test

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"sync"
	"testing"

	"github.com/netkit/netkit/buf"
)

var (
	sinkBytes []byte
	sinkU64   uint64
	sinkBool  bool
)

var benchSizes = []int{64, 1024, 4096, 65536}

// refPools is the reference the allocator is measured against: a bare
// sync.Pool of *[]byte per power-of-two size class, the usual hand-rolled
// Go buffer pool.
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

// getReleaseImpls does one get, one byte written, one release, per impl.
func getReleaseImpls() []struct {
	name string
	op   func(size int)
} {
	off := buf.NewAllocator(buf.WithLeakLevel(buf.LeakOff))
	sampled := buf.NewAllocator(buf.WithLeakLevel(buf.LeakSampled))
	return []struct {
		name string
		op   func(size int)
	}{
		{"netkit", func(size int) {
			b := off.Get(size)
			b.WriteByte(1)
			sinkBool = b.Release()
		}},
		{"netkit-sampled", func(size int) {
			b := sampled.Get(size)
			b.WriteByte(1)
			sinkBool = b.Release()
		}},
		{"syncpool", func(size int) {
			p := refGet(size)
			(*p)[0] = 1
			refPut(p)
		}},
		{"make", func(size int) {
			p := make([]byte, size)
			p[0] = 1
			sinkBytes = p
		}},
	}
}

// forEachGetRelease runs measure as a sub-benchmark size=…/impl=… for every
// benchmark size and get-release implementation.
func forEachGetRelease(b *testing.B, measure func(b *testing.B, op func(int), size int)) {
	for _, size := range benchSizes {
		for _, impl := range getReleaseImpls() {
			b.Run(fmt.Sprintf("size=%d/impl=%s", size, impl.name), func(b *testing.B) {
				b.ReportAllocs()
				measure(b, impl.op, size)
			})
		}
	}
}

func BenchmarkGetRelease(b *testing.B) {
	forEachGetRelease(b, func(b *testing.B, op func(int), size int) {
		for b.Loop() {
			op(size)
		}
	})
}

func BenchmarkGetReleaseParallel(b *testing.B) {
	forEachGetRelease(b, func(b *testing.B, op func(int), size int) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				op(size)
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
				sinkBool = x.Retain().Release()
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
