// Command bytemask generates the byte-mask kernels of internal/rt/bytemask,
// masksAVX2 and masksSSE2 (internal/rt/bytemask/bytemask_amd64.s and the Go
// declarations in bytemask_stub_amd64.go), on which codec/frame's line and
// delimiter scans run.
//
// A kernel turns blocks of 64 bytes into 64-bit masks: bit j of dst[i] is
// set when byte 64·i+j of p equals c1 or c2. Each block is compared a whole
// vector at a time against both bytes broadcast to every lane, the two
// comparisons ORed and the lanes' top bits gathered (VPMOVMSKB), 32 lanes
// per vector for AVX2 and 16 for SSE2. A caller that scans for one byte
// passes it twice. The kernels read exactly 64·blocks bytes of p and write
// exactly blocks words of dst.
package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"

	"github.com/netkit/netkit/internal/asmgen/gen"
)

func main() {
	gen.Main("internal/rt/bytemask", func() {
		kernel(avx2)
		kernel(sse2)
	})
}

// isa is what differs between the two kernels.
type isa struct {
	name  string
	width int // bytes per vector
	vec   func() VecVirtual
	// splat broadcasts the low byte of the 32-bit register c to v.
	splat func(c Register, v VecVirtual)
	// eq2 sets dst to the lanes of the vector at m equal to either splat;
	// it may clobber tmp.
	eq2 func(m Mem, s1, s2, dst, tmp VecVirtual)
	// mask gathers the top bit of each lane of v into the 32-bit r.
	mask func(v VecVirtual, r Register)
	ret  func()
}

var avx2 = isa{
	name:  "AVX2",
	width: 32,
	vec:   YMM,
	splat: gen.SplatAVX2,
	eq2: func(m Mem, s1, s2, dst, tmp VecVirtual) {
		VMOVDQU(m, tmp)
		VPCMPEQB(tmp, s1, dst)
		VPCMPEQB(tmp, s2, tmp)
		VPOR(tmp, dst, dst)
	},
	mask: func(v VecVirtual, r Register) { VPMOVMSKB(v, r) },
	ret:  func() { VZEROUPPER() },
}

var sse2 = isa{
	name:  "SSE2",
	width: 16,
	vec:   XMM,
	splat: gen.SplatSSE2,
	eq2: func(m Mem, s1, s2, dst, tmp VecVirtual) {
		MOVOU(m, dst)
		MOVO(dst, tmp)
		PCMPEQB(s1, dst)
		PCMPEQB(s2, tmp)
		POR(tmp, dst)
	},
	mask: func(v VecVirtual, r Register) { PMOVMSKB(v, r) },
	ret:  func() {},
}

func kernel(s isa) {
	TEXT("masks"+s.name, NOSPLIT, "func(p *byte, blocks int, c1, c2 byte, dst *uint64)")
	Doc(fmt.Sprintf("masks%s sets dst[i], for i < blocks, to the mask of the bytes of", s.name),
		"p[64i:64i+64] equal to c1 or c2 (bit j for byte 64i+j). It reads",
		"p[0:64·blocks] and writes dst[0:blocks] only.")
	Pragma("noescape") // it keeps neither pointer: dst may live on the caller's stack
	p := Load(Param("p"), GP64())
	n := Load(Param("blocks"), GP64())
	dst := Load(Param("dst"), GP64())
	s1, s2 := s.vec(), s.vec()
	s.splat(Load(Param("c1"), GP32()), s1)
	s.splat(Load(Param("c2"), GP32()), s2)

	TESTQ(n, n)
	JZ(LabelRef("done"))
	Label("loop")
	word := GP64()
	XORQ(word, word)
	lanes := 64 / s.width
	for k := 0; k < lanes; k++ {
		v, tmp := s.vec(), s.vec()
		s.eq2(Mem{Base: p, Disp: k * s.width}, s1, s2, v, tmp)
		part := GP64()
		s.mask(v, part.As32()) // a 32-bit write zero-extends

		if k > 0 {
			SHLQ(U8(k*s.width), part)
		}
		ORQ(part, word)
	}
	MOVQ(word, Mem{Base: dst})
	ADDQ(U32(64), p)
	ADDQ(U32(8), dst)
	DECQ(n)
	JNZ(LabelRef("loop"))
	Label("done")
	s.ret()
	RET()
}
