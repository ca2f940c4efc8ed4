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
	lender
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

// Each calls f with every complete line of in, in order, lent (see the
// package doc's "Batches"): line is valid until f returns. Inside f,
// Retained gives the line as a buffer to keep. The lines f saw are
// consumed with one Discard when Each returns. It returns nil once in
// holds no complete line, f's error if f returns one (the line f failed on
// is consumed), or a *SyntaxError for a line it dropped (the lines before
// it went to f; call Each again to go on). f must not use in, nor d but
// for Retained.
func (d *Line) Each(in *buf.Composite, f func(line []byte) error) error {
	d.in = in
	defer d.done()
	return d.each(in, f)
}

// Retained returns the line Each's callback is looking at as a buffer the
// caller owns and must Release: a view of the read holding it (nothing
// copied), or a copy when the line straddles reads. It panics outside a
// callback.
func (d *Line) Retained() *buf.Buffer { return d.retained() }

func (d *Line) each(in *buf.Composite, f func([]byte) error) error {
	for d.discarding {
		// The slow path drops the rest of a too-long line.
		if ok, err := d.step(d, in, f); !ok || err != nil {
			return err
		}
	}
	limit := capOr(d.MaxFrameLength)
	n := in.Len()
	skip := d.scanned // bytes from the reader known to hold no '\n'
	if skip > n {
		skip = 0 // the caller consumed behind our back: search again
	}
	pos := 0     // readable offset of the next line
	scanned := 0 // bytes from pos known to hold no '\n', when the loop ends
	var err error
lines:
	for pos < n {
		// The lines that lie in the component holding pos, in place.
		s := in.Span(pos)
		k, from := 0, 0 // the line's start in s, where its search starts
		if pos == 0 {
			from = min(skip, len(s))
		}
		strip := d.StripDelimiter
		var ms masks
		var h hits
		for base := from; base < len(s); {
			words, covered := ms.fill(s[base:], '\n', '\n')
			for _, o := range h[:h.flatten(ms[:words])] {
				e := base + int(o)
				end := e + 1 // the line's end in s: after the '\n', or before "\r\n"
				if strip || e-k > limit {
					content := e
					if e > k && s[e-1] == '\r' {
						content--
					}
					if content-k > limit {
						err = syntaxError(d.pos+int64(pos+k), ErrTooLong)
						pos += e + 1
						break lines
					}
					if strip {
						end = content
					}
				}
				if err = d.lend(f, s[k:end], pos+k); err != nil {
					pos += e + 1
					break lines
				}
				k = e + 1
			}
			base += covered
		}
		pos += k
		rest := len(s) - k
		if pos+rest == n {
			scanned = rest
			break
		}
		// A line that straddles components: find its end past them.
		from = rest
		if pos == 0 {
			from = max(from, skip)
		}
		eol := -1
		for off := pos + from; off < n; {
			t := in.Span(off)
			if i := bytes.IndexByte(t, '\n'); i >= 0 {
				eol = off + i
				break
			}
			off += len(t)
		}
		if eol < 0 {
			scanned = n - pos
			break
		}
		p := d.gather(in, pos, eol+1-pos)
		content := len(p) - 1
		if content > 0 && p[content-1] == '\r' {
			content--
		}
		if content > limit {
			err = syntaxError(d.pos+int64(pos), ErrTooLong)
			pos = eol + 1
			break
		}
		if d.StripDelimiter {
			p = p[:content]
		}
		err = d.lend(f, p, pos)
		pos = eol + 1
		if err != nil {
			break
		}
	}
	if pos > 0 {
		in.Discard(pos)
		d.pos += int64(pos)
	}
	if err != nil {
		d.scanned = 0
		return err
	}
	d.scanned = scanned
	if in.Len() > limit {
		// Perhaps the line still open is already too long: locate
		// decides (it finds no '\n' in what was scanned) and starts
		// discarding it.
		if _, _, _, err := d.locate(in); err != ErrShort {
			return err
		}
	}
	return nil
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
