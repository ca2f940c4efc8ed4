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

	lender
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

// Each calls f with every complete frame of in, in order, lent (see the
// package doc's "Batches"): frame is valid until f returns, and Retained
// inside f gives it as a buffer to keep. The frames f saw are consumed
// with one Discard when Each returns. It returns nil once in holds less
// than a frame, f's error if f returns one (the frame f failed on is
// consumed), or an error wrapping ErrConfig. f must not use in, nor d but
// for Retained.
func (d *Fixed) Each(in *buf.Composite, f func(frame []byte) error) error {
	if d.Length <= 0 {
		return d.Validate()
	}
	d.in = in
	defer d.done()
	var err error
	n, pos := in.Len(), 0
	for n-pos >= d.Length {
		err = d.lendAt(in, f, pos, d.Length)
		pos += d.Length
		if err != nil {
			break
		}
	}
	if pos > 0 {
		in.Discard(pos)
	}
	return err
}

// Retained returns the frame Each's callback is looking at as a buffer
// the caller owns and must Release: a view of the read holding it, or a
// copy when the frame straddles reads. It panics outside a callback.
func (d *Fixed) Retained() *buf.Buffer { return d.retained() }

func (d *Fixed) locate(in *buf.Composite) (pre, n, post int, err error) {
	if d.Length <= 0 {
		return 0, 0, 0, d.Validate()
	}
	if in.Len() < d.Length {
		return 0, 0, 0, ErrShort
	}
	return 0, d.Length, 0, nil
}
