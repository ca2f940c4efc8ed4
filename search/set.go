package search

import (
	"bytes"
	"iter"
)

// A SetOption configures NewSet and NewAhoCorasick.
type SetOption func(*setConfig)

type matchKind uint8

const (
	leftmostFirst matchKind = iota
	leftmostLongest
	overlapping
)

type setConfig struct {
	kind matchKind
	fold bool
}

// LeftmostFirst makes Find and All report, among the matches that start at
// the leftmost position, the one of the pattern given first, as regexp
// alternation does; All then continues after that match. It is the
// default.
func LeftmostFirst() SetOption { return func(c *setConfig) { c.kind = leftmostFirst } }

// LeftmostLongest makes Find and All report, among the matches that start
// at the leftmost position, the longest one (the pattern given first among
// equal patterns); All then continues after that match.
func LeftmostLongest() SetOption { return func(c *setConfig) { c.kind = leftmostLongest } }

// Overlapping makes Find and All report every occurrence of every pattern,
// in order of end offset and, among matches that end at the same offset,
// longest first (the pattern given first among equal patterns). Find
// reports the first of them: the match that ends first.
func Overlapping() SetOption { return func(c *setConfig) { c.kind = overlapping } }

// ASCIICaseInsensitive makes the patterns match regardless of the case of
// ASCII letters: "Go" matches "go", "GO" and "gO". Other bytes, including
// non-ASCII letters, must match exactly.
func ASCIICaseInsensitive() SetOption { return func(c *setConfig) { c.fold = true } }

// A Set finds many patterns in one pass over the haystack. It is built on
// an AhoCorasick automaton, and skips from one candidate start to the next
// instead of stepping the automaton through bytes that cannot begin a
// match: for sets of up to 64 patterns on amd64, with the Teddy vector
// prefilter (AVX2, or SSSE3 at the SSE2 level), which tests up to the
// first four bytes of every pattern at 32 or 16 offsets at once, then
// the first eight bytes of the patterns that may begin at each candidate;
// otherwise, when the patterns begin with at most three distinct bytes
// (counting both cases of a letter under ASCIICaseInsensitive), with
// bytes.IndexByte. The automaton confirms each candidate, so the matches
// are the same with or without a prefilter. When candidates turn out so
// dense that the skips average fewer than 16 bytes, the search stops
// skipping and steps the automaton, so a common first byte costs little
// more than no prefilter.
//
// NewSet panics if a pattern is empty: an empty pattern would match at
// every offset. A Set built from no patterns never matches.
//
// A Set is immutable once built and safe for concurrent use.
type Set struct {
	a  *AhoCorasick
	pf *prefilter // nil when the patterns begin with too many distinct bytes
	tf *prefilter // Teddy's; nil for no patterns or more than 64
}

// NewSet builds a Set of needles, which it copies. The match kind is
// LeftmostFirst unless an option says otherwise.
func NewSet(needles [][]byte, opts ...SetOption) *Set {
	a := NewAhoCorasick(needles, opts...)
	s := &Set{a: a, pf: newPrefilter(needles, a.fold)}
	if t := newTeddy(needles, a.fold); t != nil {
		s.tf = &prefilter{t: t}
	}
	return s
}

// prefilter returns the prefilter of a search: Teddy's where its kernels
// run, else the byte prefilter (nil when there is none).
func (s *Set) prefilter() *prefilter {
	if s.tf != nil && teddyOn() {
		return s.tf
	}
	return s.pf
}

// Len returns the number of patterns in the set.
func (s *Set) Len() int { return s.a.Len() }

// MaxLen returns the length of the longest pattern (0 for no patterns).
func (s *Set) MaxLen() int { return s.a.maxLen }

// Find returns the first match in haystack for the set's match kind (see
// LeftmostFirst, LeftmostLongest and Overlapping), or false when there is
// none. It allocates nothing. It takes O(len(haystack)) time for
// Overlapping; for the leftmost kinds, O(len(haystack)) plus the length of
// the longest pattern prefix that is alive at the match.
func (s *Set) Find(haystack []byte) (Match, bool) {
	return s.a.find(haystack, s.prefilter())
}

// All returns the successive matches in haystack: non-overlapping and left
// to right for the leftmost kinds (each search resumes where the previous
// match ended), every occurrence for Overlapping. A complete range loop
// over it allocates nothing.
func (s *Set) All(haystack []byte) iter.Seq[Match] {
	return func(yield func(Match) bool) { s.a.all(haystack, s.prefilter(), yield) }
}

// Matcher returns a Matcher over the set.
//
// Whatever the match kind, the Matcher reports every occurrence of every
// pattern, as Overlapping does, in order of end offset (longest first at
// equal ends). Leftmost semantics are not applied across chunks: a match
// that could still be extended or preceded by data not yet fed would
// require holding matches back until the stream proves them final, so a
// caller that wants leftmost matches filters the overlapping ones itself.
// The state that crosses a chunk boundary is one automaton state (a few
// bytes); no stream data is buffered, so the chunk may be reused once Next
// has reported false.
func (s *Set) Matcher() Matcher { return &acMatcher{a: s.a, pf: s.prefilter()} }

// A prefilter finds the offsets where a match can begin: those of the
// bytes b[:n] (at most 3) that begin the patterns, or, when t is not nil,
// Teddy's candidates.
type prefilter struct {
	n int
	b [3]byte
	t *teddy
}

// pfState is the prefilter's state during one search. next remembers, per
// prefilter byte, its next offset in the haystack at or after some earlier
// position (len(haystack) when there is none; -1 when unknown), so that a
// rare byte is not searched for again from every candidate of a frequent
// one. calls and skipped count the prefilter's calls and the bytes they
// skipped: when candidates are so dense that a call skips fewer than
// pfMinSkip bytes on average, stepping the automaton is cheaper, and off
// turns the prefilter off for the rest of the search.
type pfState struct {
	next           [3]int
	calls, skipped int
	off            bool

	// The lanes of scanLanes: calls and the bytes they advanced, and
	// whether they are turned off.
	laneCalls, laneAdvance int
	lanesOff               bool

	// Teddy's candidates of the last kernel call, from tFrom: bit b of
	// word j for offset tBase+64j+b, for the words j whose bit is set in
	// tSum (the others hold none); none in [tFrom, tEnd) but those. The
	// words are tBuf's after a batch kernel, else tBlock is word 0.
	// Without tBuf (a short haystack, which the search need not zero 512
	// bytes for), next uses the block kernels only.
	tFrom, tBase, tEnd int
	tSum, tBlock       uint64
	tBatch             bool
	tBuf               *[64]uint64
	// Whether the batch kernels test the fingerprint's whole bytes, and
	// the candidates they found and the offsets they examined while they
	// were lean (see teddyDense).
	tFull            bool
	tCands, tScanned int
}

const pfMinSkip = 16

// pfUnknown is pfState.next at the start of a search.
var pfUnknown = [3]int{-1, -1, -1}

// teddyBuffered reports whether a search of h with pf gives Teddy's batch
// kernels a candidate buffer (pfState.tBuf): when h is long enough for
// them.
func (p *prefilter) teddyBuffered(h []byte) bool {
	return p != nil && p.t != nil && len(h) >= teddyBatchMin
}

func newPrefilter(needles [][]byte, fold bool) *prefilter {
	var seen [256]bool
	var p prefilter
	add := func(c byte) bool {
		if seen[c] {
			return true
		}
		if p.n == len(p.b) {
			return false
		}
		seen[c] = true
		p.b[p.n] = c
		p.n++
		return true
	}
	for _, n := range needles {
		c := n[0]
		if fold && isASCIILetter(c) {
			if !add(c|0x20) || !add(c&^0x20) {
				return nil
			}
		} else if !add(c) {
			return nil
		}
	}
	if p.n == 0 {
		return nil
	}
	return &p
}

// next returns the first offset at or after i of a byte that can begin a
// match, or len(h); Teddy's next may return an earlier offset (see
// teddy.next), from which the automaton steps.
func (p *prefilter) next(h []byte, i int, m *pfState) int {
	if p.t != nil {
		return p.t.next(h, i, m)
	}
	best := len(h)
	for j := range p.n {
		if m.next[j] < i {
			k := bytes.IndexByte(h[i:], p.b[j])
			if k < 0 {
				m.next[j] = len(h)
			} else {
				m.next[j] = i + k
			}
		}
		best = min(best, m.next[j])
	}
	return best
}

func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
