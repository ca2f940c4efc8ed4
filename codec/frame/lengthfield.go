package frame

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/netkit/netkit/buf"
)

// LengthField decodes frames that carry their length in a header field, as
// Netty's LengthFieldBasedFrameDecoder does, with the same parameters:
//
//	frame on the wire:  [Offset bytes][length field: Size bytes][rest …]
//	frame length     =  field value + Adjustment + Offset + Size
//	frame returned   =  the frame less its first Strip bytes
//
// So a 4-byte big-endian length of the body alone (the zero value's
// layout) is LengthField{Strip: 4} to get the body, or LengthField{} to get
// the header too; a length that counts the header itself takes an
// Adjustment of -(Offset+Size). The zero value is ready to use: Size 0 means
// 4, big-endian, at offset 0, nothing stripped, default cap.
//
// A field that makes the frame shorter than its own header, or shorter than
// Strip, or an 8-byte field of 2^63 or more (negative as the signed length
// Netty reads), is a *SyntaxError of kind ErrBadLength, reported at once:
// Decode skips the header (or the frame), as Netty does, but the stream is
// probably corrupt.
//
// Size must be 1, 2, 3, 4 or 8, Offset and Strip non-negative, and the
// header (Offset + Size bytes) no longer than MaxFrameLength, or the length
// field could not be read without holding more than the cap. Decode, Next
// and AppendLengthField refuse any other configuration with an error
// wrapping ErrConfig, consuming nothing; Validate reports it up front.
type LengthField struct {
	Offset       int  // bytes before the length field
	Size         int  // bytes of the length field: 1, 2, 3, 4 or 8 (0 means 4)
	LittleEndian bool // the field's byte order; big-endian (network order) by default
	Adjustment   int  // added to the field's value to get the bytes after the field
	Strip        int  // bytes dropped from the front of each frame
	// MaxFrameLength caps the frame length (header included, before
	// Strip); 0 means DefaultMaxFrameLength. A longer frame is discarded
	// and reported as ErrTooLong (see the package doc); a length field
	// announcing one is never trusted with memory.
	MaxFrameLength int
	// FailFast reports a too-long frame as soon as its length field is
	// read, rather than once its last byte has passed.
	FailFast bool

	pos        int64 // stream offset of the reader
	discarding bool
	remaining  int64 // bytes of the too-long frame still to discard
	start      int64 // stream offset of the too-long frame
	lender
}

// Reset forgets the stream, and any too-long frame being discarded. The
// options stay.
func (d *LengthField) Reset() {
	d.pos, d.discarding, d.remaining, d.start = 0, false, 0, 0
}

// Validate reports whether d's configuration can decode a stream: nil, or
// an error wrapping ErrConfig that says what is wrong (see LengthField).
func (d *LengthField) Validate() error {
	_, err := d.size()
	return err
}

// size returns the length field's size, or the configuration's error.
func (d *LengthField) size() (int, error) {
	size := d.Size
	switch size {
	case 0:
		size = 4
	case 1, 2, 3, 4, 8:
	default:
		return 0, fmt.Errorf("%w: LengthField.Size %d is not 1, 2, 3, 4 or 8", ErrConfig, d.Size)
	}
	if d.Offset < 0 || d.Strip < 0 {
		return 0, fmt.Errorf("%w: LengthField.Offset %d or Strip %d is negative", ErrConfig, d.Offset, d.Strip)
	}
	if c := capOr(d.MaxFrameLength); d.Offset > c-size {
		return 0, fmt.Errorf("%w: LengthField.Offset %d + Size %d exceeds MaxFrameLength %d", ErrConfig, d.Offset, size, c)
	}
	return size, nil
}

// Decode takes the next frame of in and stores it in *dst, which the
// caller then owns (see Decoder and the package doc).
func (d *LengthField) Decode(in *buf.Composite, dst **buf.Buffer) error {
	return decode(d, in, dst)
}

// Next returns the next frame of in as Decode does, but borrowed (see the
// package doc's "Borrowing"): valid until the next call on d or on in.
func (d *LengthField) Next(in *buf.Composite) ([]byte, error) {
	return next(d, in)
}

// Each calls f with every complete frame of in, in order, lent (see the
// package doc's "Batches"): frame (after Strip) is valid until f returns,
// and Retained inside f gives it as a buffer to keep. The frames f saw are
// consumed with one Discard when Each returns. It returns nil once in holds
// no complete frame, f's error if f returns one (the frame f failed on is
// consumed), a *SyntaxError for a frame it dropped (the frames before it
// went to f; call Each again to go on), or an error wrapping ErrConfig. f
// must not use in, nor d but for Retained.
func (d *LengthField) Each(in *buf.Composite, f func(frame []byte) error) error {
	size, err := d.size()
	if err != nil {
		return err
	}
	d.in = in
	defer d.done()
	return d.each(in, f, size)
}

// Retained returns the frame Each's callback is looking at as a buffer
// the caller owns and must Release: a view of the read holding it, or a
// copy when the frame straddles reads. It panics outside a callback.
func (d *LengthField) Retained() *buf.Buffer { return d.retained() }

func (d *LengthField) each(in *buf.Composite, f func([]byte) error, size int) error {
	for {
		if err := d.fastEach(in, f, size); err != nil {
			return err
		}
		if ok, err := d.step(d, in, f); !ok || err != nil {
			return err
		}
	}
}

// fastEach lends the frames whose header lies in one component, in place,
// and stops at anything else: a header across a seam, a bad or too-long
// length, a frame being discarded.
func (d *LengthField) fastEach(in *buf.Composite, f func([]byte) error, size int) error {
	if !d.discarding {
		// Frames whose header lies in one component, in place; anything
		// else (a header across a seam, a bad or too-long length) is left
		// to the slow path below.
		end := d.Offset + size
		limit := int64(capOr(d.MaxFrameLength))
		n, pos := in.Len(), 0
		var err error
		var t []byte // the component holding pos, from its readable offset tb
		tb := 0
		for n-pos >= end {
			if pos-tb >= len(t) {
				t, tb = in.Span(pos), pos
			}
			s := t[pos-tb:]
			if len(s) < end {
				break
			}
			length, ok := d.lengthOf(d.field(s[d.Offset:end]), size)
			if !ok || length < int64(end) || length > limit || int64(d.Strip) > length {
				break
			}
			fl := int(length)
			if n-pos < fl {
				break
			}
			if fl <= len(s) {
				err = d.lend(f, s[d.Strip:fl:fl], pos+d.Strip)
			} else {
				err = d.lend(f, d.gather(in, pos+d.Strip, fl-d.Strip), pos+d.Strip)
			}
			pos += fl
			if err != nil {
				break
			}
		}
		if pos > 0 {
			in.Discard(pos)
			d.pos += int64(pos)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (d *LengthField) locate(in *buf.Composite) (pre, n, post int, err error) {
	size, err := d.size()
	if err != nil {
		return 0, 0, 0, err
	}
	end := d.Offset + size
	for {
		if d.discarding {
			k := int(min(d.remaining, int64(in.Len())))
			d.drop(in, k)
			d.remaining -= int64(k)
			if d.remaining > 0 {
				return 0, 0, 0, ErrShort
			}
			d.discarding = false
			if !d.FailFast {
				return 0, 0, 0, syntaxError(d.start, ErrTooLong)
			}
			continue // reported when its length was read
		}
		n := in.Len()
		if n < end {
			return 0, 0, 0, ErrShort
		}
		length, ok := d.frameLength(in, size)
		if !ok || length < int64(end) {
			start := d.pos
			d.drop(in, end)
			return 0, 0, 0, syntaxError(start, ErrBadLength)
		}
		if length > int64(capOr(d.MaxFrameLength)) {
			d.discarding, d.remaining, d.start = true, length, d.pos
			if d.FailFast {
				k := int(min(d.remaining, int64(n)))
				d.drop(in, k)
				d.remaining -= int64(k)
				d.discarding = d.remaining > 0
				return 0, 0, 0, syntaxError(d.start, ErrTooLong)
			}
			continue
		}
		fl := int(length) // within the cap, so an int
		if n < fl {
			return 0, 0, 0, ErrShort
		}
		if d.Strip > fl {
			start := d.pos
			d.drop(in, fl)
			return 0, 0, 0, syntaxError(start, ErrBadLength)
		}
		d.pos += int64(fl)
		return d.Strip, fl - d.Strip, 0, nil
	}
}

// frameLength reads the length field and returns the frame length it
// announces, saturated at math.MaxInt64 (any such frame is too long); ok
// is false for a field of 2^63 or more, a negative length to Netty.
func (d *LengthField) frameLength(in *buf.Composite, size int) (length int64, ok bool) {
	o := d.Offset
	var v uint64
	switch size {
	case 1:
		v = uint64(in.Span(o)[0])
	case 2:
		if d.LittleEndian {
			v = uint64(in.GetUint16LE(o))
		} else {
			v = uint64(in.GetUint16(o))
		}
	case 3:
		if d.LittleEndian {
			v = uint64(in.GetUint16LE(o)) | uint64(in.Span(o + 2)[0])<<16
		} else {
			v = uint64(in.GetUint16(o))<<8 | uint64(in.Span(o + 2)[0])
		}
	case 4:
		if d.LittleEndian {
			v = uint64(in.GetUint32LE(o))
		} else {
			v = uint64(in.GetUint32(o))
		}
	default:
		if d.LittleEndian {
			v = in.GetUint64LE(o)
		} else {
			v = in.GetUint64(o)
		}
	}
	return d.lengthOf(v, size)
}

// field reads the length field from p, its size bytes.
func (d *LengthField) field(p []byte) uint64 {
	var v uint64
	if d.LittleEndian {
		for i := len(p) - 1; i >= 0; i-- {
			v = v<<8 | uint64(p[i])
		}
		return v
	}
	switch len(p) {
	case 4:
		return uint64(binary.BigEndian.Uint32(p))
	case 2:
		return uint64(binary.BigEndian.Uint16(p))
	case 8:
		return binary.BigEndian.Uint64(p)
	}
	for _, c := range p {
		v = v<<8 | uint64(c)
	}
	return v
}

// lengthOf returns the frame length that a field of value v announces (see
// frameLength).
func (d *LengthField) lengthOf(v uint64, size int) (length int64, ok bool) {
	if v >= 1<<63 {
		return 0, false
	}
	// v, Offset+Size and the sum are not negative, so the sum overflows
	// only upwards, and so does adding a positive Adjustment.
	h := int64(d.Offset + size)
	if int64(v) > math.MaxInt64-h {
		return math.MaxInt64, true
	}
	l := int64(v) + h
	if a := int64(d.Adjustment); a > 0 && l > math.MaxInt64-a {
		return math.MaxInt64, true
	}
	return l + int64(d.Adjustment), true
}

// drop discards n bytes that belong to no frame.
func (d *LengthField) drop(in *buf.Composite, n int) {
	in.Discard(n)
	d.pos += int64(n)
}

// ErrLengthOverflow reports a length AppendLengthField cannot write: negative
// once adjusted, or too large for the field.
var ErrLengthOverflow = errors.New("frame: length does not fit the length field")

// AppendLengthField appends the length field that d decodes as a frame whose
// bytes after the field number n: the value n - d.Adjustment, in d.Size bytes
// and d's byte order. It is Netty's LengthFieldPrepender, kept in step with
// the decoder by sharing its configuration: write the Offset bytes that
// precede the field (if any) first, then the field, then the n bytes. It
// returns dst unchanged and ErrLengthOverflow when the value is negative or
// does not fit the field, or an error wrapping ErrConfig when d's
// configuration is refused (see LengthField).
func AppendLengthField(dst []byte, d *LengthField, n int) ([]byte, error) {
	size, err := d.size()
	if err != nil {
		return dst, err
	}
	if a := int64(d.Adjustment); a < 0 && int64(n) > math.MaxInt64+a {
		return dst, ErrLengthOverflow
	}
	v := int64(n) - int64(d.Adjustment)
	if v < 0 || size < 8 && v >= 1<<(8*size) {
		return dst, ErrLengthOverflow
	}
	u := uint64(v)
	var o binary.AppendByteOrder = binary.BigEndian
	if d.LittleEndian {
		o = binary.LittleEndian
	}
	switch size {
	case 1:
		return append(dst, byte(u)), nil
	case 2:
		return o.AppendUint16(dst, uint16(u)), nil
	case 3:
		if d.LittleEndian {
			return append(dst, byte(u), byte(u>>8), byte(u>>16)), nil
		}
		return append(dst, byte(u>>16), byte(u>>8), byte(u)), nil
	case 4:
		return o.AppendUint32(dst, uint32(u)), nil
	}
	return o.AppendUint64(dst, u), nil
}
