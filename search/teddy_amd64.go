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

// next returns what nextGo returns, with the widest kernel of the current
// simd level when h[i:] holds at least a whole vector of offsets.
func (t *teddy) next(h []byte, i int) int {
	w := 16
	if simd == simdAVX2 {
		w = 32
	}
	if len(h)-i < w+t.m-1 {
		return t.nextGo(h, i)
	}
	ms, r := &t.masks, h[i:]
	switch {
	case w == 32 && t.ascii:
		switch t.m {
		case 3:
			return i + teddy3AVX2ASCII(ms, r)
		case 2:
			return i + teddy2AVX2ASCII(ms, r)
		}
		return i + teddy1AVX2ASCII(ms, r)
	case w == 32:
		switch t.m {
		case 3:
			return i + teddy3AVX2(ms, r)
		case 2:
			return i + teddy2AVX2(ms, r)
		}
		return i + teddy1AVX2(ms, r)
	case t.ascii:
		switch t.m {
		case 3:
			return i + teddy3SSSE3ASCII(ms, r)
		case 2:
			return i + teddy2SSSE3ASCII(ms, r)
		}
		return i + teddy1SSSE3ASCII(ms, r)
	}
	switch t.m {
	case 3:
		return i + teddy3SSSE3(ms, r)
	case 2:
		return i + teddy2SSSE3(ms, r)
	}
	return i + teddy1SSSE3(ms, r)
}
