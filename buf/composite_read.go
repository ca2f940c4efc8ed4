package buf

import (
	"encoding/binary"
	"fmt"
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
		v := binary.BigEndian.Uint16(c.rp)
		c.rp = c.rp[2:]
		c.r += 2
		return v, nil
	}
	var a [2]byte
	err := c.readSlow(a[:])
	return binary.BigEndian.Uint16(a[:]), err
}

// ReadUint32 consumes a big-endian uint32, with Next's errors.
func (c *Composite) ReadUint32() (uint32, error) {
	c.check()
	if len(c.rp) >= 4 {
		v := binary.BigEndian.Uint32(c.rp)
		c.rp = c.rp[4:]
		c.r += 4
		return v, nil
	}
	var a [4]byte
	err := c.readSlow(a[:])
	return binary.BigEndian.Uint32(a[:]), err
}

// ReadUint64 consumes a big-endian uint64, with Next's errors.
func (c *Composite) ReadUint64() (uint64, error) {
	c.check()
	if len(c.rp) >= 8 {
		v := binary.BigEndian.Uint64(c.rp)
		c.rp = c.rp[8:]
		c.r += 8
		return v, nil
	}
	var a [8]byte
	err := c.readSlow(a[:])
	return binary.BigEndian.Uint64(a[:]), err
}

// ReadUint16LE consumes a little-endian uint16, with Next's errors.
func (c *Composite) ReadUint16LE() (uint16, error) {
	c.check()
	if len(c.rp) >= 2 {
		v := binary.LittleEndian.Uint16(c.rp)
		c.rp = c.rp[2:]
		c.r += 2
		return v, nil
	}
	var a [2]byte
	err := c.readSlow(a[:])
	return binary.LittleEndian.Uint16(a[:]), err
}

// ReadUint32LE consumes a little-endian uint32, with Next's errors.
func (c *Composite) ReadUint32LE() (uint32, error) {
	c.check()
	if len(c.rp) >= 4 {
		v := binary.LittleEndian.Uint32(c.rp)
		c.rp = c.rp[4:]
		c.r += 4
		return v, nil
	}
	var a [4]byte
	err := c.readSlow(a[:])
	return binary.LittleEndian.Uint32(a[:]), err
}

// ReadUint64LE consumes a little-endian uint64, with Next's errors.
func (c *Composite) ReadUint64LE() (uint64, error) {
	c.check()
	if len(c.rp) >= 8 {
		v := binary.LittleEndian.Uint64(c.rp)
		c.rp = c.rp[8:]
		c.r += 8
		return v, nil
	}
	var a [8]byte
	err := c.readSlow(a[:])
	return binary.LittleEndian.Uint64(a[:]), err
}

// at returns the n bytes at readable offset i when they lie in one
// component, or nil when they straddle (the caller then peeks or pokes). It
// panics if they are not all readable.
func (c *Composite) at(i, n int) []byte {
	c.check()
	if i < 0 || i > c.w-c.r-n {
		panic(fmt.Sprintf("buf: Composite index %d, width %d out of range with %d readable bytes", i, n, c.w-c.r))
	}
	pos := c.r + i
	j := c.find(pos)
	p := c.comps[j].p[pos-c.start(j):]
	if len(p) < n {
		return nil
	}
	return p[:n]
}

// get returns the n ≤ 8 bytes at readable offset i, copied into a when they
// straddle components.
func (c *Composite) get(i, n int, a *[8]byte) []byte {
	if p := c.at(i, n); p != nil {
		return p
	}
	c.peek(a[:n], c.r+i)
	return a[:n]
}

// GetUint16 returns the big-endian uint16 at readable offset i without
// consuming anything. Like every Get and Put accessor it addresses the
// readable bytes (offset 0 is the next byte a read returns), may straddle
// components, and panics when the value does not lie entirely within the
// readable bytes. It takes O(1) time when offsets near the last one are
// accessed, O(1) amortised through the page index for random offsets.
func (c *Composite) GetUint16(i int) uint16 {
	var a [8]byte
	return binary.BigEndian.Uint16(c.get(i, 2, &a))
}

// GetUint32 returns the big-endian uint32 at readable offset i.
func (c *Composite) GetUint32(i int) uint32 {
	var a [8]byte
	return binary.BigEndian.Uint32(c.get(i, 4, &a))
}

// GetUint64 returns the big-endian uint64 at readable offset i.
func (c *Composite) GetUint64(i int) uint64 {
	var a [8]byte
	return binary.BigEndian.Uint64(c.get(i, 8, &a))
}

// GetUint16LE returns the little-endian uint16 at readable offset i.
func (c *Composite) GetUint16LE(i int) uint16 {
	var a [8]byte
	return binary.LittleEndian.Uint16(c.get(i, 2, &a))
}

// GetUint32LE returns the little-endian uint32 at readable offset i.
func (c *Composite) GetUint32LE(i int) uint32 {
	var a [8]byte
	return binary.LittleEndian.Uint32(c.get(i, 4, &a))
}

// GetUint64LE returns the little-endian uint64 at readable offset i.
func (c *Composite) GetUint64LE(i int) uint64 {
	var a [8]byte
	return binary.LittleEndian.Uint64(c.get(i, 8, &a))
}

// put writes the n ≤ 8 bytes of a at readable offset i.
func (c *Composite) put(i, n int, a *[8]byte) {
	if p := c.at(i, n); p != nil {
		copy(p, a[:n])
		return
	}
	c.poke(c.r+i, a[:n])
}

// PutUint16 overwrites the readable bytes at offset i with v big-endian,
// across components if need be. It writes into the components' memory,
// which other holders of those buffers see; it never moves an index.
func (c *Composite) PutUint16(i int, v uint16) {
	var a [8]byte
	binary.BigEndian.PutUint16(a[:], v)
	c.put(i, 2, &a)
}

// PutUint32 overwrites readable offset i with v big-endian.
func (c *Composite) PutUint32(i int, v uint32) {
	var a [8]byte
	binary.BigEndian.PutUint32(a[:], v)
	c.put(i, 4, &a)
}

// PutUint64 overwrites readable offset i with v big-endian.
func (c *Composite) PutUint64(i int, v uint64) {
	var a [8]byte
	binary.BigEndian.PutUint64(a[:], v)
	c.put(i, 8, &a)
}

// PutUint16LE overwrites readable offset i with v little-endian.
func (c *Composite) PutUint16LE(i int, v uint16) {
	var a [8]byte
	binary.LittleEndian.PutUint16(a[:], v)
	c.put(i, 2, &a)
}

// PutUint32LE overwrites readable offset i with v little-endian.
func (c *Composite) PutUint32LE(i int, v uint32) {
	var a [8]byte
	binary.LittleEndian.PutUint32(a[:], v)
	c.put(i, 4, &a)
}

// PutUint64LE overwrites readable offset i with v little-endian.
func (c *Composite) PutUint64LE(i int, v uint64) {
	var a [8]byte
	binary.LittleEndian.PutUint64(a[:], v)
	c.put(i, 8, &a)
}
