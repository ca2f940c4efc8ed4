package buf

import (
	"io"

	"github.com/netkit/netkit/internal/rt/endian"
)

// Len returns the number of readable bytes.
func (b *Buffer) Len() int {
	b.check()
	return b.w - b.r
}

// Bytes returns the readable bytes. The slice aliases b's memory: it is valid
// until the next write, Reset, or the last Release, whichever comes first.
// Its capacity is its length, so appending to it never writes into b.
func (b *Buffer) Bytes() []byte {
	b.check()
	return b.b[b.r:b.w:b.w]
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
		panic("buf: SetReaderIndex(" + itoa(i) + ") outside [0, " + itoa(b.w) + "]")
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
// shared helper so that each stays within the inliner's budget; for the
// same reason each takes its error from shortErrs, indexed by the bytes
// it found, rather than from short (the inliner charges the table load
// less than short's branch).

// shortErrs[n] is what a fixed-width read returns when it finds n
// readable bytes, fewer than its width: short's answer.
var shortErrs = [8]error{io.EOF, io.ErrUnexpectedEOF, io.ErrUnexpectedEOF, io.ErrUnexpectedEOF, io.ErrUnexpectedEOF, io.ErrUnexpectedEOF, io.ErrUnexpectedEOF, io.ErrUnexpectedEOF}

// ReadUint16 consumes a big-endian uint16, with Next's errors.
func (b *Buffer) ReadUint16() (uint16, error) {
	b.check()
	p := b.b[b.r:b.w]
	if len(p) < 2 {
		return 0, shortErrs[len(p)]
	}
	b.r += 2
	return endian.Uint16(p), nil
}

// ReadUint32 consumes a big-endian uint32, with Next's errors.
func (b *Buffer) ReadUint32() (uint32, error) {
	b.check()
	p := b.b[b.r:b.w]
	if len(p) < 4 {
		return 0, shortErrs[len(p)]
	}
	b.r += 4
	return endian.Uint32(p), nil
}

// ReadUint64 consumes a big-endian uint64, with Next's errors.
func (b *Buffer) ReadUint64() (uint64, error) {
	b.check()
	p := b.b[b.r:b.w]
	if len(p) < 8 {
		return 0, shortErrs[len(p)]
	}
	b.r += 8
	return endian.Uint64(p), nil
}

// ReadUint16LE consumes a little-endian uint16, with Next's errors.
func (b *Buffer) ReadUint16LE() (uint16, error) {
	b.check()
	p := b.b[b.r:b.w]
	if len(p) < 2 {
		return 0, shortErrs[len(p)]
	}
	b.r += 2
	return endian.Uint16LE(p), nil
}

// ReadUint32LE consumes a little-endian uint32, with Next's errors.
func (b *Buffer) ReadUint32LE() (uint32, error) {
	b.check()
	p := b.b[b.r:b.w]
	if len(p) < 4 {
		return 0, shortErrs[len(p)]
	}
	b.r += 4
	return endian.Uint32LE(p), nil
}

// ReadUint64LE consumes a little-endian uint64, with Next's errors.
func (b *Buffer) ReadUint64LE() (uint64, error) {
	b.check()
	p := b.b[b.r:b.w]
	if len(p) < 8 {
		return 0, shortErrs[len(p)]
	}
	b.r += 8
	return endian.Uint64LE(p), nil
}

// at returns the n readable bytes starting i bytes after the reader index,
// for the absolute accessors; it panics if they are not all readable.
func (b *Buffer) at(i, n int) []byte {
	b.check()
	if i < 0 || i > b.w-b.r-n {
		panic("buf: index " + itoa(i) + ", width " + itoa(n) + " out of range with " + itoa(b.w-b.r) + " readable bytes")
	}
	return b.b[b.r+i : b.r+i+n]
}

// GetUint16 returns the big-endian uint16 i bytes after the reader index
// without consuming anything. Like every Get and Put accessor it addresses
// the readable bytes (as Bytes()[i:]) and panics when the value does not lie
// entirely within them.
func (b *Buffer) GetUint16(i int) uint16 { return endian.Uint16(b.at(i, 2)) }

// GetUint32 returns the big-endian uint32 at readable offset i.
func (b *Buffer) GetUint32(i int) uint32 { return endian.Uint32(b.at(i, 4)) }

// GetUint64 returns the big-endian uint64 at readable offset i.
func (b *Buffer) GetUint64(i int) uint64 { return endian.Uint64(b.at(i, 8)) }

// GetUint16LE returns the little-endian uint16 at readable offset i.
func (b *Buffer) GetUint16LE(i int) uint16 { return endian.Uint16LE(b.at(i, 2)) }

// GetUint32LE returns the little-endian uint32 at readable offset i.
func (b *Buffer) GetUint32LE(i int) uint32 { return endian.Uint32LE(b.at(i, 4)) }

// GetUint64LE returns the little-endian uint64 at readable offset i.
func (b *Buffer) GetUint64LE(i int) uint64 { return endian.Uint64LE(b.at(i, 8)) }
