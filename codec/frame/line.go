package frame

import (
	"bytes"

	"github.com/netkit/netkit/buf"
)

// Line decodes lines ended by "\n" or "\r\n", as Netty's
// LineBasedFrameDecoder and bufio.ScanLines do, with a cap on a line's
// length that MaxFrameLength sets. The zero value is ready to use, with
// the default cap, keeping delimiters and reporting too-long lines once
// they have passed.
//
// Line searches each byte once: when a call finds no "\n" it remembers how
// far it looked, and the next call looks only at the bytes appended since.
type Line struct {
	// MaxFrameLength caps a line's length, delimiter excluded; 0 means
	// DefaultMaxFrameLength. A longer line is discarded and reported as
	// ErrTooLong (see the package doc).
	MaxFrameLength int
	// StripDelimiter leaves the "\n" or "\r\n" out of each frame.
	StripDelimiter bool
	// FailFast reports a too-long line as soon as it is known to be too
	// long, rather than once its end has passed.
	FailFast bool

	scanned    int   // readable bytes known to hold no '\n'
	pos        int64 // stream offset of the reader
	discarding bool  // inside a too-long line
	start      int64 // stream offset of the too-long line
}

// Reset forgets the stream: how far the decoder searched, and any
// too-long line it was discarding. The options stay.
func (d *Line) Reset() {
	d.scanned, d.pos, d.discarding, d.start = 0, 0, false, 0
}

// Decode takes the next line of in and stores it in *dst, which the
// caller then owns (see Decoder and the package doc).
func (d *Line) Decode(in *buf.Composite, dst **buf.Buffer) error {
	return decode(d, in, dst)
}

// Next returns the next line of in as Decode does, but borrowed (see the
// package doc's "Borrowing"): valid until the next call on d or on in.
func (d *Line) Next(in *buf.Composite) ([]byte, error) {
	return next(d, in)
}

// locate finds the next line and returns its layout (see take), or an error.
func (d *Line) locate(in *buf.Composite) (pre, n, post int, err error) {
	max := capOr(d.MaxFrameLength)
	for {
		eol, cr := d.find(in)
		if d.discarding {
			if eol < 0 {
				d.drop(in, in.Len())
				return 0, 0, 0, ErrShort
			}
			d.drop(in, eol+1)
			d.discarding = false
			if !d.FailFast {
				return 0, 0, 0, syntaxError(d.start, ErrTooLong)
			}
			continue // reported when it began
		}
		if eol < 0 {
			n := in.Len()
			if n == 0 {
				return 0, 0, 0, ErrShort
			}
			content := n
			if in.Span(n - 1)[0] == '\r' {
				content-- // perhaps the first half of "\r\n"
			}
			if content <= max {
				return 0, 0, 0, ErrShort
			}
			d.discarding, d.start = true, d.pos
			d.drop(in, n)
			if d.FailFast {
				return 0, 0, 0, syntaxError(d.start, ErrTooLong)
			}
			return 0, 0, 0, ErrShort
		}
		n, delim := eol, 1
		if cr {
			n, delim = n-1, 2
		}
		if n > max {
			start := d.pos
			d.drop(in, n+delim)
			return 0, 0, 0, syntaxError(start, ErrTooLong)
		}
		d.pos += int64(n + delim)
		d.scanned = 0
		if d.StripDelimiter {
			return 0, n, delim, nil
		}
		return 0, n + delim, 0, nil
	}
}

// find returns the readable offset of the first '\n' in in, or -1, looking
// only past the bytes earlier calls searched, and whether a '\r' comes
// just before it.
func (d *Line) find(in *buf.Composite) (eol int, cr bool) {
	n := in.Len()
	if d.scanned > n {
		d.scanned = 0 // the caller consumed behind our back: search again
	}
	for off := d.scanned; off < n; {
		s := in.Span(off)
		if i := bytes.IndexByte(s, '\n'); i > 0 {
			return off + i, s[i-1] == '\r'
		} else if i == 0 {
			return off, off > 0 && in.Span(off - 1)[0] == '\r'
		}
		off += len(s)
	}
	d.scanned = n
	return -1, false
}

// drop discards n bytes of a too-long line.
func (d *Line) drop(in *buf.Composite, n int) {
	in.Discard(n)
	d.pos += int64(n)
	d.scanned = max(d.scanned-n, 0)
}
