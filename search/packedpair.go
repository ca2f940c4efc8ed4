package search

import (
	"bytes"
	"math/bits"
)

//go:generate go run -C ../internal/asmgen ./packedpair -out ../../search/packedpair_amd64.s -stubs ../../search/packedpair_stub_amd64.go

// Work charged per candidate of the packed-pair prefilter (in haystack
// bytes the fallback would scan in the same time): finding the candidate in
// the mask and calling bytes.Equal, a few nanoseconds. A candidate that
// fails also pays a quarter of the needle's length, since bytes.Equal
// compares several bytes a cycle while the fallbacks scan about one.
const pairCandidateCost = 8

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
	work := 0
	for s := 0; s <= last; {
		m := last - s + 1
		var off int
		var mask uint64
		if simd == simdAVX2 && m >= 32 {
			off, mask = packedPairAVX2(&h[s+p.i1], &h[s+p.i2], m, p.b1, p.b2)
		} else if m >= 16 {
			off, mask = packedPairSSE2(&h[s+p.i1], &h[s+p.i2], m, p.b1, p.b2)
		} else {
			// Fewer than 16 start positions left (the AVX2 kernel scans
			// at least 32, so this is only reached after a candidate):
			// the SSE2 kernel on the last 16, without those before s.
			k := last - 15
			off, mask = packedPairSSE2(&h[k+p.i1], &h[k+p.i2], 16, p.b1, p.b2)
			mask >>= s - k
			off = 0
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
		}
	}
	return -1
}
