package search

// Buffered lanes for All. The lanes of scanLanes stop at the first match,
// so they pay only when matches are far apart (they turn themselves off
// when the average distance falls under laneMinAvg); on text where matches
// come every few hundred bytes, All stepped one byte after the other, one
// dependent load per byte. acEvents instead lets the lanes run through
// their whole segments and record each event, an offset where the single
// pass from the start of the haystack enters a state with outputs,
// together with that state. The events of a block are exactly those of the
// single pass (the lanes' warm-ups make each lane's state that of the
// single pass from its segment's first byte, see scanLanes), so:
//
//   - Overlapping: the matches are the outputs of each event's state, in
//     order of events.
//   - Leftmost: after a match, the search restarts at its end from the
//     root. The restarted pass's state r after some offset j is the longest
//     suffix of h[at:j] that is a prefix of a pattern, the single pass's
//     state L the longest suffix of h[:j]; so r is a suffix of L, and r has
//     outputs only where L has (an output of r is one of L): the restarted
//     pass reaches a state with outputs only at an event. At an event whose
//     state has a depth of at most j-at, r is L itself; otherwise r is
//     computed by stepping from at, fewer than MaxLen bytes.
//
// A lane records at most evCap events per block; when one is full, the
// block stops there, only the first lane's events are kept, and the next
// blocks use shorter segments; when they are already laneMin bytes long,
// the lanes are given up and one pass fills the whole buffer.

// acEvent is an offset just after a byte where the single pass enters a
// state with outputs, and that (pre-multiplied) state.
type acEvent struct {
	end int
	s   uint32
}

// evCap is the number of events one lane records per block.
const evCap = 64

// acEvents produces the events of one haystack in order, a block at a
// time. It lives on the stack of All: no allocation.
type acEvents struct {
	a      *AhoCorasick
	h      []byte
	pos    int        // the events up to pos are produced
	s      uint32     // the single pass's state at pos
	n      int        // segment length of the next block of lanes
	off    bool       // the lanes do not pay: one lane fills the buffer
	lo, hi int        // ev[lo:hi] are produced and not yet consumed
	cnt    [lanes]int // during block: events per lane
	ev     [lanes * evCap]acEvent
}

func (e *acEvents) init(a *AhoCorasick, h []byte) {
	e.a, e.h, e.n = a, h, laneMax
}

// next returns the next event, or false when there are no more.
func (e *acEvents) next() (acEvent, bool) {
	for e.lo == e.hi {
		if e.pos == len(e.h) {
			return acEvent{}, false
		}
		e.fill()
	}
	v := e.ev[e.lo]
	e.lo++
	return v, true
}

// fill produces the events of the next block: four lanes over segments of
// e.n bytes when enough haystack is left, one lane otherwise, which stops
// when the buffer is full.
func (e *acEvents) fill() {
	a, h := e.a, e.h
	e.lo, e.hi = 0, 0
	if !e.off && len(h)-e.pos >= lanes*(a.maxLen+laneMin) {
		e.block(min((len(h)-e.pos)/lanes, max(e.n, a.maxLen)))
		return
	}
	trans, cls, minMatch := a.trans, &a.classes, a.minMatch
	s, i, k := e.s, e.pos, 0
	for i < len(h) {
		s = trans[s+uint32(cls[h[i]])]
		i++
		if s >= minMatch {
			e.ev[k] = acEvent{end: i, s: s}
			if k++; k == len(e.ev) {
				break
			}
		}
	}
	e.pos, e.s, e.hi = i, s, k
}

// block runs the lanes over the segments of n bytes that begin at e.pos,
// e.pos+n, …, the first from e.s, each recording its events in its part of
// e.ev, and leaves the events of the block in order in e.ev[:e.hi].
func (e *acEvents) block(n int) {
	a, h := e.a, e.h
	trans, cls, minMatch := a.trans, &a.classes, a.minMatch
	w := a.maxLen - 1
	i := e.pos
	s1, s2, s3 := uint32(0), uint32(0), uint32(0)
	{
		// Warm-ups, interleaved; their events belong to the lane before.
		w1, w2, w3 := h[i+n-w:i+n], h[i+2*n-w:i+2*n], h[i+3*n-w:i+3*n]
		w2, w3 = w2[:len(w1)], w3[:len(w1)]
		for t := range w1 {
			s1 = trans[s1+uint32(cls[w1[t]])]
			s2 = trans[s2+uint32(cls[w2[t]])]
			s3 = trans[s3+uint32(cls[w3[t]])]
		}
	}
	s0 := e.s
	h0, h1, h2, h3 := h[i:i+n], h[i+n:i+2*n], h[i+2*n:i+3*n], h[i+3*n:i+4*n]
	h1, h2, h3 = h1[:len(h0)], h2[:len(h0)], h3[:len(h0)]
	e.cnt = [lanes]int{}
	t := 0
	for ; t < len(h0); t++ {
		s0 = trans[s0+uint32(cls[h0[t]])]
		s1 = trans[s1+uint32(cls[h1[t]])]
		s2 = trans[s2+uint32(cls[h2[t]])]
		s3 = trans[s3+uint32(cls[h3[t]])]
		if s0 >= minMatch || s1 >= minMatch || s2 >= minMatch || s3 >= minMatch {
			if e.record(t, len(h0), s0, s1, s2, s3) {
				break
			}
		}
	}
	c := &e.cnt
	if t < len(h0) {
		// A lane is full: keep the first lane's events, up to its
		// offset t, and make the next segments shorter, or give the
		// lanes up when they are already as short as they go.
		e.pos, e.s, e.hi = i+t+1, s0, c[0]
		if e.n <= laneMin {
			e.off = true
		}
		e.n = max(laneMin, e.n/2)
		return
	}
	ev := &e.ev
	k := c[0]
	k += copy(ev[k:], ev[evCap:evCap+c[1]])
	k += copy(ev[k:], ev[2*evCap:2*evCap+c[2]])
	k += copy(ev[k:], ev[3*evCap:3*evCap+c[3]])
	e.pos, e.s, e.hi = i+lanes*n, s3, k
	if max(c[0], c[1], c[2], c[3]) < evCap/4 {
		e.n = min(laneMax, 2*e.n)
	}
}

// allOverlapping reports the overlapping matches in h from its events.
func (a *AhoCorasick) allOverlapping(h []byte, yield func(Match) bool) {
	var e acEvents
	e.init(a, h)
	for {
		v, ok := e.next()
		if !ok {
			return
		}
		for o := a.head[v.s/a.stride]; o != 0; {
			out := &a.outs[o-1]
			if !yield(Match{Start: int64(v.end - int(out.len)), End: int64(v.end), Pattern: int(out.pat)}) {
				return
			}
			o = out.next
		}
	}
}

// allLeftmost reports the leftmost matches in h from its events.
func (a *AhoCorasick) allLeftmost(h []byte, yield func(Match) bool) {
	var e acEvents
	e.init(a, h)
	trans, cls, minMatch := a.trans, &a.classes, a.minMatch
	for at := 0; ; {
		// The restarted pass from at, r at offset j, stepped only when
		// an event is too close to at for r to be the event's state.
		r, j := uint32(0), at
		var v acEvent
		for {
			var ok bool
			if v, ok = e.next(); !ok {
				return
			}
			if v.end <= at {
				continue
			}
			if v.end-at >= int(a.depth[v.s/a.stride]) {
				break
			}
			for ; j < v.end; j++ {
				r = trans[r+uint32(cls[h[j]])]
			}
			if r >= minMatch {
				v.s = r
				break
			}
		}
		m := a.extend(h, v.end, v.s)
		if !yield(m) {
			return
		}
		at = int(m.End)
	}
}

// record notes the events of the lanes of block at offset t of their
// segments of n bytes, each lane's in its part of e.ev, and reports whether
// a lane's part is full. It is out of block's loop so that the loop keeps
// the lanes' states in registers (inlined, its counters and offsets were
// spilled and reloaded on every byte, in the loads' dependency chain).
//
//go:noinline
func (e *acEvents) record(t, n int, s0, s1, s2, s3 uint32) bool {
	full := false
	for k, s := range [lanes]uint32{s0, s1, s2, s3} {
		if s >= e.a.minMatch {
			c := e.cnt[k]
			e.ev[k*evCap+c] = acEvent{end: e.pos + k*n + t + 1, s: s}
			e.cnt[k] = c + 1
			full = full || c+1 == evCap
		}
	}
	return full
}
