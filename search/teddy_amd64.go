//go:build amd64 && !purego

package search

import "golang.org/x/sys/cpu"

// hasSSSE3 reports whether the 16-byte Teddy kernels can run: PSHUFB is
// SSSE3. Tests clear it to check the fallback.
var hasSSSE3 = cpu.X86.HasSSSE3

// teddyOn reports whether Sets use their Teddy prefilter at the current
// simd level: with AVX2, or at the SSE2 level when the CPU has SSSE3.
func teddyOn() bool {
	return simd == simdAVX2 || simd == simdSSE2 && hasSSSE3
}

// block returns the first block of candidates at or after i, as blockGo
// does (the mask from a block's start, not from the first candidate), with
// the widest kernel of the current simd level when h[i:] holds at least a
// whole vector of offsets. The kernel has examined every offset below end:
// its main loop examines two vectors of offsets at base (2w offsets) while
// they fit in the n = len(h)-m+1 offsets of h, then one vector at a time
// while one fits, then the rest, up to n.
func (t *teddy) block(h []byte, i int) (base int, mask uint64, end int) {
	w := 16
	if simd == simdAVX2 {
		w = 32
	}
	if len(h)-i < w+t.m-1 {
		return t.blockGo(h, i)
	}
	var off int
	ms, r := &t.masks, h[i:]
	switch {
	case w == 32 && t.ascii:
		switch t.m {
		case 4:
			off, mask = teddy4AVX2ASCII(ms, r)
		case 3:
			off, mask = teddy3AVX2ASCII(ms, r)
		case 2:
			off, mask = teddy2AVX2ASCII(ms, r)
		default:
			off, mask = teddy1AVX2ASCII(ms, r)
		}
	case w == 32:
		switch t.m {
		case 4:
			off, mask = teddy4AVX2(ms, r)
		case 3:
			off, mask = teddy3AVX2(ms, r)
		case 2:
			off, mask = teddy2AVX2(ms, r)
		default:
			off, mask = teddy1AVX2(ms, r)
		}
	case t.ascii:
		switch t.m {
		case 4:
			off, mask = teddy4SSSE3ASCII(ms, r)
		case 3:
			off, mask = teddy3SSSE3ASCII(ms, r)
		case 2:
			off, mask = teddy2SSSE3ASCII(ms, r)
		default:
			off, mask = teddy1SSSE3ASCII(ms, r)
		}
	default:
		switch t.m {
		case 4:
			off, mask = teddy4SSSE3(ms, r)
		case 3:
			off, mask = teddy3SSSE3(ms, r)
		case 2:
			off, mask = teddy2SSSE3(ms, r)
		default:
			off, mask = teddy1SSSE3(ms, r)
		}
	}
	base = i + off
	switch n := len(h) - t.m + 1; {
	case base+2*w <= n:
		end = base + 2*w
	case base+w <= n:
		end = base + w
	default:
		end = n
	}
	return base, mask, end
}

// batch examines the offsets of h from i in whole words of 64 with the
// batch kernel of the current simd level for the first m bytes of the
// fingerprint (m at most t.m: the masks of the first m bytes are those of
// an m-byte fingerprint), with only the low-nibble masks of all bytes but
// the first when lean (m 3 or 4): it writes to out[j] the candidate mask
// of the offsets i+64j to i+64j+63, for the words j whose bit is set in
// sum, and returns words = min(64, (len(h)-i-m+1)/64), the number of words
// examined. It needs len(h)-i >= 64+m-1.
func (t *teddy) batch(h []byte, i, m int, lean bool, out *[64]uint64) (words int, sum uint64) {
	ms, r := &t.masks, h[i:]
	avx2 := simd == simdAVX2
	if lean {
		switch {
		case avx2 && t.ascii && m == 4:
			return teddyLean4AVX2ASCII(ms, r, out)
		case avx2 && t.ascii:
			return teddyLean3AVX2ASCII(ms, r, out)
		case avx2 && m == 4:
			return teddyLean4AVX2(ms, r, out)
		case avx2:
			return teddyLean3AVX2(ms, r, out)
		case t.ascii && m == 4:
			return teddyLean4SSSE3ASCII(ms, r, out)
		case t.ascii:
			return teddyLean3SSSE3ASCII(ms, r, out)
		case m == 4:
			return teddyLean4SSSE3(ms, r, out)
		default:
			return teddyLean3SSSE3(ms, r, out)
		}
	}
	switch {
	case avx2 && t.ascii:
		switch m {
		case 4:
			return teddyBatch4AVX2ASCII(ms, r, out)
		case 3:
			return teddyBatch3AVX2ASCII(ms, r, out)
		case 2:
			return teddyBatch2AVX2ASCII(ms, r, out)
		default:
			return teddyBatch1AVX2ASCII(ms, r, out)
		}
	case avx2:
		switch m {
		case 4:
			return teddyBatch4AVX2(ms, r, out)
		case 3:
			return teddyBatch3AVX2(ms, r, out)
		case 2:
			return teddyBatch2AVX2(ms, r, out)
		default:
			return teddyBatch1AVX2(ms, r, out)
		}
	case t.ascii:
		switch m {
		case 4:
			return teddyBatch4SSSE3ASCII(ms, r, out)
		case 3:
			return teddyBatch3SSSE3ASCII(ms, r, out)
		case 2:
			return teddyBatch2SSSE3ASCII(ms, r, out)
		default:
			return teddyBatch1SSSE3ASCII(ms, r, out)
		}
	default:
		switch m {
		case 4:
			return teddyBatch4SSSE3(ms, r, out)
		case 3:
			return teddyBatch3SSSE3(ms, r, out)
		case 2:
			return teddyBatch2SSSE3(ms, r, out)
		default:
			return teddyBatch1SSSE3(ms, r, out)
		}
	}
}
