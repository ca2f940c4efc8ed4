package buf

import (
	"math/bits"

	"github.com/netkit/netkit/internal/invariants"

	"github.com/netkit/netkit/internal/rt/endian"
)

// The reads mirror Buffer's: the same names, errors and panics. Each has a
// fast path for bytes that lie within the reader's component (rp) and a
// slow path that crosses seams.

// advance moves the reader into the next component when its own is read to
// the end. It reports whether bytes are readable.
func (c *Composite) advance() bool {
	for len(c.rp) == 0 {
		if c.cur+1 >= len(c.comps) {
			return false
		}
		c.cur++
		c.rp = c.comps[c.cur].p
	}
	return true
}

// read consumes len(dst) bytes into dst, which must not exceed Len.
func (c *Composite) read(dst []byte) {
	c.r += len(dst)
	for {
		n := copy(dst, c.rp)
		c.rp = c.rp[n:]
		dst = dst[n:]
		if len(dst) == 0 {
			return
		}
		c.cur++
		c.rp = c.comps[c.cur].p
	}
}

// Read implements io.Reader: it consumes up to len(p) readable bytes into
// p, across components. It returns io.EOF when c is empty and len(p) > 0.
func (c *Composite) Read(p []byte) (int, error) {
	c.check()
	n := min(len(p), c.w-c.r)
	if n == 0 && len(p) > 0 {
		return 0, c.short()
	}
	c.read(p[:n])
	return n, nil
}

// ReadByte implements io.ByteReader.
func (c *Composite) ReadByte() (byte, error) {
	c.check()
	if len(c.rp) == 0 && !c.advance() {
		return 0, c.short()
	}
	v := c.rp[0]
	c.rp = c.rp[1:]
	c.r++
	return v, nil
}

// Next consumes the next n readable bytes and returns them. When they lie in
// one component the slice aliases its memory; when they straddle
// components they are copied into a scratch area of the composite, reused
// by the next Next that straddles. Either way the slice is valid until the
// next read, Discard or Release. With fewer than n readable bytes Next
// consumes nothing and returns io.EOF (c is empty) or io.ErrUnexpectedEOF.
// It panics if n is negative. It allocates only to grow the scratch area.
func (c *Composite) Next(n int) ([]byte, error) {
	c.check()
	if n < 0 {
		panic("buf: Composite.Next with negative count")
	}
	if n > c.w-c.r {
		return nil, c.short()
	}
	if n > 0 && len(c.rp) == 0 {
		c.advance()
	}
	if n <= len(c.rp) {
		p := c.rp[:n:n]
		c.rp = c.rp[n:]
		c.r += n
		return p, nil
	}
	if cap(c.scratch) < n {
		c.scratch = make([]byte, n)
	}
	p := c.scratch[:n:n]
	c.read(p)
	return p, nil
}

// Span returns the contiguous readable bytes that start at readable offset
// off: from there to the end of the component holding it, without
// consuming anything. It returns nil when off equals Len and panics when
// off is negative or past Len. Scanning a composite span by span visits
// each component in place, with no copy at the seams, and can resume at any
// offset: that is how a decoder searches only the bytes that arrived since
// its last call. The slice aliases component memory (its capacity is its
// length) and is valid until the next Discard or Release. It costs O(1)
// within the reader's component, else what GetUint32 costs.
func (c *Composite) Span(off int) []byte {
	c.check()
	if off < 0 || off > c.w-c.r {
		panic("buf: Composite.Span(" + itoa(off) + ") outside the " + itoa(c.w-c.r) + " readable bytes")
	}
	if off < len(c.rp) {
		return c.rp[off:len(c.rp):len(c.rp)]
	}
	if off == c.w-c.r {
		return nil
	}
	pos := c.r + off
	j := c.find(pos)
	p := c.comps[j].p
	return p[pos-c.start(j) : len(p) : len(p)]
}

// NextRetained consumes the next n readable bytes and returns them as a
// buffer the caller owns and must Release, which stays valid after the
// composite discards or releases them. When the bytes lie in one component
// the result is a view of that component's memory holding a reference to
// its buffer: nothing is copied, and the buffer's memory is not recycled
// until the view is released too. When they straddle components they are
// copied into a buffer from the composite's allocator (WithAllocator). An
// n of 0 gives an empty buffer. With fewer than n readable bytes it consumes
// nothing and returns Next's errors; it panics if n is negative.
//
// It allocates nothing in steady state: view headers are pooled by the
// allocator as buffers are (Netty's pooled retained slices). Views are
// tracked for leaks with stacks only at LeakAll and in the invariants
// build (a decoder makes thousands per read); a leaked view is counted in
// Stats.Leaks at every level. A view has a
// reference count of its own (Retain and Release on it count apart from
// the component's buffer) and cannot grow: writes past its bytes fail with
// ErrFixed. This is how a frame decoder hands out frames without copying
// them: the caller may keep each frame as long as it likes, and the
// composite may Discard behind it.
func (c *Composite) NextRetained(n int) (*Buffer, error) {
	c.check()
	if n < 0 {
		panic("buf: Composite.NextRetained with negative count")
	}
	if n > c.w-c.r {
		return nil, c.short()
	}
	if len(c.rp) == 0 {
		c.advance()
	}
	if n <= len(c.rp) && c.cur < len(c.comps) {
		// An empty result is a view too when there is a component to
		// view: cheaper than a get, and never sampled for leak tracking.
		v := c.alloc.derive(c.comps[c.cur].b, c.rp[:n])
		c.rp = c.rp[n:]
		c.r += n
		return v, nil
	}
	b := c.alloc.Get(n)
	p := b.b[b.w : b.w+n]
	c.read(p)
	b.w += n
	return b, nil
}

// RetainedAt returns the n readable bytes at readable offset off as a
// buffer the caller owns and must Release, as NextRetained does, but
// without consuming anything: a view holding a reference to the component's
// buffer when the bytes lie in one component, else a copy from the
// composite's allocator. A frame decoder that lends frames in place uses it
// to hand one out for keeping. It panics when off or n is negative or the
// bytes run past Len.
func (c *Composite) RetainedAt(off, n int) *Buffer {
	c.check()
	if off < 0 || n < 0 || n > c.w-c.r-off {
		panic("buf: Composite.RetainedAt(" + itoa(off) + ", " + itoa(n) + ") outside the " + itoa(c.w-c.r) + " readable bytes")
	}
	if off < len(c.rp) && n <= len(c.rp)-off {
		return c.alloc.derive(c.comps[c.cur].b, c.rp[off:off+n])
	}
	if pos := c.r + off; n > 0 || pos < c.w {
		j := c.find(pos)
		if lo := pos - c.start(j); n <= len(c.comps[j].p)-lo {
			return c.alloc.derive(c.comps[j].b, c.comps[j].p[lo:lo+n])
		}
	}
	b := c.alloc.Get(n)
	c.peek(b.b[b.w:b.w+n], c.r+off)
	b.w += n
	return b
}

// Skip consumes n readable bytes, with Next's errors, without releasing
// anything (see Discard). It panics if n is negative.
func (c *Composite) Skip(n int) error {
	c.check()
	if n < 0 {
		panic("buf: Composite.Skip with negative count")
	}
	if n > c.w-c.r {
		return c.short()
	}
	if n <= len(c.rp) {
		c.rp = c.rp[n:]
		c.r += n
		return nil
	}
	c.r += n
	c.seek()
	return nil
}

// ReaderIndex returns the reader's stream offset: the number of bytes
// appended before the next byte to read, counted from when c was made or
// last held nothing. A parser saves it before reading a message and
// restores it with SetReaderIndex to back out when the message is
// incomplete; since reads release nothing, every byte from the saved index
// on is still there. Discard, Consolidate, Insert, WriteTo and Release may
// invalidate saved indexes (Discard and WriteTo release the bytes before
// the reader and restart at 0 once nothing is held). It costs O(1).
func (c *Composite) ReaderIndex() int {
	c.check()
	return c.r
}

// SetReaderIndex moves the reader to stream offset i, as returned by
// ReaderIndex, without releasing anything. i must lie between the first
// byte c still holds (ReaderIndex minus the bytes read since the last
// Discard) and the end of the appended bytes (ReaderIndex plus Len);
// SetReaderIndex panics otherwise, for example for an index saved before a
// Discard released its bytes. Slices returned by Next stay valid. It
// allocates nothing and costs O(1) within the reader's component, else
// O(log n) for n held components.
func (c *Composite) SetReaderIndex(i int) {
	c.check()
	lo := c.w
	if c.h < len(c.comps) {
		lo = c.start(c.h)
	}
	if i < lo || i > c.w {
		c.badReaderIndex(i, lo)
	}
	switch {
	case i == c.r:
		return
	case i > c.r && i-c.r <= len(c.rp):
		c.rp = c.rp[i-c.r:]
		c.r = i
	default:
		c.r = i
		c.seek()
	}
	if invariants.Enabled {
		c.verify()
	}
}

func (c *Composite) badReaderIndex(i, lo int) {
	panic("buf: Composite.SetReaderIndex(" + itoa(i) + ") outside the bytes held, [" + itoa(lo) + ", " + itoa(c.w) + "]")
}

// readSlow consumes len(dst) bytes into dst for a fixed-width read whose
// bytes are not all in the reader's component.
func (c *Composite) readSlow(dst []byte) error {
	if len(dst) > c.w-c.r {
		return c.short()
	}
	c.read(dst)
	return nil
}

// ReadUint16 consumes a big-endian uint16, with Next's errors.
func (c *Composite) ReadUint16() (uint16, error) {
	c.check()
	if len(c.rp) >= 2 {
		v := endian.Uint16(c.rp)
		c.rp = c.rp[2:]
		c.r += 2
		return v, nil
	}
	var a [2]byte
	err := c.readSlow(a[:])
	return endian.Uint16(a[:]), err
}

// ReadUint32 consumes a big-endian uint32, with Next's errors.
func (c *Composite) ReadUint32() (uint32, error) {
	c.check()
	if len(c.rp) >= 4 {
		v := endian.Uint32(c.rp)
		c.rp = c.rp[4:]
		c.r += 4
		return v, nil
	}
	var a [4]byte
	err := c.readSlow(a[:])
	return endian.Uint32(a[:]), err
}

// ReadUint64 consumes a big-endian uint64, with Next's errors.
func (c *Composite) ReadUint64() (uint64, error) {
	c.check()
	if len(c.rp) >= 8 {
		v := endian.Uint64(c.rp)
		c.rp = c.rp[8:]
		c.r += 8
		return v, nil
	}
	var a [8]byte
	err := c.readSlow(a[:])
	return endian.Uint64(a[:]), err
}

// ReadUint16LE consumes a little-endian uint16, with Next's errors.
func (c *Composite) ReadUint16LE() (uint16, error) {
	c.check()
	if len(c.rp) >= 2 {
		v := endian.Uint16LE(c.rp)
		c.rp = c.rp[2:]
		c.r += 2
		return v, nil
	}
	var a [2]byte
	err := c.readSlow(a[:])
	return endian.Uint16LE(a[:]), err
}

// ReadUint32LE consumes a little-endian uint32, with Next's errors.
func (c *Composite) ReadUint32LE() (uint32, error) {
	c.check()
	if len(c.rp) >= 4 {
		v := endian.Uint32LE(c.rp)
		c.rp = c.rp[4:]
		c.r += 4
		return v, nil
	}
	var a [4]byte
	err := c.readSlow(a[:])
	return endian.Uint32LE(a[:]), err
}

// ReadUint64LE consumes a little-endian uint64, with Next's errors.
func (c *Composite) ReadUint64LE() (uint64, error) {
	c.check()
	if len(c.rp) >= 8 {
		v := endian.Uint64LE(c.rp)
		c.rp = c.rp[8:]
		c.r += 8
		return v, nil
	}
	var a [8]byte
	err := c.readSlow(a[:])
	return endian.Uint64LE(a[:]), err
}

// load returns the n (2, 4 or 8) bytes at readable offset i as a
// little-endian integer. It is the whole of a Get accessor, one call: the
// accessors' last component is tried first, then the page index, then a
// search; bytes that straddle components are gathered by loadStraddle. It
// panics if the bytes are not all readable or c is released.
func (c *Composite) load(i, n int) uint64 {
	pos := c.r + i
	if off := pos - c.wlo; i >= 0 && off >= 0 && off <= len(c.wp)-n {
		return loadLE(c.wp[off:], n)
	}
	if c.released || i < 0 || i > c.w-c.r-n {
		c.badIndex(i, n)
	}
	j, ok := c.pages.lookup(c, pos)
	if !ok {
		j = c.find(pos)
	}
	p := c.comps[j].p
	c.wp, c.wlo = p, c.ends[j]-len(p)
	if off := pos - c.wlo; off <= len(p)-n {
		return loadLE(p[off:], n)
	}
	return c.loadStraddle(pos, n)
}

// store writes the low n (2, 4 or 8) bytes of v little-endian at readable
// offset i; the Put accessors' counterpart of load.
func (c *Composite) store(i, n int, v uint64) {
	pos := c.r + i
	if off := pos - c.wlo; i >= 0 && off >= 0 && off <= len(c.wp)-n {
		storeLE(c.wp[off:], n, v)
		return
	}
	p, off := c.locate(i, n)
	if off <= len(p)-n {
		storeLE(p[off:], n, v)
		return
	}
	var a [8]byte
	endian.PutUint64LE(a[:], v)
	c.poke(pos, a[:n])
}

// locate checks that the n bytes at readable offset i are readable and
// returns the component holding the first of them, with that byte's offset
// in it; the component becomes the accessors' last one.
func (c *Composite) locate(i, n int) (p []byte, off int) {
	if c.released || i < 0 || i > c.w-c.r-n {
		c.badIndex(i, n)
	}
	pos := c.r + i
	j, ok := c.pages.lookup(c, pos)
	if !ok {
		j = c.find(pos)
	}
	p = c.comps[j].p
	c.wp, c.wlo = p, c.ends[j]-len(p)
	return p, pos - c.wlo
}

func loadLE(p []byte, n int) uint64 {
	switch n {
	case 8:
		return endian.Uint64LE(p)
	case 4:
		return uint64(endian.Uint32LE(p))
	}
	return uint64(endian.Uint16LE(p))
}

func storeLE(p []byte, n int, v uint64) {
	switch n {
	case 8:
		endian.PutUint64LE(p, v)
	case 4:
		endian.PutUint32LE(p, uint32(v))
	default:
		endian.PutUint16LE(p, uint16(v))
	}
}

// loadStraddle is load for n bytes at stream offset pos that straddle
// components.
func (c *Composite) loadStraddle(pos, n int) uint64 {
	var a [8]byte
	c.peek(a[:n], pos)
	return endian.Uint64LE(a[:])
}

// badIndex panics for locate: released, or out of range.
func (c *Composite) badIndex(i, n int) {
	c.check()
	panic("buf: Composite index " + itoa(i) + ", width " + itoa(n) + " out of range with " + itoa(c.w-c.r) + " readable bytes")
}

// GetUint16 returns the big-endian uint16 at readable offset i without
// consuming anything. Like every Get and Put accessor it addresses the
// readable bytes (offset 0 is the next byte a read returns), may straddle
// components, and panics when the value does not lie entirely within the
// readable bytes. It takes O(1) time: offsets in the component of the last
// access are found at once, others through the page index (after as many
// scattered accesses as there are components have paid for building it)
// or a binary search.
func (c *Composite) GetUint16(i int) uint16 { return bits.ReverseBytes16(uint16(c.load(i, 2))) }

// GetUint32 returns the big-endian uint32 at readable offset i.
func (c *Composite) GetUint32(i int) uint32 { return bits.ReverseBytes32(uint32(c.load(i, 4))) }

// GetUint64 returns the big-endian uint64 at readable offset i.
func (c *Composite) GetUint64(i int) uint64 { return bits.ReverseBytes64(c.load(i, 8)) }

// GetUint16LE returns the little-endian uint16 at readable offset i.
func (c *Composite) GetUint16LE(i int) uint16 { return uint16(c.load(i, 2)) }

// GetUint32LE returns the little-endian uint32 at readable offset i.
func (c *Composite) GetUint32LE(i int) uint32 { return uint32(c.load(i, 4)) }

// GetUint64LE returns the little-endian uint64 at readable offset i.
func (c *Composite) GetUint64LE(i int) uint64 { return c.load(i, 8) }

// PutUint16 overwrites the readable bytes at offset i with v big-endian,
// across components if need be. It writes into the components' memory,
// which other holders of those buffers see; it never moves an index.
func (c *Composite) PutUint16(i int, v uint16) { c.store(i, 2, uint64(bits.ReverseBytes16(v))) }

// PutUint32 overwrites readable offset i with v big-endian.
func (c *Composite) PutUint32(i int, v uint32) { c.store(i, 4, uint64(bits.ReverseBytes32(v))) }

// PutUint64 overwrites readable offset i with v big-endian.
func (c *Composite) PutUint64(i int, v uint64) { c.store(i, 8, bits.ReverseBytes64(v)) }

// PutUint16LE overwrites readable offset i with v little-endian.
func (c *Composite) PutUint16LE(i int, v uint16) { c.store(i, 2, uint64(v)) }

// PutUint32LE overwrites readable offset i with v little-endian.
func (c *Composite) PutUint32LE(i int, v uint32) { c.store(i, 4, uint64(v)) }

// PutUint64LE overwrites readable offset i with v little-endian.
func (c *Composite) PutUint64LE(i int, v uint64) { c.store(i, 8, v) }
