package search

import "bytes"

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
// haystack, a third rare byte is compared too (see indexPacked). The same
// work accounting hands over to the same fallbacks. Index, the function,
// does the same.
//
// A Pattern is immutable once built and safe for concurrent use.
type Pattern struct {
	needle []byte
	i1, i2 int  // offsets in needle of the rarest and second-rarest bytes
	b1, b2 byte // needle[i1], needle[i2]
	i3     int  // offset of the third-rarest byte (-1 for a needle of 2 bytes)
	b3     byte // needle[i3]
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

// byteRank ranks bytes by how often they occur in typical network payloads
// — ASCII text, source code, HTTP headers, JSON — from 255 (most common) to
// 0 (rarest). It is not measured from one corpus: it is the order
//
//	space, the lower-case letters by English frequency (e t a o i n s r h l
//	d c u m f p g w y b v k x j q z), newline and the punctuation and
//	digits of code and headers (. , / " = : - _ ( ) 0 ; 1 ' tab 2 < >),
//	upper-case letters by frequency, CR, remaining digits and punctuation,
//	NUL and 0xFF (common in binary), UTF-8 lead bytes of Latin and
//	punctuation text (0xC3, 0xE2) and continuation bytes 0x80–0xBF, other
//	lead bytes, and last the remaining control bytes,
//
// written out as ranks. Only the order matters: it decides which needle
// byte is searched for with bytes.IndexByte.
var byteRank = [256]uint8{
	157, 76, 75, 22, 74, 21, 20, 19, 73, 213, 228, 18, 17, 194, 16, 15, // 0x00
	72, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, // 0x10
	255, 166, 224, 181, 163, 165, 180, 214, 219, 218, 186, 168, 226, 221, 227, 225, // 0x20
	217, 215, 212, 191, 188, 187, 184, 183, 182, 185, 222, 216, 211, 223, 210, 167, // 0x30
	164, 207, 179, 201, 200, 209, 195, 177, 196, 206, 171, 173, 199, 197, 202, 204, // 0x40
	198, 170, 203, 205, 208, 178, 175, 176, 172, 174, 169, 190, 161, 189, 160, 220, // 0x50
	158, 252, 235, 243, 244, 254, 240, 238, 246, 250, 231, 233, 245, 241, 249, 251, // 0x60
	239, 230, 247, 248, 253, 242, 234, 237, 232, 236, 229, 193, 162, 192, 159, 71, // 0x70
	155, 152, 151, 150, 149, 148, 147, 146, 145, 144, 143, 142, 141, 140, 139, 138, // 0x80
	137, 136, 135, 134, 133, 132, 131, 130, 129, 128, 127, 126, 125, 124, 123, 122, // 0x90
	121, 120, 119, 118, 117, 116, 115, 114, 113, 112, 111, 110, 109, 108, 107, 106, // 0xa0
	105, 104, 103, 102, 101, 100, 99, 98, 97, 96, 95, 94, 93, 92, 91, 90, // 0xb0
	68, 67, 89, 154, 88, 87, 66, 65, 64, 63, 62, 61, 60, 59, 58, 57, // 0xc0
	86, 85, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, // 0xd0
	42, 41, 153, 84, 83, 82, 81, 80, 79, 78, 40, 39, 38, 37, 36, 77, // 0xe0
	69, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 70, 156, // 0xf0
}

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

// rank sets p's needle, without copying it, and its rarest and
// second-rarest bytes.
func (p *Pattern) rank(n []byte) {
	p.needle = n
	if len(n) == 0 {
		return
	}
	for i, c := range n {
		if byteRank[c] < byteRank[n[p.i1]] {
			p.i1 = i
		}
	}
	p.i2 = -1
	for i, c := range n {
		if i != p.i1 && (p.i2 < 0 || byteRank[c] < byteRank[n[p.i2]]) {
			p.i2 = i
		}
	}
	if p.i2 < 0 {
		p.i2 = p.i1 // one-byte needle: the pair check is the byte itself
	}
	p.b1, p.b2 = n[p.i1], n[p.i2]
	p.i3 = -1
	for i, c := range n {
		if i != p.i1 && i != p.i2 && (p.i3 < 0 || byteRank[c] < byteRank[n[p.i3]]) {
			p.i3 = i
		}
	}
	if p.i3 >= 0 {
		p.b3 = n[p.i3]
	}
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
		return bytes.IndexByte(h, p.b1)
	case n > len(h):
		return -1
	case kernelsBuilt && simd != simdNone && len(h)-n >= 15:
		return p.indexPacked(h)
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
		j := bytes.IndexByte(h[s+p.i1:last+p.i1+1], p.b1)
		if j < 0 {
			return -1
		}
		s += j
		if h[s+p.i2] == p.b2 {
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
