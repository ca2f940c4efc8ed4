package frame

import (
	"bytes"
	"fmt"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/search"
)

// Delimiter decodes frames ended by any of a set of delimiters, as Netty's
// DelimiterBasedFrameDecoder does: a frame ends at the delimiter that
// starts first in the stream, and of delimiters that start at the same
// byte, the one listed first wins. Unlike Netty's, the answer never depends
// on how the stream was cut into reads: when a longer delimiter listed
// earlier could still complete at an earlier start, Decode waits for the
// bytes that settle it. Make one with NewDelimiter; the options may be set
// before the first Decode. A Delimiter not made by NewDelimiter, or made
// without delimiters or with an empty one, decodes nothing: Decode and
// Next return an error wrapping ErrConfig (see Validate).
//
// The search runs on a search.Set: in place within a read, and across
// reads with the set's Matcher, which resumes where the last call stopped,
// so a long frame arriving in many small reads is searched once.
type Delimiter struct {
	// MaxFrameLength caps a frame's length, delimiter excluded; 0 means
	// DefaultMaxFrameLength. A longer frame is discarded and reported as
	// ErrTooLong (see the package doc).
	MaxFrameLength int
	// StripDelimiter leaves the delimiter out of each frame.
	StripDelimiter bool
	// FailFast reports a too-long frame as soon as it is known to be too
	// long, rather than once its delimiter has passed.
	FailFast bool

	pats   [][]byte
	err    error // why NewDelimiter refused the delimiters
	set    *search.Set
	m      search.Matcher
	maxLen int
	tail   []byte // scratch: the last maxLen-1 readable bytes

	// The matcher's state, in its offsets (0 at its last Reset).
	base int          // the reader
	fed  int          // the end of what it was fed
	best search.Match // the earliest-starting match fed (first pattern at ties)
	have bool         // best is set

	pos        int64 // stream offset of the reader
	discarding bool
	start      int64 // stream offset of the too-long frame
	lender
	// With at most two distinct first bytes among the delimiters, Each
	// finds candidates with masks of those bytes (first1, first2) and
	// checks the delimiters at each, in order.
	maskable       bool
	first1, first2 byte
}

// NewDelimiter returns a decoder for frames ended by any of delimiters, in
// order of precedence. It copies them. With no delimiters, or an empty
// one, the decoder it returns refuses to decode (see Validate).
func NewDelimiter(delimiters ...[]byte) *Delimiter {
	if len(delimiters) == 0 {
		return &Delimiter{err: fmt.Errorf("%w: NewDelimiter without delimiters", ErrConfig)}
	}
	d := &Delimiter{pats: make([][]byte, len(delimiters))}
	for i, p := range delimiters {
		if len(p) == 0 {
			return &Delimiter{err: fmt.Errorf("%w: NewDelimiter with an empty delimiter (delimiter %d)", ErrConfig, i)}
		}
		d.pats[i] = bytes.Clone(p)
		d.maxLen = max(d.maxLen, len(p))
	}
	d.set = search.NewSet(d.pats, search.LeftmostFirst())
	d.m = d.set.Matcher()
	d.tail = make([]byte, d.maxLen)
	var firsts []byte
	for _, p := range d.pats {
		if bytes.IndexByte(firsts, p[0]) < 0 {
			firsts = append(firsts, p[0])
		}
	}
	if len(firsts) <= 2 {
		d.maskable = true
		d.first1, d.first2 = firsts[0], firsts[len(firsts)-1]
	}
	return d
}

// Validate reports whether d can decode a stream: nil, or an error
// wrapping ErrConfig when d was not made by NewDelimiter or NewDelimiter
// refused its delimiters.
func (d *Delimiter) Validate() error {
	if d.err != nil {
		return d.err
	}
	if d.set == nil {
		return fmt.Errorf("%w: Delimiter not made by NewDelimiter", ErrConfig)
	}
	return nil
}

// Reset forgets the stream: the search state, and any too-long frame being
// discarded. The options stay.
func (d *Delimiter) Reset() {
	d.restart()
	d.pos, d.discarding, d.start = 0, false, 0
}

func (d *Delimiter) restart() {
	if d.fed == 0 && !d.have {
		return // the matcher was never fed: the fast path found the frame
	}
	d.m.Reset()
	d.base, d.fed, d.have = 0, 0, false
}

// Decode takes the next frame of in and stores it in *dst, which the
// caller then owns (see Decoder and the package doc).
func (d *Delimiter) Decode(in *buf.Composite, dst **buf.Buffer) error {
	return decode(d, in, dst)
}

// Next returns the next frame of in as Decode does, but borrowed (see the
// package doc's "Borrowing"): valid until the next call on d or on in.
func (d *Delimiter) Next(in *buf.Composite) ([]byte, error) {
	return next(d, in)
}

// Each calls f with every complete frame of in, in order, lent (see the
// package doc's "Batches"): frame is valid until f returns, and Retained
// inside f gives it as a buffer to keep. The frames f saw are consumed
// with one Discard when Each returns. It returns nil once in holds no
// complete frame, f's error if f returns one (the frame f failed on is
// consumed), a *SyntaxError for a frame it dropped (the frames before it
// went to f; call Each again to go on), or an error wrapping ErrConfig. f
// must not use in, nor d but for Retained.
func (d *Delimiter) Each(in *buf.Composite, f func(frame []byte) error) error {
	if d.set == nil {
		return d.Validate()
	}
	d.in = in
	defer d.done()
	return d.each(in, f)
}

// Retained returns the frame Each's callback is looking at as a buffer
// the caller owns and must Release: a view of the read holding it, or a
// copy when the frame straddles reads. It panics outside a callback.
func (d *Delimiter) Retained() *buf.Buffer { return d.retained() }

func (d *Delimiter) each(in *buf.Composite, f func([]byte) error) error {
	for {
		if err := d.fastEach(in, f); err != nil {
			return err
		}
		if ok, err := d.step(d, in, f); !ok || err != nil {
			return err
		}
	}
}

// fastEach lends the frames settled within the reader's component, in
// place, as fast does for one.
func (d *Delimiter) fastEach(in *buf.Composite, f func([]byte) error) error {
	if d.discarding || d.fed != d.base {
		return nil
	}
	s := in.Span(0)
	var k int
	var err error
	if d.maskable {
		k, err = d.maskEach(s, f)
	} else {
		k, err = d.findEach(s, f)
	}
	if k > 0 {
		in.Discard(k)
		d.pos += int64(k)
	}
	return err
}

// findEach lends the frames of s settled within it, found with the set's
// Find, and returns how far it consumed.
func (d *Delimiter) findEach(s []byte, f func([]byte) error) (int, error) {
	limit := capOr(d.MaxFrameLength)
	k := 0
	for k < len(s) {
		m, ok := d.set.Find(s[k:])
		if !ok || k+int(m.Start)+d.maxLen > len(s) || int(m.Start) > limit {
			break
		}
		start, end := k+int(m.Start), k+int(m.End)
		frame := s[k:end]
		if d.StripDelimiter {
			frame = s[k:start]
		}
		err := d.lend(f, frame, k)
		k = end
		if err != nil {
			return k, err
		}
	}
	return k, nil
}

// maskEach is findEach for delimiters with at most two first bytes: the
// masks of those bytes give the candidates in order, and at each the
// delimiters are tried in precedence order. It stops, leaving the rest to
// the slow path, at a frame over the cap and where a delimiter that the
// next read could complete would decide.
func (d *Delimiter) maskEach(s []byte, f func([]byte) error) (int, error) {
	limit := capOr(d.MaxFrameLength)
	k := 0
	var ms masks
	var h hits
	for base := 0; base < len(s); {
		words, covered := ms.fill(s[base:], d.first1, d.first2)
		for _, o := range h[:h.flatten(ms[:words])] {
			e := base + int(o)
			if e < k {
				continue // inside the delimiter just matched
			}
			n := d.matchAt(s, e)
			if n == 0 {
				continue
			}
			if n < 0 || e-k > limit {
				return k, nil // unsettled, or too long: the slow path
			}
			frame := s[k : e+n]
			if d.StripDelimiter {
				frame = s[k:e]
			}
			err := d.lend(f, frame, k)
			k = e + n
			if err != nil {
				return k, err
			}
		}
		base += covered
	}
	return k, nil
}

// matchAt returns the length of the delimiter that starts at s[e] and
// wins there (the first listed of those that match), 0 when none
// matches, or -1 when one listed before any match runs past the end of s
// matching so far: the next read decides.
func (d *Delimiter) matchAt(s []byte, e int) int {
	t := s[e:]
	for _, p := range d.pats {
		if len(p) > len(t) {
			if bytes.HasPrefix(p, t) {
				return -1
			}
			continue
		}
		if t[0] == p[0] && bytes.Equal(t[:len(p)], p) {
			return len(p)
		}
	}
	return 0
}

func (d *Delimiter) locate(in *buf.Composite) (pre, n, post int, err error) {
	if d.set == nil {
		return 0, 0, 0, d.Validate()
	}
	limit := capOr(d.MaxFrameLength)
	for {
		n := in.Len()
		if d.fed-d.base > n {
			d.restart() // the caller consumed behind our back: search again
		}
		start, end, found := d.fast(in)
		if !found {
			start, end, found = d.slow(in, n)
		}
		if found {
			d.restart()
			if d.discarding {
				d.drop(in, end)
				d.discarding = false
				if !d.FailFast {
					return 0, 0, 0, syntaxError(d.start, ErrTooLong)
				}
				continue // reported when it began
			}
			if start > limit {
				at := d.pos
				d.drop(in, end)
				return 0, 0, 0, syntaxError(at, ErrTooLong)
			}
			d.pos += int64(end)
			if d.StripDelimiter {
				return 0, start, end - start, nil
			}
			return 0, end, 0, nil
		}
		// No delimiter settled yet. None can start before lb.
		lb := d.earliestPending(in, n)
		if d.have {
			lb = min(lb, int(d.best.Start)-d.base)
		}
		if d.discarding {
			d.drop(in, lb)
			d.base += lb
			return 0, 0, 0, ErrShort
		}
		if lb > limit {
			d.discarding, d.start = true, d.pos
			d.drop(in, lb)
			d.base += lb
			if d.FailFast {
				return 0, 0, 0, syntaxError(d.start, ErrTooLong)
			}
		}
		return 0, 0, 0, ErrShort
	}
}

// fast looks for a settled delimiter within the reader's component, in
// place: the leftmost-first match there is settled when every delimiter
// starting at or before it would end within the component too. It is
// skipped once the slow path has started on the current frame.
func (d *Delimiter) fast(in *buf.Composite) (start, end int, ok bool) {
	if d.fed != d.base || in.Len() == 0 {
		return 0, 0, false
	}
	s := in.Span(0)
	if d.maskable {
		return d.scanFirst(s)
	}
	m, ok := d.set.Find(s)
	if !ok || int(m.Start)+d.maxLen > len(s) {
		return 0, 0, false
	}
	return int(m.Start), int(m.End), true
}

// scanFirst is fast's search for delimiters with at most two first bytes:
// bytes.IndexByte finds the candidates, matchAt checks them, without the
// set's per-call set-up (a frame at a time, for Decode and Next).
func (d *Delimiter) scanFirst(s []byte) (start, end int, ok bool) {
	for off := 0; off < len(s); {
		i := bytes.IndexByte(s[off:], d.first1)
		if d.first2 != d.first1 {
			lim := len(s) - off
			if i >= 0 {
				lim = i
			}
			if j := bytes.IndexByte(s[off:off+lim], d.first2); j >= 0 {
				i = j
			}
		}
		if i < 0 {
			return 0, 0, false
		}
		e := off + i
		switch n := d.matchAt(s, e); {
		case n < 0:
			return 0, 0, false
		case n > 0:
			return e, e + n, true
		}
		off = e + 1
	}
	return 0, 0, false
}

// slowPiece is the most the slow path feeds the matcher at a time.
const slowPiece = 1024

// slow feeds the matcher the bytes not fed yet and returns the earliest
// delimiter once it is settled, in readable offsets.
func (d *Delimiter) slow(in *buf.Composite, n int) (start, end int, ok bool) {
	for d.fed-d.base < n {
		// A bounded piece at a time: once a match is found with every
		// delimiter that could start before it fed to its end, the rest
		// of a long read need not be searched for this frame.
		s := in.Span(d.fed - d.base)
		s = s[:min(len(s), slowPiece)]
		d.m.Feed(s)
		for m, ok := d.m.Next(); ok; m, ok = d.m.Next() {
			if !d.have || m.Start < d.best.Start || m.Start == d.best.Start && m.Pattern < d.best.Pattern {
				d.best, d.have = m, true
			}
		}
		d.fed += len(s)
		if d.have && int(d.best.Start)+d.maxLen <= d.fed {
			break
		}
	}
	if !d.have || !d.settled(in, n) {
		return 0, 0, false
	}
	return int(d.best.Start) - d.base, int(d.best.End) - d.base, true
}

// loadTail copies the last maxLen-1 readable bytes (or all, when fewer)
// into d.tail and returns them and the readable offset of their start.
func (d *Delimiter) loadTail(in *buf.Composite, n int) ([]byte, int) {
	lo := max(n-(d.maxLen-1), 0)
	t := d.tail[:0]
	for off := lo; off < n; {
		s := in.Span(off)
		t = append(t, s...)
		off += len(s)
	}
	return t, lo
}

// pendingAt reports the delimiters that the readable bytes from offset t to
// the end (tail[i:]) begin without completing, as a call to f per index.
func (d *Delimiter) pendingAt(tail []byte, f func(pattern int) bool) bool {
	for i, p := range d.pats {
		if len(p) > len(tail) && bytes.HasPrefix(p, tail) && f(i) {
			return true
		}
	}
	return false
}

// settled reports whether d.best is the frame's delimiter for good: no
// delimiter that the bytes not yet read could complete starts before it,
// or at its start with precedence.
func (d *Delimiter) settled(in *buf.Composite, n int) bool {
	bs := int(d.best.Start) - d.base
	if bs+d.maxLen <= n {
		return true
	}
	tail, lo := d.loadTail(in, n)
	for t := lo; t <= bs && t < n; t++ {
		if d.pendingAt(tail[t-lo:], func(i int) bool { return t < bs || i < d.best.Pattern }) {
			return false
		}
	}
	return true
}

// earliestPending returns the readable offset of the first byte where a
// delimiter begins without completing in the readable bytes, or n.
func (d *Delimiter) earliestPending(in *buf.Composite, n int) int {
	tail, lo := d.loadTail(in, n)
	for t := lo; t < n; t++ {
		if d.pendingAt(tail[t-lo:], func(int) bool { return true }) {
			return t
		}
	}
	return n
}

// drop discards n bytes that belong to no frame.
func (d *Delimiter) drop(in *buf.Composite, n int) {
	in.Discard(n)
	d.pos += int64(n)
}
