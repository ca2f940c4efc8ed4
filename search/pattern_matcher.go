package search

// patternMatcher is Pattern's streaming matcher. Each chunk is scanned in
// up to three phases, in order of end offset:
//
//   - straddle: KMP steps from the carried state over the first bytes of
//     the chunk while the needle prefix it has matched began in an earlier
//     chunk (state > bytes stepped), so at most len(needle)-1 bytes; it
//     reports the matches that straddle the boundary.
//   - prefilter: Pattern.Index, resumed one byte past each match so that
//     overlapping matches are found, reports the matches wholly inside the
//     chunk. Each match found is charged work (see matchWork), and once
//     the charges exceed the bytes passed over plus streamSlack (dense or
//     periodic matches, as needle "aaaa" in "aaaa…", where resuming one
//     byte on would verify the same bytes again), the chunk is finished by
//   - kmp: KMP steps from the state just after the last match reported,
//     so the chunk costs linear time whatever the matches.
//
// The KMP state at the end of the chunk, the only state carried to the
// next besides the stream offset, is computed from the chunk's last bytes
// once it has been scanned (see settle), so no phase needs to scan the
// chunk to its end.
type patternMatcher struct {
	stream
	p     *Pattern
	phase uint8
	state int // KMP state at the start of chunk, then (phaseDone) at its end
	kst   int // KMP state at pos in phases straddle and kmp
	work  int // work charged to the prefilter in this chunk
}

// The phases of patternMatcher in the order they scan a chunk, after
// phaseDone: the chunk has been scanned to its end (or there is none, or
// the needle is empty), which as the zero value makes a matcher that was
// not yet fed report nothing.
const (
	phaseDone = iota
	phaseStraddle
	phasePrefilter
	phaseKMP
)

// Work charged to the prefilter per match, in chunk bytes the KMP fallback
// scans in the same time: matchWork for the Pattern.Index call that found
// it, and one per matchWorkDiv needle bytes it verified with bytes.Equal
// (roughly the ratios of their costs to KMP's per byte where the needle's
// prefixes keep matching). The prefilter hands over to KMP once its
// charges exceed the bytes passed over plus streamSlack, so matches closer
// than about matchWork bytes apart are left to KMP. The time stays linear: each charge pays for an Index call
// that costs O(the bytes it passed over + len(needle)) plus a constant.
const (
	matchWork    = 8
	matchWorkDiv = 64
	streamSlack  = 256
)

// Feed implements Matcher.Feed. A chunk that Next did not scan to its end
// is settled first, so that, as for stream.Feed, all of it counts.
func (m *patternMatcher) Feed(chunk []byte) {
	if m.phase != phaseDone {
		m.settle()
	}
	m.stream.Feed(chunk)
	m.kst, m.work, m.phase = m.state, 0, phaseStraddle
	if len(m.p.needle) == 0 {
		m.phase = phaseDone
	}
}

// settle sets state, the KMP state at the start of the chunk, to the KMP
// state at its end: the length of the longest needle prefix shorter than
// the needle that is a suffix of the stream, which depends only on the
// last len(needle)-1 bytes of the stream. So a chunk at least that long is
// stepped over its last len(needle)-1 bytes from state 0, and a shorter
// one whole from the state at its start. It runs once the chunk has been
// scanned, when its last bytes are in cache.
func (m *patternMatcher) settle() {
	k := m.p.kmp
	n := len(k.needle)
	h, st := m.chunk, m.state
	if len(h) >= n-1 {
		h, st = h[len(h)-(n-1):], 0
	}
	for i := 0; i < len(h); {
		if i, st = k.step(h, i, st); st == n {
			st = int(k.fail[n-1])
		}
	}
	m.state = st
}

func (m *patternMatcher) Next() (Match, bool) {
	k := m.p.kmp
	n := len(k.needle)
	c := m.chunk
	switch m.phase {
	case phaseStraddle:
		// While kst > pos, the needle prefix matched began before the
		// chunk; kst grows by at most one per byte, so once kst <= pos no
		// match can straddle the boundary, and that holds from pos =
		// n-1 on since kst < n.
		st, i := m.kst, m.pos
		for st > i && i < len(c) {
			b := c[i]
			i++
			for st > 0 && k.needle[st] != b {
				st = int(k.fail[st-1])
			}
			if k.needle[st] == b {
				st++
			}
			if st == n {
				m.kst, m.pos = int(k.fail[n-1]), i
				end := m.base + int64(i)
				return Match{Start: end - int64(n), End: end}, true
			}
		}
		// Every match still to report lies wholly inside the chunk.
		m.phase, m.pos = phasePrefilter, 0
		fallthrough
	case phasePrefilter:
		j := m.p.Index(c[m.pos:])
		if j < 0 {
			break
		}
		s := m.pos + j
		m.pos = s + 1
		m.work += matchWork + n/matchWorkDiv
		if m.work > m.pos+streamSlack {
			// The match just verified leaves KMP in state fail[n-1]
			// after it, with no match starting inside it missed.
			m.phase, m.pos, m.kst = phaseKMP, s+n, int(k.fail[n-1])
		}
		start := m.base + int64(s)
		return Match{Start: start, End: start + int64(n)}, true
	case phaseKMP:
		i, st := k.step(c, m.pos, m.kst)
		if st == n {
			m.pos, m.kst = i, int(k.fail[n-1])
			end := m.base + int64(i)
			return Match{Start: end - int64(n), End: end}, true
		}
		// KMP scanned from a match, where its state was the stream's, to
		// the end of the chunk: no need to settle.
		m.state, m.phase = st, phaseDone
	}
	if m.phase != phaseDone {
		m.settle()
		m.phase = phaseDone
	}
	m.drained()
	return Match{}, false
}

func (m *patternMatcher) Reset() { *m = patternMatcher{p: m.p} }
