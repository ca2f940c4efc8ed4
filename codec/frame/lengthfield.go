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
