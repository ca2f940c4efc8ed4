// Command packedpair generates the packed-pair prefilter kernels of
// internal/rt/pairscan, packedPair{AVX2,SSE2} and packedTriple{AVX2,SSE2}
// (internal/rt/pairscan/pairscan_amd64.s and the Go declarations in
// pairscan_stub_amd64.go), which search and buf share.
//
// The kernels scan the positions k = 0…m-1 of a haystack for candidates of
// a needle: positions where the haystack holds the needle's byte b1 at
// offset i1 and its byte b2 at offset i2 (and, for the triple kernels, b3
// at i3). The caller passes a = &h[s+i1], b = &h[s+i2] (and c = &h[s+i3]),
// so candidate k is a[k] == b1 && b[k] == b2 (&& c[k] == b3), and the
// streams are compared a whole vector at a time against the bytes
// broadcast to every lane (the "packed pair" prefilter of Rust's memchr
// memmem). Each kernel returns the first block that holds a candidate: its
// first position off and a mask whose bit j is set when off+j is a
// candidate (bits past the last position scanned are never set), or a zero
// mask when no position holds one. The caller verifies the candidates and
// calls again from after the last one.
//
// The loop compares two vectors of each stream per iteration and ORs the
// two results to test for any candidate, so a candidate-free stretch costs
// one branch per 2·W positions (W = 32 for AVX2, 16 for SSE2). What is left
// after the loop (fewer than 2·W positions) is one more vector if W fit, and
// then one vector ending exactly at position m-1, overlapping what was
// scanned before, whose mask is shifted to drop the positions already
// scanned. The kernels therefore read the streams' positions 0…m-1 and
// nothing else, and need m ≥ W: the caller scans shorter ranges itself.
package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"

	"github.com/netkit/netkit/internal/asmgen/gen"
)

func main() {
	gen.Main("internal/rt/pairscan", func() {
		for _, s := range []isa{avx2, sse2} {
			kernel(s, 2)
			kernel(s, 3)
		}
	})
}

// isa is what differs between the two kernels: the vector width and the
// instructions for the same steps.
type isa struct {
	name  string
	width int
	// vec returns a fresh vector register.
	vec func() VecVirtual
	// splat broadcasts the low byte of the 32-bit register c to every lane
	// of v.
	splat func(c Register, v VecVirtual)
	// cmp sets dst to the lanes where every stream (memory) equals its
	// splat; it may clobber tmp.
	cmp func(streams []Mem, splats []VecVirtual, dst, tmp VecVirtual)
	// any sets the flags for JNZ when x|y has any lane set; it may clobber
	// tmp.
	any func(x, y, tmp VecVirtual)
	// ret runs before RET (VZEROUPPER after AVX code).
	ret func()
}

var avx2 = isa{
	name:  "AVX2",
	width: 32,
	vec:   YMM,
	splat: gen.SplatAVX2,
	cmp: func(streams []Mem, splats []VecVirtual, dst, tmp VecVirtual) {
		VPCMPEQB(streams[0], splats[0], dst)
		for j := 1; j < len(streams); j++ {
			VPCMPEQB(streams[j], splats[j], tmp)
			VPAND(tmp, dst, dst)
		}
	},
	any: func(x, y, tmp VecVirtual) {
		VPOR(x, y, tmp)
		VPTEST(tmp, tmp)
	},
	ret: func() { VZEROUPPER() },
}

var sse2 = isa{
	name:  "SSE2",
	width: 16,
	vec:   XMM,
	splat: gen.SplatSSE2,
	cmp: func(streams []Mem, splats []VecVirtual, dst, tmp VecVirtual) {
		MOVOU(streams[0], dst)
		PCMPEQB(splats[0], dst)
		for j := 1; j < len(streams); j++ {
			MOVOU(streams[j], tmp)
			PCMPEQB(splats[j], tmp)
			PAND(tmp, dst)
		}
	},
	any: func(x, y, tmp VecVirtual) {
		MOVO(x, tmp)
		POR(y, tmp)
		t := GP32()
		PMOVMSKB(tmp, t)
		TESTL(t, t)
	},
	ret: func() {},
}

// movmsk sets the 64-bit register r to the top bit of each byte of v.
func (s isa) movmsk(v VecVirtual, r GPVirtual) {
	if s.width == 32 {
		VPMOVMSKB(v, r.As32())
	} else {
		PMOVMSKB(v, r.As32())
	}
}

// kernel generates the kernel for s that compares k streams (2 or 3).
func kernel(s isa, k int) {
	w := s.width
	names := []string{"a", "b", "c"}[:k]
	bs := []string{"b1", "b2", "b3"}[:k]
	name := map[int]string{2: "packedPair", 3: "packedTriple"}[k] + s.name
	sig := "func(a, b *byte, m int, b1, b2 byte) (off int, mask uint64)"
	if k == 3 {
		sig = "func(a, b, c *byte, m int, b1, b2, b3 byte) (off int, mask uint64)"
	}
	TEXT(name, NOSPLIT, sig)
	if k == 2 {
		Doc(
			name+" returns the first block of positions k in [0, m) with a[k] == b1",
			"and b[k] == b2: its first position off and a mask of the candidates in it",
			"(bit j for position off+j), or a zero mask when there is none. It reads",
			fmt.Sprintf("a[0:m] and b[0:m] only, and needs m ≥ %d.", w),
		)
	} else {
		Doc(
			name+" returns the first block of positions k in [0, m) with a[k] == b1,",
			"b[k] == b2 and c[k] == b3: its first position off and a mask of the",
			"candidates in it (bit j for position off+j), or a zero mask when there is",
			fmt.Sprintf("none. It reads a[0:m], b[0:m] and c[0:m] only, and needs m ≥ %d.", w),
		)
	}
	bases := make([]Register, k)
	for j := range bases {
		bases[j] = Load(Param(names[j]), GP64())
	}
	m := Load(Param("m"), GP64())
	splats := make([]VecVirtual, k)
	for j := range splats {
		splats[j] = s.vec()
		s.splat(Load(Param(bs[j]), GP32()), splats[j])
	}

	i := GP64()
	XORQ(i, i)
	end := GP64() // last i at which a whole block fits: m - 2w
	MOVQ(m, end)
	SUBQ(U32(2*w), end)
	v0, v1, tmp := s.vec(), s.vec(), s.vec()

	at := func(index Register, disp int) []Mem {
		ms := make([]Mem, k)
		for j, b := range bases {
			ms[j] = Mem{Base: b, Index: index, Scale: 1, Disp: disp}
		}
		return ms
	}

	CMPQ(i, end)
	JG(LabelRef(name + "_one"))
	Label(name + "_loop")
	s.cmp(at(i, 0), splats, v0, tmp)
	s.cmp(at(i, w), splats, v1, tmp)
	s.any(v0, v1, tmp)
	JNZ(LabelRef(name + "_found2"))
	ADDQ(U32(2*w), i)
	CMPQ(i, end)
	JLE(LabelRef(name + "_loop"))
	JMP(LabelRef(name + "_one"))

	// Both vectors of the block: the mask is v0's lanes, then v1's.
	Label(name + "_found2")
	lo, hi := GP64(), GP64()
	s.movmsk(v0, lo)
	s.movmsk(v1, hi)
	SHLQ(U8(w), hi)
	ORQ(hi, lo)
	Store(i, ReturnIndex(0))
	Store(lo, ReturnIndex(1))
	s.ret()
	RET()

	// Fewer than 2w positions left: one more whole vector if it fits.
	Label(name + "_one")
	ADDQ(U32(w), end) // m - w
	CMPQ(i, end)
	JG(LabelRef(name + "_tail"))
	s.cmp(at(i, 0), splats, v0, tmp)
	mask := GP64()
	s.movmsk(v0, mask)
	TESTQ(mask, mask)
	JNZ(LabelRef(name + "_ret"))
	ADDQ(U32(w), i)

	// Fewer than w positions left: the vector at m-w, without the lanes
	// before i, which were scanned already.
	Label(name + "_tail")
	CMPQ(i, m)
	JGE(LabelRef(name + "_none"))
	s.cmp(at(end, 0), splats, v0, tmp) // end = m - w here
	s.movmsk(v0, mask)
	MOVQ(i, RCX)
	SUBQ(end, RCX)
	SHRQ(CL, mask)

	Label(name + "_ret")
	Store(i, ReturnIndex(0))
	Store(mask, ReturnIndex(1))
	s.ret()
	RET()

	Label(name + "_none")
	Store(m, ReturnIndex(0))
	XORQ(mask, mask)
	Store(mask, ReturnIndex(1))
	s.ret()
	RET()
}
