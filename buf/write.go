package buf

import (
	"io"

	"github.com/netkit/netkit/internal/rt/endian"
)

// minRead is the least free space ReadFrom offers a Read call.
const minRead = 512

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

// Commit adds to the readable bytes the next n bytes of free space, which
// the caller filled through AvailableBuffer's capacity — a read(2) into the
// buffer, or an encoder writing in place — without the copy that Write of
// those bytes would make:
//
//	p := b.AvailableBuffer()
//	n, err := unix.Read(fd, p[:cap(p)])
//	b.Commit(n)
//
// It panics if n is negative or more than the free space.
func (b *Buffer) Commit(n int) {
	b.check()
	if n < 0 || n > len(b.b)-b.w {
		panic("buf: Commit(" + itoa(n) + ") with " + itoa(len(b.b)-b.w) + " bytes free")
	}
	b.w += n
}

// Reset makes b empty: both indexes go back to zero and the memory is kept.
func (b *Buffer) Reset() {
	b.check()
	b.r, b.w = 0, 0
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
	// The liveness check and the room test in one branch, everything else
	// in writeByteSlow. (It still does not inline: the call to the slow
	// path alone costs most of the inliner's budget.)
	if w := b.w; uint(w) < uint(len(b.b)) && (b.m.load()^b.tag())&liveMask == 0 {
		b.b[w] = c
		b.w = w + 1
		return nil
	}
	return b.writeByteSlow(c)
}

// writeByteSlow is WriteByte for a released buffer (it panics) or a full one.
func (b *Buffer) writeByteSlow(c byte) error {
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
func (b *Buffer) WriteUint16(v uint16) { endian.PutUint16(b.room(2), v) }

// WriteUint32 appends v big-endian.
func (b *Buffer) WriteUint32(v uint32) { endian.PutUint32(b.room(4), v) }

// WriteUint64 appends v big-endian.
func (b *Buffer) WriteUint64(v uint64) { endian.PutUint64(b.room(8), v) }

// WriteUint16LE appends v little-endian.
func (b *Buffer) WriteUint16LE(v uint16) { endian.PutUint16LE(b.room(2), v) }

// WriteUint32LE appends v little-endian.
func (b *Buffer) WriteUint32LE(v uint32) { endian.PutUint32LE(b.room(4), v) }

// WriteUint64LE appends v little-endian.
func (b *Buffer) WriteUint64LE(v uint64) { endian.PutUint64LE(b.room(8), v) }

// PutUint16 overwrites the readable bytes at offset i with v big-endian (to
// patch a length prefix, say); it never moves an index or grows b.
func (b *Buffer) PutUint16(i int, v uint16) { endian.PutUint16(b.at(i, 2), v) }

// PutUint32 overwrites readable offset i with v big-endian.
func (b *Buffer) PutUint32(i int, v uint32) { endian.PutUint32(b.at(i, 4), v) }

// PutUint64 overwrites readable offset i with v big-endian.
func (b *Buffer) PutUint64(i int, v uint64) { endian.PutUint64(b.at(i, 8), v) }

// PutUint16LE overwrites readable offset i with v little-endian.
func (b *Buffer) PutUint16LE(i int, v uint16) { endian.PutUint16LE(b.at(i, 2), v) }

// PutUint32LE overwrites readable offset i with v little-endian.
func (b *Buffer) PutUint32LE(i int, v uint32) { endian.PutUint32LE(b.at(i, 4), v) }

// PutUint64LE overwrites readable offset i with v little-endian.
func (b *Buffer) PutUint64LE(i int, v uint64) { endian.PutUint64LE(b.at(i, 8), v) }

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
