package frame

import "github.com/netkit/netkit/buf"

// Fixed decodes frames of Length bytes each, as Netty's
// FixedLengthFrameDecoder does. Length must be positive; Decode panics
// otherwise (a programming error, not an input error). It holds no
// stream state, so it needs no Reset.
type Fixed struct {
	Length int
}

// Decode returns the next Length bytes of in as a frame, or ErrShort.
func (d *Fixed) Decode(in *buf.Composite) (*buf.Buffer, error) {
	return decode(d, in)
}

// Next returns the next frame of in as Decode does, but borrowed (see the
// package doc's "Borrowing"): valid until the next call on d or on in.
func (d *Fixed) Next(in *buf.Composite) ([]byte, error) {
	return next(d, in)
}

func (d *Fixed) locate(in *buf.Composite) (pre, n, post int, err error) {
	if d.Length <= 0 {
		panic("frame: Fixed.Length must be positive")
	}
	if in.Len() < d.Length {
		return 0, 0, 0, ErrShort
	}
	return 0, d.Length, 0, nil
}
