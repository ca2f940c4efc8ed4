package search

import (
	"bytes"
	"math/bits"
)

//go:generate go run -C ../internal/asmgen ./packedpair -out ../../search/packedpair_amd64.s -stubs ../../search/packedpair_stub_amd64.go

// Work charged per candidate of the packed-pair prefilter (in haystack
// bytes the fallback would scan in the same time): finding the candidate in
// the mask and calling bytes.Equal. A candidate that
// fails also pays a quarter of the needle's length, since bytes.Equal
// compares several bytes a cycle while the fallbacks scan about one.
const pairCandidateCost = 8

// indexPacked compares a third byte of the needle too (the triple kernels)
// once more than tripleCandidates candidates have come at least one every
// tripleSpacing bytes on average: the needle's two rarest bytes are then
// common in this haystack (two common letters of a short needle in text,
// "64" in Go source), and each candidate, which costs a return from the
// kernel and a mispredicted branch or two, outweighs the third vector
// load and compare that removes most of them. While candidates are rarer,
// the pair alone scans faster.
const (
	tripleCandidates = 16
	tripleSpacing    = 1024
)

// indexPacked is Pattern.Index with the packed-pair prefilter of the
// vector kernels (simd is not simdNone): it needs len(p.needle) ≥ 2 and
// len(h)-len(p.needle)+1 ≥ 16 start positions.
//
// A kernel compares, a whole vector of start positions at a time, the
// haystack bytes at the needle's offsets i1 and i2 with b1 and b2, and
// returns the first block that holds a candidate as a mask; each candidate
// is compared with the needle, and the kernel is called again after the
// last candidate of the block. Fewer than a vector's worth of start
// positions at the end are handled by the kernel itself (with a last
// vector overlapping the ones before), so nothing past h is read. As in
// the scalar Index, the work spent on candidates that fail is charged, and
// once it exceeds the positions passed over (plus prefilterSlack) the rest
// of h is searched by the fallback, so the time stays linear.
func (p *Pattern) indexPacked(h []byte) int {
	n := len(p.needle)
	last := len(h) - n
	work, cands, triple := 0, 0, false
	for s := 0; s <= last; {
		var off int
		var mask uint64
		if m := last - s + 1; m >= 16 {
			off, mask = p.scan(h, s, m, triple)
		} else {
			// Fewer than 16 start positions left (only after a
			// candidate, since indexPacked needs 16): the last 16,
			// without those before s.
			k := last - 15
			_, mask = p.scan(h, k, 16, triple)
			mask >>= s - k
		}
		if mask == 0 {
			return -1
		}
		base := s + off
		s = base + 64 - bits.LeadingZeros64(mask) // past the last candidate
		for ; mask != 0; mask &= mask - 1 {
			k := base + bits.TrailingZeros64(mask)
			if bytes.Equal(h[k:k+n], p.needle) {
				return k
			}
			work += pairCandidateCost + n/4
			if work > k+prefilterSlack {
				return p.fallback(h, k+1, last)
			}
			cands++
		}
		if !triple && p.i3 >= 0 && cands > tripleCandidates && cands*tripleSpacing > s {
			triple = true
		}
	}
	return -1
}

// scan runs the widest kernel that fits m ≥ 16 start positions from s of
// h: the triple kernel (comparing p.b3 at p.i3 too) when triple is set,
// the pair kernel otherwise.
func (p *Pattern) scan(h []byte, s, m int, triple bool) (off int, mask uint64) {
	avx2 := simd == simdAVX2 && m >= 32
	if triple {
		a, b, c := &h[s+p.i1], &h[s+p.i2], &h[s+p.i3]
		if avx2 {
			return packedTripleAVX2(a, b, c, m, p.b1, p.b2, p.b3)
		}
		return packedTripleSSE2(a, b, c, m, p.b1, p.b2, p.b3)
	}
	a, b := &h[s+p.i1], &h[s+p.i2]
	if avx2 {
		return packedPairAVX2(a, b, m, p.b1, p.b2)
	}
	return packedPairSSE2(a, b, m, p.b1, p.b2)
}
