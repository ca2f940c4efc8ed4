package buf_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/internal/corpus"
)

// The composite benchmarks follow Netty's CompositeByteBufRandomAccess and
// CompositeByteBufSequential benchmarks: the same bytes held by a Composite
// of small (1–9 bytes) or large (480–544 bytes) components and by one
// plain []byte (impl=flat, the reference, read with encoding/binary).

var (
	cbSinkU64 uint64
	cbSinkInt int
)

// cbAlloc is the allocator of the composite benchmarks: pooled, without
// leak sampling, as in bench_test.go.
var cbAlloc = buf.NewAllocator(buf.WithLeakLevel(buf.LeakOff))

var cbSizes = []struct {
	name string
	n    int
}{{"64B", 64}, {"10KiB", 10 << 10}, {"1MiB", 1 << 20}}

var cbComps = []struct {
	name   string
	lo, hi int // component sizes are uniform in [lo, hi]
}{{"small", 1, 9}, {"large", 480, 544}}

// cbBuild returns total random bytes twice: in a composite of pooled
// components whose sizes are drawn uniformly from [lo, hi] (the last one
// cut to fit), and flat.
func cbBuild(rng *rand.Rand, total, lo, hi int) (*buf.Composite, []byte) {
	flat := make([]byte, total)
	for i := range flat {
		flat[i] = byte(rng.Uint32())
	}
	c := buf.NewComposite(buf.WithAllocator(cbAlloc))
	for off := 0; off < total; {
		n := min(lo+rng.IntN(hi-lo+1), total-off)
		x := cbAlloc.Get(n)
		x.Write(flat[off : off+n])
		c.Append(x)
		off += n
	}
	return c, flat
}

// BenchmarkCompositeRandomAccess reads (op=get: GetUint64) or writes
// (op=put: PutUint64) a uint64 at random offsets, aligned or not, anywhere
// in the readable bytes; the 4096 offsets are drawn before the timer
// starts and taken in turn. One op is one access: SetBytes(8).
func BenchmarkCompositeRandomAccess(b *testing.B) {
	for _, size := range cbSizes {
		for _, comp := range cbComps {
			// The inputs are built inside the size/comp sub-benchmark, so
			// that -bench selecting other sizes does not pay for them.
			b.Run(fmt.Sprintf("size=%s/comp=%s", size.name, comp.name), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(uint64(size.n), uint64(comp.lo)))
				c, flat := cbBuild(rng, size.n, comp.lo, comp.hi)
				defer c.Release()
				offs := make([]int, nOffs)
				for i := range offs {
					offs[i] = rng.IntN(size.n - 7)
				}
				cbRandomAccess(b, c, flat, offs)
			})
		}
	}
}

// nOffs is the number of offsets BenchmarkCompositeRandomAccess takes in
// turn.
const nOffs = 1 << 12

// cbRandomAccess runs the sub-benchmarks of BenchmarkCompositeRandomAccess
// on c and flat, which hold the same bytes.
func cbRandomAccess(b *testing.B, c *buf.Composite, flat []byte, offs []int) {
	b.Run("op=get/impl=composite", func(b *testing.B) {
		b.SetBytes(8)
		b.ReportAllocs()
		var sum uint64
		i := 0
		for b.Loop() {
			sum += c.GetUint64(offs[i&(nOffs-1)])
			i++
		}
		cbSinkU64 = sum
	})
	b.Run("op=get/impl=flat", func(b *testing.B) {
		b.SetBytes(8)
		b.ReportAllocs()
		var sum uint64
		i := 0
		for b.Loop() {
			sum += binary.BigEndian.Uint64(flat[offs[i&(nOffs-1)]:])
			i++
		}
		cbSinkU64 = sum
	})
	b.Run("op=put/impl=composite", func(b *testing.B) {
		b.SetBytes(8)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			c.PutUint64(offs[i&(nOffs-1)], uint64(i))
			i++
		}
		cbSinkU64 = c.GetUint64(offs[0])
	})
	b.Run("op=put/impl=flat", func(b *testing.B) {
		b.SetBytes(8)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			binary.BigEndian.PutUint64(flat[offs[i&(nOffs-1)]:], uint64(i))
			i++
		}
		cbSinkU64 = binary.BigEndian.Uint64(flat[offs[0]:])
	})
}

// BenchmarkCompositeSequential reads all the bytes as big-endian uint64s,
// front to back; one op is one pass: SetBytes(size).
//
// A Composite has no way to rewind its reader, so op=read takes, per pass,
// a Slice view of the whole composite, reads it with ReadUint64 and
// releases it: the pass includes the Slice, which allocates the view's
// arrays and retains and releases every component (op=slice measures that
// part alone). op=get is the same pass with GetUint64 at offsets 0, 8, 16,
// …, which consumes nothing and needs no view. impl=flat is the same loop
// over a []byte with binary.BigEndian.Uint64, for both ops.
func BenchmarkCompositeSequential(b *testing.B) {
	for _, size := range cbSizes {
		for _, comp := range cbComps {
			b.Run(fmt.Sprintf("size=%s/comp=%s", size.name, comp.name), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(uint64(size.n), uint64(comp.hi)))
				c, flat := cbBuild(rng, size.n, comp.lo, comp.hi)
				defer c.Release()
				cbSequential(b, c, flat, size.n&^7)
			})
		}
	}
}

// cbSequential runs the sub-benchmarks of BenchmarkCompositeSequential on
// the first n bytes of c and flat, which hold the same bytes.
func cbSequential(b *testing.B, c *buf.Composite, flat []byte, n int) {
	flatPass := func(b *testing.B) {
		b.SetBytes(int64(n))
		b.ReportAllocs()
		var sum uint64
		for b.Loop() {
			for off := 0; off < n; off += 8 {
				sum += binary.BigEndian.Uint64(flat[off:])
			}
		}
		cbSinkU64 = sum
	}
	b.Run("op=read/impl=composite", func(b *testing.B) {
		b.SetBytes(int64(n))
		b.ReportAllocs()
		var sum uint64
		for b.Loop() {
			s := c.RetainedSlice(0, n)
			for range n / 8 {
				v, err := s.ReadUint64()
				if err != nil { // a plain if: require's b.Helper() would be timed
					b.Fatal(err)
				}
				sum += v
			}
			s.Release()
		}
		cbSinkU64 = sum
	})
	b.Run("op=read/impl=flat", flatPass)
	b.Run("op=get/impl=composite", func(b *testing.B) {
		b.SetBytes(int64(n))
		b.ReportAllocs()
		var sum uint64
		for b.Loop() {
			for off := 0; off < n; off += 8 {
				sum += c.GetUint64(off)
			}
		}
		cbSinkU64 = sum
	})
	b.Run("op=get/impl=flat", flatPass)
	b.Run("op=slice/impl=composite", func(b *testing.B) {
		b.SetBytes(int64(n))
		b.ReportAllocs()
		for b.Loop() {
			s := c.RetainedSlice(0, n)
			cbSinkInt = s.Len()
			s.Release()
		}
	})
}

// BenchmarkCompositeIndex searches 1 MiB of Go source (internal/corpus;
// random English-frequency letters when GOROOT is unreadable) for an
// absent needle, so every byte is scanned. impl=composite is
// Composite.Index over 8 components of 128 KiB; impl=bytes is bytes.Index
// on the bytes in one slice, the reference. Package bufsearch measures
// the search.Pattern equivalent.
func BenchmarkCompositeIndex(b *testing.B) {
	rng := rand.New(rand.NewPCG(8, 8))
	text, err := corpus.GoSource()
	if err != nil {
		b.Logf("using letters: %v", err)
		text = corpus.EnglishLetters(rng, corpus.TextSize)
	}
	const parts = 8
	c := buf.NewComposite(buf.WithAllocator(cbAlloc))
	defer c.Release()
	part := len(text) / parts
	for k := range parts {
		x := cbAlloc.Get(part)
		x.Write(text[k*part : (k+1)*part])
		c.Append(x)
	}
	flat := text[:parts*part]
	for _, m := range []int{8, 16, 64} {
		needle := corpus.AbsentNeedle(rng, flat, m)
		impls := []struct {
			name  string
			index func() int
		}{
			{"composite", func() int { return c.Index(needle) }},
			{"bytes", func() int { return bytes.Index(flat, needle) }},
		}
		for _, impl := range impls {
			b.Run(fmt.Sprintf("needle=%d/impl=%s", m, impl.name), func(b *testing.B) {
				b.SetBytes(int64(len(flat)))
				b.ReportAllocs()
				for b.Loop() {
					cbSinkInt = impl.index()
				}
				require.Equal(b, -1, cbSinkInt, "absent needle %q found at %d", needle, cbSinkInt)
			})
		}
	}
}

// BenchmarkCompositeWritev sends a 64 KiB message made of 16 parts of
// 4 KiB over loopback TCP to a reader that discards it. Each op makes the
// parts the same way in both impls: 16 pooled buffers got and filled from
// the same source. impl=writev appends them to a Composite (kept from op
// to op, as a connection would keep one) and WriteTo's the connection:
// writev from the parts' memory, each released once written. impl=copy is
// what a user without Composite does with parts that already exist as
// buffers: get one 64 KiB pooled buffer, copy the parts into it, release
// them, Write it and release it. SetBytes(64 KiB).
func BenchmarkCompositeWritev(b *testing.B) {
	const nParts, partSize = 16, 4 << 10
	src := make([]byte, nParts*partSize)
	rng := rand.New(rand.NewPCG(16, 4))
	for i := range src {
		src[i] = byte(rng.Uint32())
	}
	makeParts := func(parts *[nParts]*buf.Buffer) {
		for k := range parts {
			x := cbAlloc.Get(partSize)
			x.Write(src[k*partSize : (k+1)*partSize])
			parts[k] = x
		}
	}
	impls := []struct {
		name string
		send func(b *testing.B, w io.Writer, c *buf.Composite, parts *[nParts]*buf.Buffer)
	}{
		{"writev", func(b *testing.B, w io.Writer, c *buf.Composite, parts *[nParts]*buf.Buffer) {
			for _, x := range parts {
				c.Append(x)
			}
			if _, err := c.WriteTo(w); err != nil { // a plain if: timed
				b.Fatal(err)
			}
		}},
		{"copy", func(b *testing.B, w io.Writer, _ *buf.Composite, parts *[nParts]*buf.Buffer) {
			msg := cbAlloc.Get(nParts * partSize)
			for _, x := range parts {
				msg.Write(x.Bytes())
				x.Release()
			}
			if _, err := w.Write(msg.Bytes()); err != nil { // a plain if: timed
				b.Fatal(err)
			}
			msg.Release()
		}},
	}
	for _, impl := range impls {
		b.Run("impl="+impl.name, func(b *testing.B) {
			client, server := cwTCP(b)
			received := make(chan int64, 1)
			go func() {
				var total int64
				p := make([]byte, 256<<10)
				for {
					n, err := server.Read(p)
					total += int64(n)
					if err != nil {
						received <- total
						return
					}
				}
			}()
			c := buf.NewComposite()
			defer c.Release()
			var parts [nParts]*buf.Buffer
			b.SetBytes(nParts * partSize)
			b.ReportAllocs()
			ops := int64(0)
			for b.Loop() {
				makeParts(&parts)
				impl.send(b, client, c, &parts)
				ops++
			}
			b.StopTimer()
			client.CloseWrite()
			got, want := <-received, ops*nParts*partSize
			require.Equal(b, want, got, "received %d bytes, want %d", got, want)
		})
	}
}
