package buf

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/netkit/netkit/search"
)

// minRead is the least free space ReadFrom offers a Read call.
const minRead = 512

// Len returns the number of readable bytes.
func (b *Buffer) Len() int {
	b.check()
	return b.w - b.r
}

// Cap returns the capacity of the memory behind b. Writes fit without
// growing while Len plus the bytes already consumed stays within it.
func (b *Buffer) Cap() int {
	b.check()
	return len(b.b)
}

// Bytes returns the readable bytes. The slice aliases b's memory: it is valid
// until the next write, Reset, or the last Release, whichever comes first.
// Its capacity is its length, so appending to it never writes into b.
func (b *Buffer) Bytes() []byte {
	b.check()
	return b.b[b.r:b.w:b.w]
}

// AvailableBuffer returns an empty slice whose capacity is b's free space
// after the writer index, for append-style encoders:
//
//	b.Write(codec.AppendX(b.AvailableBuffer(), v))
//
// writes without an intermediate copy when the result fits. The slice is
// valid until the next write or Release.
func (b *Buffer) AvailableBuffer() []byte {
	b.check()
	return b.b[b.w:b.w]
}

// Reset makes b empty: both indexes go back to zero and the memory is kept.
func (b *Buffer) Reset() {
	b.check()
	b.r, b.w = 0, 0
}

// Grow makes sure n more bytes can be written without another allocation.
// It panics with ErrFixed on a view made by Slice that lacks the room, and
// with an error wrapping ErrTooLarge when Len()+n overflows an int or is
// more than the runtime can allocate; it panics if n is negative.
//
// Growth policy: if the bytes already consumed are at least as many as the
// readable bytes and the write then fits, the readable bytes slide to the
// front (amortized O(1) per byte) — or, while Slice views of the memory
// exist, move to a fresh block of the same size so the views keep their
// bytes. Otherwise capacity becomes max(needed, 2×Cap), taken from the
// allocator's next fitting class. The old block goes back to its pool, or
// to the GC once views of it are gone. Past the allocator's largest class
// the buffer continues unpooled.
func (b *Buffer) Grow(n int) {
	b.check()
	if n < 0 {
		panic("buf: Grow with negative count")
	}
	if n > len(b.b)-b.w {
		b.mustGrow(n)
	}
}

// ReaderIndex returns the position of the reader index within b's memory,
// to be restored later with SetReaderIndex (a mark for parsers that back
// out of an incomplete message). A write that slides the readable bytes to
// the front invalidates it.
func (b *Buffer) ReaderIndex() int {
	b.check()
	return b.r
}

// SetReaderIndex moves the reader index to i, which must lie between 0 and
// the writer index (as returned by ReaderIndex plus Len); it panics
// otherwise.
func (b *Buffer) SetReaderIndex(i int) {
	b.check()
	if i < 0 || i > b.w {
		panic(fmt.Sprintf("buf: SetReaderIndex(%d) outside [0, %d]", i, b.w))
	}
	b.r = i
}

// short returns the error of a read that wants more than Len bytes.
func (b *Buffer) short() error {
	if b.r == b.w {
		return io.EOF
	}
	return io.ErrUnexpectedEOF
}

// Read implements io.Reader: it consumes up to len(p) readable bytes into p.
// It returns io.EOF when b is empty and len(p) > 0.
func (b *Buffer) Read(p []byte) (int, error) {
	b.check()
	if b.r == b.w {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	n := copy(p, b.b[b.r:b.w])
	b.r += n
	return n, nil
}

// ReadByte implements io.ByteReader.
func (b *Buffer) ReadByte() (byte, error) {
	b.check()
	if b.r == b.w {
		return 0, io.EOF
	}
	c := b.b[b.r]
	b.r++
	return c, nil
}

// Next consumes the next n readable bytes and returns them as a slice that
// aliases b's memory, valid until the next write or the last Release. With
// fewer than n readable bytes it consumes nothing and returns io.EOF (b is
// empty) or io.ErrUnexpectedEOF. It panics if n is negative.
func (b *Buffer) Next(n int) ([]byte, error) {
	b.check()
	if n < 0 {
		panic("buf: Next with negative count")
	}
	r := b.r
	if b.w-r < n {
		return nil, b.short()
	}
	b.r = r + n
	return b.b[r : r+n : r+n], nil
}

// Skip consumes n readable bytes, with Next's errors. It panics if n is
// negative.
func (b *Buffer) Skip(n int) error {
	_, err := b.Next(n)
	return err
}

// The fixed-width reads are written out one by one rather than through a
// shared helper so that each stays within the inliner's budget.

// ReadUint16 consumes a big-endian uint16, with Next's errors.
func (b *Buffer) ReadUint16() (uint16, error) {
	b.check()
	if b.w-b.r < 2 {
		return 0, b.short()
	}
	v := binary.BigEndian.Uint16(b.b[b.r:])
	b.r += 2
	return v, nil
}

// ReadUint32 consumes a big-endian uint32, with Next's errors.
func (b *Buffer) ReadUint32() (uint32, error) {
	b.check()
	if b.w-b.r < 4 {
		return 0, b.short()
	}
	v := binary.BigEndian.Uint32(b.b[b.r:])
	b.r += 4
	return v, nil
}

// ReadUint64 consumes a big-endian uint64, with Next's errors.
func (b *Buffer) ReadUint64() (uint64, error) {
	b.check()
	if b.w-b.r < 8 {
		return 0, b.short()
	}
	v := binary.BigEndian.Uint64(b.b[b.r:])
	b.r += 8
	return v, nil
}

// ReadUint16LE consumes a little-endian uint16, with Next's errors.
func (b *Buffer) ReadUint16LE() (uint16, error) {
	b.check()
	if b.w-b.r < 2 {
		return 0, b.short()
	}
	v := binary.LittleEndian.Uint16(b.b[b.r:])
	b.r += 2
	return v, nil
}

// ReadUint32LE consumes a little-endian uint32, with Next's errors.
func (b *Buffer) ReadUint32LE() (uint32, error) {
	b.check()
	if b.w-b.r < 4 {
		return 0, b.short()
	}
	v := binary.LittleEndian.Uint32(b.b[b.r:])
	b.r += 4
	return v, nil
}

// ReadUint64LE consumes a little-endian uint64, with Next's errors.
func (b *Buffer) ReadUint64LE() (uint64, error) {
	b.check()
	if b.w-b.r < 8 {
		return 0, b.short()
	}
	v := binary.LittleEndian.Uint64(b.b[b.r:])
	b.r += 8
	return v, nil
}

// grow makes room for n more bytes after the writer index (see Grow for the
// policy). It returns ErrFixed for a view without room.
func (b *Buffer) grow(n int) error {
	old, err := b.growKeep(n)
	putBack(old)
	return err
}

// growKeep is grow for a caller that may still be reading the memory b grows
// out of (Write of b's own bytes): instead of returning the old block to its
// pool it returns the block's carrier, for putBack once the caller is done.
func (b *Buffer) growKeep(n int) (*Buffer, error) {
	if b.fixed {
		return nil, ErrFixed
	}
	readable := b.w - b.r
	if n > math.MaxInt-readable {
		panic(tooLarge(n, readable))
	}
	need := readable + n
	var newCap int
	switch {
	case need <= len(b.b) && b.r >= readable && !b.sliced:
		copy(b.b, b.b[b.r:b.w])
		b.r, b.w = 0, readable
		return nil, nil
	case need <= len(b.b) && b.r >= readable:
		// Sliding would change bytes that Slice views read: move to a fresh
		// block of the same size and leave the old one to the views.
		newCap = len(b.b)
	case len(b.b) > math.MaxInt/2:
		newCap = need
	default:
		newCap = max(need, 2*len(b.b))
	}
	if a := b.m.a; a != nil {
		return a.regrow(b, newCap), nil
	}
	p := makeBlock(newCap)
	copy(p, b.b[b.r:b.w])
	b.b, b.r, b.w, b.sliced = p, 0, readable, false
	return nil, nil
}

func (b *Buffer) mustGrow(n int) {
	if err := b.grow(n); err != nil {
		panic(err)
	}
}

// room returns the n bytes after the writer index, growing b if needed, and
// moves the writer index past them. It panics with ErrFixed on a view
// without room.
func (b *Buffer) room(n int) []byte {
	b.check()
	if n > len(b.b)-b.w {
		b.mustGrow(n)
	}
	p := b.b[b.w : b.w+n]
	b.w += n
	return p
}

// Write implements io.Writer: it appends p, growing b as needed. It fails
// only on a view made by Slice, with ErrFixed, writing nothing.
func (b *Buffer) Write(p []byte) (int, error) {
	b.check()
	if len(p) > len(b.b)-b.w {
		old, err := b.growKeep(len(p)) // p may be b's own bytes
		if err != nil {
			return 0, err
		}
		b.w += copy(b.b[b.w:], p)
		putBack(old)
		return len(p), nil
	}
	b.w += copy(b.b[b.w:], p)
	return len(p), nil
}

// WriteString appends s, as Write.
func (b *Buffer) WriteString(s string) (int, error) {
	b.check()
	if len(s) > len(b.b)-b.w {
		if err := b.grow(len(s)); err != nil {
			return 0, err
		}
	}
	b.w += copy(b.b[b.w:], s)
	return len(s), nil
}

// WriteByte implements io.ByteWriter, as Write.
func (b *Buffer) WriteByte(c byte) error {
	b.check()
	if b.w == len(b.b) {
		if err := b.grow(1); err != nil {
			return err
		}
	}
	b.b[b.w] = c
	b.w++
	return nil
}

// WriteUint16 appends v big-endian. Like the other fixed-width writes it
// returns nothing and panics with ErrFixed on a view without room.
func (b *Buffer) WriteUint16(v uint16) { binary.BigEndian.PutUint16(b.room(2), v) }

// WriteUint32 appends v big-endian.
func (b *Buffer) WriteUint32(v uint32) { binary.BigEndian.PutUint32(b.room(4), v) }

// WriteUint64 appends v big-endian.
func (b *Buffer) WriteUint64(v uint64) { binary.BigEndian.PutUint64(b.room(8), v) }

// WriteUint16LE appends v little-endian.
func (b *Buffer) WriteUint16LE(v uint16) { binary.LittleEndian.PutUint16(b.room(2), v) }

// WriteUint32LE appends v little-endian.
func (b *Buffer) WriteUint32LE(v uint32) { binary.LittleEndian.PutUint32(b.room(4), v) }

// WriteUint64LE appends v little-endian.
func (b *Buffer) WriteUint64LE(v uint64) { binary.LittleEndian.PutUint64(b.room(8), v) }

// at returns the n readable bytes starting i bytes after the reader index,
// for the absolute accessors; it panics if they are not all readable.
func (b *Buffer) at(i, n int) []byte {
	b.check()
	if i < 0 || i > b.w-b.r-n {
		panic(fmt.Sprintf("buf: index %d, width %d out of range with %d readable bytes", i, n, b.w-b.r))
	}
	return b.b[b.r+i : b.r+i+n]
}

// GetUint16 returns the big-endian uint16 i bytes after the reader index
// without consuming anything. Like every Get and Put accessor it addresses
// the readable bytes (as Bytes()[i:]) and panics when the value does not lie
// entirely within them.
func (b *Buffer) GetUint16(i int) uint16 { return binary.BigEndian.Uint16(b.at(i, 2)) }

// GetUint32 returns the big-endian uint32 at readable offset i.
func (b *Buffer) GetUint32(i int) uint32 { return binary.BigEndian.Uint32(b.at(i, 4)) }

// GetUint64 returns the big-endian uint64 at readable offset i.
func (b *Buffer) GetUint64(i int) uint64 { return binary.BigEndian.Uint64(b.at(i, 8)) }

// GetUint16LE returns the little-endian uint16 at readable offset i.
func (b *Buffer) GetUint16LE(i int) uint16 { return binary.LittleEndian.Uint16(b.at(i, 2)) }

// GetUint32LE returns the little-endian uint32 at readable offset i.
func (b *Buffer) GetUint32LE(i int) uint32 { return binary.LittleEndian.Uint32(b.at(i, 4)) }

// GetUint64LE returns the little-endian uint64 at readable offset i.
func (b *Buffer) GetUint64LE(i int) uint64 { return binary.LittleEndian.Uint64(b.at(i, 8)) }

// PutUint16 overwrites the readable bytes at offset i with v big-endian (to
// patch a length prefix, say); it never moves an index or grows b.
func (b *Buffer) PutUint16(i int, v uint16) { binary.BigEndian.PutUint16(b.at(i, 2), v) }

// PutUint32 overwrites readable offset i with v big-endian.
func (b *Buffer) PutUint32(i int, v uint32) { binary.BigEndian.PutUint32(b.at(i, 4), v) }

// PutUint64 overwrites readable offset i with v big-endian.
func (b *Buffer) PutUint64(i int, v uint64) { binary.BigEndian.PutUint64(b.at(i, 8), v) }

// PutUint16LE overwrites readable offset i with v little-endian.
func (b *Buffer) PutUint16LE(i int, v uint16) { binary.LittleEndian.PutUint16(b.at(i, 2), v) }

// PutUint32LE overwrites readable offset i with v little-endian.
func (b *Buffer) PutUint32LE(i int, v uint32) { binary.LittleEndian.PutUint32(b.at(i, 4), v) }

// PutUint64LE overwrites readable offset i with v little-endian.
func (b *Buffer) PutUint64LE(i int, v uint64) { binary.LittleEndian.PutUint64(b.at(i, 8), v) }

// ReadFrom implements io.ReaderFrom: it appends from r until io.EOF (which
// it does not return), growing b by at least 512 bytes at a time. On a view
// made by Slice it fills the remaining capacity, then returns ErrFixed.
func (b *Buffer) ReadFrom(r io.Reader) (int64, error) {
	b.check()
	var total int64
	for {
		if len(b.b)-b.w < minRead {
			if err := b.grow(minRead); err != nil && b.w == len(b.b) {
				return total, err
			}
		}
		n, err := r.Read(b.b[b.w:])
		if n < 0 || n > len(b.b)-b.w {
			panic("buf: Read returned an invalid count")
		}
		b.w += n
		total += int64(n)
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// WriteTo implements io.WriterTo: it writes the readable bytes to w and
// consumes what w accepted. A short write without an error reports
// io.ErrShortWrite.
func (b *Buffer) WriteTo(w io.Writer) (int64, error) {
	b.check()
	if b.r == b.w {
		return 0, nil
	}
	n, err := w.Write(b.b[b.r:b.w])
	if n < 0 || n > b.w-b.r {
		panic("buf: Write returned an invalid count")
	}
	b.r += n
	if err == nil && b.r != b.w {
		err = io.ErrShortWrite
	}
	return int64(n), err
}

// Index returns the offset of the first instance of needle in the readable
// bytes, relative to the reader index, or -1; an empty needle is found at 0.
// The answer is that of bytes.Index. It searches with search.Index, which
// prepares the needle on every call (O(len(needle)), no allocation): a
// Buffer header has no room to keep a prepared needle between calls, so a
// needle searched again and again is better built once as a search.Pattern
// for IndexPattern.
func (b *Buffer) Index(needle []byte) int {
	b.check()
	return search.Index(b.b[b.r:b.w], needle)
}

// IndexPattern returns the offset of the first instance of p's needle in
// the readable bytes, relative to the reader index, or -1; an empty needle
// is found at 0. It allocates nothing and runs in
// O(Len()+len(needle)) time.
func (b *Buffer) IndexPattern(p *search.Pattern) int {
	b.check()
	return p.Index(b.b[b.r:b.w])
}

// IndexSet returns the first match of s in the readable bytes, as s.Find
// reports it, with offsets relative to the reader index; ok is false when
// there is none. It allocates nothing.
func (b *Buffer) IndexSet(s *search.Set) (m search.Match, ok bool) {
	b.check()
	return s.Find(b.b[b.r:b.w])
}
