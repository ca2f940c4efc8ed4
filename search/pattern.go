package search

import (
	"bytes"

	"github.com/netkit/netkit/internal/rt/pairscan"
)

// Pattern is the general-purpose single-needle searcher: NewPattern picks
// the strategy, and Index always returns what bytes.Index would.
//
// Index scans with bytes.IndexByte (vectorised) for the needle's rarest
// byte, according to a static frequency rank, and checks a second rare
// byte at its offset before comparing the whole candidate with
// bytes.Equal. Every candidate that is not a match costs work; when that
// work exceeds the number of haystack bytes passed over (plus a small
// allowance), the prefilter is not paying for itself and Index finishes
// the haystack with Two-Way, so no input costs more than linear time. A
// needle of at most bruteNeedle (8) bytes finishes instead with bytes.Index
// over 64-byte windows (windowIndex), which is its vectorised brute force,
// at O(8·len(haystack)) at worst. Needles of at most shortNeedle (4) bytes
// hand over sooner, since a bytes.IndexByte call per candidate loses to
// that brute force as soon as the rarest byte is at all common.
//
// On amd64 (unless built with the purego tag), Index runs instead, for
// haystacks of at least 16 start positions, the packed-pair prefilter of
// the vector kernels (AVX2, or SSE2 on CPUs without it): the haystack
// bytes at the offsets of the needle's two rarest bytes are compared with
// them a whole vector of start positions at a time, and each position
// where both match is verified; once the pair proves common in the
// haystack, a third rare byte is compared too (package internal/rt/pairscan
// holds the prefilter, which buf's Composite.Index shares). The same
// work accounting hands over to the same fallbacks. Index, the function,
// does the same.
//
// A Pattern is immutable once built and safe for concurrent use.
type Pattern struct {
	needle []byte
	pr     pairscan.Needle // the needle's rarest bytes and their offsets
	tw     *TwoWay
	kmp    *KMP
}

// Work charged to the prefilter, in haystack bytes the fallback would scan
// in the same time: per candidate found by bytes.IndexByte (the call and
// the pair check, which cost what Two-Way spends on a dozen or more
// bytes), and per byte of the needle compared when the pair check passes.
// Needles of at most bruteNeedle and shortNeedle bytes pay more per
// candidate, since bytes.Index's brute force, their fallback, is faster
// still.
const (
	candidateCost      = 16
	bruteCandidateCost = 32
	shortCandidateCost = 64
	prefilterSlack     = 256
	shortNeedle        = 4
	bruteNeedle        = 8
)

// NewPattern returns a Pattern for needle. It keeps its own copy of needle,
// so the caller may modify needle afterwards.
func NewPattern(needle []byte) *Pattern {
	n := bytes.Clone(needle)
	p := &Pattern{tw: newTwoWay(n), kmp: newKMP(n)}
	p.rank(n)
	return p
}

// Index returns the index of the first instance of needle in haystack, or
// -1 if it is not present; an empty needle is found at 0. It is
// Pattern.Index without a Pattern: the answer is always that of
// bytes.Index, it allocates nothing, and it spends O(len(needle)) time
// choosing the needle's rare bytes on every call (and, when it falls back
// to Two-Way, preparing it). For a needle searched more than once, build a
// Pattern.
func Index(haystack, needle []byte) int {
	var p Pattern
	p.rank(needle)
	return p.Index(haystack)
}

// rank sets p's needle, without copying it, and its rare bytes.
func (p *Pattern) rank(n []byte) {
	p.needle = n
	p.pr = pairscan.Rank(n)
}

// Len returns the length of the needle.
func (p *Pattern) Len() int { return len(p.needle) }

// Index returns the index of the first instance of the needle in haystack,
// or -1 if it is not present; an empty needle is found at 0. The answer is
// always that of bytes.Index; the time is O(len(haystack)+len(needle)).
func (p *Pattern) Index(haystack []byte) int {
	h, n := haystack, len(p.needle)
	switch {
	case n == 0:
		return 0
	case n == 1:
		return bytes.IndexByte(h, p.pr.B1)
	case n > len(h):
		return -1
	case kernelsBuilt && simd != simdNone && len(h)-n+1 >= pairscan.MinStarts:
		k, resume := p.pr.Index(h, simd)
		if resume >= 0 {
			return p.fallback(h, resume, len(h)-n)
		}
		return k
	}
	last := len(h) - n // last possible start of a match
	work, cost := 0, candidateCost
	switch {
	case n <= shortNeedle:
		cost = shortCandidateCost
	case n <= bruteNeedle:
		cost = bruteCandidateCost
	}
	for s := 0; s <= last; {
		j := bytes.IndexByte(h[s+p.pr.I1:last+p.pr.I1+1], p.pr.B1)
		if j < 0 {
			return -1
		}
		s += j
		if h[s+p.pr.I2] == p.pr.B2 {
			if bytes.Equal(h[s:s+n], p.needle) {
				return s
			}
			work += n
		}
		work += cost
		s++
		if work > s+prefilterSlack {
			return p.fallback(h, s, last)
		}
	}
	return -1
}

// fallback returns the first start in s…last of h at which the needle
// occurs, or -1, in time linear in len(h)-s: by windowIndex for needles of
// at most bruteNeedle bytes, by Two-Way otherwise.
func (p *Pattern) fallback(h []byte, s, last int) int {
	if len(p.needle) <= bruteNeedle {
		return p.windowIndex(h, s, last)
	}
	tw := p.tw
	if tw == nil { // the one-shot Index: prepare Two-Way now
		var t TwoWay
		t.init(p.needle)
		tw = &t
	}
	if k := tw.Index(h[s:]); k >= 0 {
		return s + k
	}
	return -1
}

// Matcher returns a Matcher that reports every occurrence of the needle in
// a stream, overlapping ones included, at absolute stream offsets. An empty
// needle matches nothing in a stream.
//
// Matches wholly inside a chunk are found with Index, resumed one byte past
// each match, so a chunk scans at Index's speed; when matches are so dense
// that resuming would verify the same bytes again and again (the needle
// "aaaa" in "aaaa…"), the rest of the chunk is scanned by KMP, so a chunk
// costs O(len(chunk)+len(needle)) time whatever the input. Matches that
// straddle chunks are found by stepping KMP over at most the first
// len(needle)-1 bytes of the next chunk.
//
// The only state carried from one chunk to the next is the stream offset
// and the KMP state: the length of the longest needle prefix, shorter than
// the needle, that is a suffix of the stream so far. It is computed from
// the chunk's last len(needle)-1 bytes (from the whole chunk and the
// previous state when the chunk is shorter) before Next reports false, so
// no byte of an earlier chunk is buffered or read again, and the caller
// may reuse a chunk once Next has reported false for it. The matcher keeps
// a reference to the chunk until then. Feed and Next do not allocate.
func (p *Pattern) Matcher() Matcher { return &patternMatcher{p: p} }

// windowIndex returns the first start in s…last of h at which the needle
// (of at most bruteNeedle bytes) occurs, or -1. It calls bytes.Index on
// overlapping windows of windowLen bytes: on haystacks that short,
// bytes.Index goes straight to its vectorised brute force, at O(n) per
// start, instead of first trying its own first-byte heuristic, whose speed
// on the same bytes varies fivefold with the offset it starts at.
//
// 64 is bytes.Index's brute-force limit on amd64; elsewhere the windows are
// still correct, searched by whatever bytes.Index does with 64 bytes.
const windowLen = 64

func (p *Pattern) windowIndex(h []byte, s, last int) int {
	n := len(p.needle)
	for ; s <= last; s += windowLen - n + 1 {
		if k := bytes.Index(h[s:min(s+windowLen, len(h))], p.needle); k >= 0 {
			return s + k
		}
	}
	return -1
}
