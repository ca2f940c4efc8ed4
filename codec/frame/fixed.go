package frame

import (
	"fmt"

	"github.com/netkit/netkit/buf"
)

// Fixed decodes frames of Length bytes each, as Netty's
// FixedLengthFrameDecoder does. Length must be positive: Decode and Next
// return an error wrapping ErrConfig otherwise, consuming nothing (a
// programming error, not an input error). It holds no stream state, so it
// needs no Reset.
type Fixed struct {
	Length int
}

// Validate reports whether d's configuration can decode a stream: nil, or
// an error wrapping ErrConfig.
func (d *Fixed) Validate() error {
	if d.Length <= 0 {
		return fmt.Errorf("%w: Fixed.Length %d is not positive", ErrConfig, d.Length)
	}
	return nil
}

// Decode takes the next Length bytes of in and stores them in *dst as a
// frame the caller owns, or returns ErrShort.
func (d *Fixed) Decode(in *buf.Composite, dst **buf.Buffer) error {
	return decode(d, in, dst)
}

// Next returns the next frame of in as Decode does, but borrowed (see the
// package doc's "Borrowing"): valid until the next call on d or on in.
func (d *Fixed) Next(in *buf.Composite) ([]byte, error) {
	return next(d, in)
}

func (d *Fixed) locate(in *buf.Composite) (pre, n, post int, err error) {
	if d.Length <= 0 {
		return 0, 0, 0, d.Validate()
	}
	if in.Len() < d.Length {
		return 0, 0, 0, ErrShort
	}
	return 0, d.Length, 0, nil
}
