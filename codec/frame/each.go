package frame

import (
	"errors"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/internal/invariants"
)

// Each is every decoder's batch path (see the package doc's "Batches"):
// the frames it finds are lent to a callback in place, and what they used
// is consumed with one Discard when it returns.

// A lender is the state each decoder keeps for Each and Retained: the
// composite being walked and the current frame's place in it.
type lender struct {
	in      *buf.Composite // during Each's callback; nil otherwise
	p       []byte         // the current frame, lent
	off     int            // its readable offset
	scratch []byte         // a frame that straddles components, gathered
}

// lend calls f with p, the frame at readable offset off of in.
func (l *lender) lend(f func([]byte) error, p []byte, off int) error {
	l.p, l.off = p, off
	err := f(p)
	if invariants.Enabled && len(l.scratch) > 0 {
		// A frame gathered here is dead once f returns: poison it, so
		// that a callback that kept the slice reads garbage in tests.
		s := l.scratch[:cap(l.scratch)]
		for i := range s {
			s[i] = 0xDE
		}
	}
	return err
}

// lendAt lends the n readable bytes of in at off: in place when they lie
// in one component, else gathered.
func (l *lender) lendAt(in *buf.Composite, f func([]byte) error, off, n int) error {
	if s := in.Span(off); len(s) >= n {
		return l.lend(f, s[:n:n], off)
	}
	return l.lend(f, l.gather(in, off, n), off)
}

// done ends an Each call, also when f panicked: Retained panics again.
func (l *lender) done() { l.in = nil }

// retained is Retained's body.
func (l *lender) retained() *buf.Buffer {
	if l.in == nil {
		panic(errRetainedOutside)
	}
	if len(l.p) <= copyMax {
		b := l.in.Allocator().Get(len(l.p))
		b.Write(l.p)
		return b
	}
	return l.in.RetainedAt(l.off, len(l.p))
}

var errRetainedOutside = errors.New("frame: Retained called outside an Each callback")

// gather copies the n readable bytes of in at off into l.scratch and
// returns them: a frame that straddles components.
func (l *lender) gather(in *buf.Composite, off, n int) []byte {
	p := l.scratch[:0]
	for end := off + n; off < end; {
		s := in.Span(off)
		s = s[:min(len(s), end-off)]
		p = append(p, s...)
		off += len(s)
	}
	l.scratch = p
	return p
}

// step is one frame of Each through a decoder's locate: the path for what
// the decoders' in-place loops leave to it (a frame across a seam, one
// being discarded, errors). It reports whether it consumed a frame, and
// returns locate's error (nil for ErrShort) or f's.
func (l *lender) step(d locator, in *buf.Composite, f func([]byte) error) (bool, error) {
	pre, n, post, err := d.locate(in)
	if err == ErrShort {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	err = l.lendAt(in, f, pre, n)
	in.Discard(pre + n + post)
	return true, err
}
