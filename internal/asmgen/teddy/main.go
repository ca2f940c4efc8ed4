// Command teddy generates search's Teddy kernels (search/teddy_amd64.s and
// the declarations in search/teddy_stub_amd64.go): per vector width (AVX2,
// 32 bytes; SSSE3, 16 bytes) and fingerprint length (1–4 bytes), each
// also in an ASCII variant for fingerprints of ASCII bytes, a block kernel
// (teddyN, described below), a batch kernel (teddyBatchN, see batch) and,
// for 3 and 4 bytes, a lean batch kernel (teddyLeanN).
//
// Each kernel looks for the first block of offsets p of h at which the
// bytes h[p], …, h[p+m-1] pass the fingerprint masks of at least one bucket
// (Teddy's test): for fingerprint byte k, the bucket bits of a byte b are
// lo[k][b&15] & hi[k][b>>4], one bit per bucket, found for a whole vector
// of bytes with two byte shuffles (PSHUFB); the offsets where the AND over
// k of those bits is non-zero are candidates. PSHUFB gives 0 for an index
// byte with its top bit set and otherwise uses its low nibble, so when no
// fingerprint byte is above 0x7f (the ASCII variants), the low nibbles need
// no mask: a byte above 0x7f gives 0, as its high-nibble mask would. It
// returns the first offset off of that block and the mask of all its
// candidates (bit j for offset off+j; two vectors' worth when the main
// loop's pair of blocks holds one, so that a caller takes every candidate
// of up to 64 offsets from one call), or a zero mask when there is no
// candidate in h. The caller guarantees len(h) >= width+m-1, so that every
// load is of a whole vector inside h.
package main

import (
	"fmt"
	"strings"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"

	"github.com/netkit/netkit/internal/asmgen/gen"
)

func main() {
	gen.Main("search", func() {
		for _, v := range []vec{avx2{}, ssse3{}} {
			for _, ascii := range []bool{false, true} {
				for m := 1; m <= 4; m++ {
					name := fmt.Sprintf("teddy%d%s", m, v.name())
					if ascii {
						name += "ASCII"
					}
					kernel(name, v, m, ascii)
					batch(strings.Replace(name, "teddy", "teddyBatch", 1), v, m, m, ascii)
					if m >= 3 {
						batch(strings.Replace(name, "teddy", "teddyLean", 1), v, m, 1, ascii)
					}
				}
			}
		}
	})
}

// A vec emits the instructions of one vector width.
type vec interface {
	width() int
	name() string
	// setup loads the masks of the m fingerprint bytes (2m vectors of 16
	// bytes at ptr: low-nibble then high-nibble masks of each byte) into
	// registers (each 16-byte table in both lanes for AVX2), and returns
	// them with the nibble mask (0x0f in every byte).
	setup(ptr Register, m int) (masks [8]VecVirtual, nib VecVirtual)
	// bits returns, for the vector at mem, its bucket bits for the
	// fingerprint byte whose masks are lo and hi; ascii leaves out the
	// mask of the low nibbles.
	bits(mem Mem, lo, hi, nib VecVirtual, ascii bool) VecVirtual
	// loBits is bits with the low-nibble mask only.
	loBits(mem Mem, lo, nib VecVirtual, ascii bool) VecVirtual
	and(src, dst VecVirtual) // dst &= src
	or(a, b VecVirtual) VecVirtual
	// nonZero jumps to label when some byte of v is not zero.
	nonZero(v VecVirtual, label string)
	// mask returns the bit mask of v's non-zero bytes (bit j for byte j).
	mask(v VecVirtual) GPVirtual
	end() // before RET
}

func kernel(name string, v vec, m int, ascii bool) {
	TEXT(name, NOSPLIT, "func(masks *[8][16]byte, h []byte) (off int, mask uint64)")
	Pragma("noescape") // the kernel keeps no pointer: h may live on the caller's stack
	kind := ""
	if ascii {
		kind = " of ASCII bytes"
	}
	Doc(fmt.Sprintf("%s returns the first block of offsets of h at which a %d-byte fingerprint%s passes the masks of a bucket: its first offset off and the mask of its candidates (bit j for offset off+j, at most len(h)-%d), or a zero mask when there is none; with %s, len(h) must be at least %d.",
		name, m, kind, m, v.name(), v.width()+m-1))
	ptr := Load(Param("masks"), GP64())
	base := Load(Param("h").Base(), GP64())
	n := Load(Param("h").Len(), GP64())
	w := v.width()

	masks, nib := v.setup(ptr, m)
	// block returns the candidate bits of the w offsets from base+i+off.
	block := func(i Register, off int) VecVirtual {
		var r VecVirtual
		for k := 0; k < m; k++ {
			c := v.bits(Mem{Base: base, Index: i, Scale: 1, Disp: off + k}, masks[2*k], masks[2*k+1], nib, ascii)
			if k == 0 {
				r = c
			} else {
				v.and(c, r)
			}
		}
		return r
	}

	i := GP64()
	XORQ(i, i)
	// last is the offset of the last whole block: n-(w+m-1).
	last := GP64()
	MOVQ(n, last)
	SUBQ(U32(w+m-1), last)

	Comment("Two blocks per iteration while they fit.")
	last2 := GP64()
	MOVQ(last, last2)
	SUBQ(U32(w), last2)
	JL(LabelRef(name + "_single")) // fewer than two blocks
	Label(name + "_loop2")
	CMPQ(i, last2)
	JG(LabelRef(name + "_single"))
	r0 := block(i, 0)
	r1 := block(i, w)
	either := v.or(r0, r1)
	v.nonZero(either, name+"_found2")
	ADDQ(U32(2*w), i)
	JMP(LabelRef(name + "_loop2"))

	Label(name + "_found2")
	Comment("Both blocks' candidates in one mask.")
	m0 := v.mask(r0)
	m1 := v.mask(r1)
	SHLQ(U8(w), m1)
	ORQ(m1, m0)
	JMP(LabelRef(name + "_ret"))

	Comment("One block at a time.")
	Label(name + "_single")
	CMPQ(i, last)
	JG(LabelRef(name + "_tail"))
	r := block(i, 0)
	v.nonZero(r, name+"_found1")
	ADDQ(U32(w), i)
	JMP(LabelRef(name + "_single"))
	Label(name + "_found1")
	ms := v.mask(r)
	MOVQ(ms, m0)
	JMP(LabelRef(name + "_ret"))

	Comment("The offsets from i to n-m, fewer than a block: the last block,")
	Comment("with the bits of the offsets before i shifted out.")
	Label(name + "_tail")
	end := GP64()
	MOVQ(last, end)
	ADDQ(U32(w), end) // n-m+1
	CMPQ(i, end)
	JGE(LabelRef(name + "_none"))
	rt := block(last, 0)
	mt := v.mask(rt)
	MOVQ(i, RCX)
	SUBQ(last, RCX)
	SHRQ(CL, mt)
	MOVQ(mt, m0)

	Label(name + "_ret")
	Store(i, ReturnIndex(0))
	Store(m0, ReturnIndex(1))
	v.end()
	RET()

	Label(name + "_none")
	XORQ(m0, m0)
	JMP(LabelRef(name + "_ret"))
}

// batch emits the kernel that examines many blocks in one call, with the
// masks of both nibbles for the first full bytes of the fingerprint and
// the low-nibble masks only for the others (a lean test, which passes a
// superset of the candidates; for ASCII fingerprints a byte above 0x7f
// still passes none, as PSHUFB gives 0 for it): it writes
// the candidate mask of each of the first words = min(64, n/64) whole
// words of 64 offsets (n = len(h)-m+1 offsets) to out[j], bit b for offset
// 64j+b, and returns words and sum, whose bit j is set when out[j] holds a
// candidate; the words without one are not written. The masks are loaded
// into registers once per call, and a word without candidates costs what
// the first kernel's main loop does: the vectors' bucket bits, ORed and
// tested. The caller guarantees len(h) >= 64+m-1 (words >= 1).
func batch(name string, v vec, m, full int, ascii bool) {
	TEXT(name, NOSPLIT, "func(masks *[8][16]byte, h []byte, out *[64]uint64) (words int, sum uint64)")
	Pragma("noescape")
	kind := ""
	if ascii {
		kind = " of ASCII bytes"
	}
	test := ""
	if full < m {
		test = " (lean: the bytes after the first by their low nibble only)"
	}
	Doc(fmt.Sprintf("%s writes the candidate masks of a %d-byte fingerprint%s%s in the first words = min(64, (len(h)-%d)/64) words of 64 offsets of h to out (bit b of out[j] for offset 64j+b), only those of the words that hold a candidate, and returns words and sum, whose bit j is set when out[j] was written; with %s, len(h) must be at least %d.",
		name, m, kind, test, m-1, v.name(), 64+m-1))
	ptr := Load(Param("masks"), GP64())
	base := Load(Param("h").Base(), GP64())
	n := Load(Param("h").Len(), GP64())
	out := Load(Param("out"), GP64())
	w := v.width()

	masks, nib := v.setup(ptr, m)
	block := func(i Register, off int) VecVirtual {
		var r VecVirtual
		for k := 0; k < m; k++ {
			mem := Mem{Base: base, Index: i, Scale: 1, Disp: off + k}
			var c VecVirtual
			if k < full {
				c = v.bits(mem, masks[2*k], masks[2*k+1], nib, ascii)
			} else {
				c = v.loBits(mem, masks[2*k], nib, ascii)
			}
			if k == 0 {
				r = c
			} else {
				v.and(c, r)
			}
		}
		return r
	}

	Comment("end = 64 * min(64, (len(h)-m+1)/64): the offsets of whole words.")
	end := GP64()
	MOVQ(n, end)
	SUBQ(U32(m-1), end)
	SHRQ(U8(6), end)
	lim := GP64()
	MOVQ(U32(64), lim)
	CMPQ(end, lim)
	CMOVQGT(lim, end)
	words := GP64()
	MOVQ(end, words)
	SHLQ(U8(6), end)
	sum := GP64()
	XORQ(sum, sum)
	i := GP64()
	XORQ(i, i)

	Label(name + "_loop")
	CMPQ(i, end)
	JGE(LabelRef(name + "_ret"))
	nv := 64 / w
	rs := make([]VecVirtual, nv)
	for k := range rs {
		rs[k] = block(i, k*w)
	}
	either := rs[0]
	for k := 1; k < nv; k++ {
		either = v.or(either, rs[k])
	}
	v.nonZero(either, name+"_found")
	ADDQ(U32(64), i)
	JMP(LabelRef(name + "_loop"))

	Label(name + "_found")
	Comment("The word's mask to out[i/64], and its bit in sum.")
	acc := v.mask(rs[0])
	for k := 1; k < nv; k++ {
		mk := v.mask(rs[k])
		SHLQ(U8(k*w), mk)
		ORQ(mk, acc)
	}
	t := GP64()
	MOVQ(i, t)
	SHRQ(U8(3), t)
	MOVQ(acc, Mem{Base: out, Index: t, Scale: 1})
	SHRQ(U8(3), t)
	BTSQ(t, sum)
	ADDQ(U32(64), i)
	JMP(LabelRef(name + "_loop"))

	Label(name + "_ret")
	Store(words, ReturnIndex(0))
	Store(sum, ReturnIndex(1))
	v.end()
	RET()
}

type avx2 struct{}

func (avx2) width() int   { return 32 }
func (avx2) name() string { return "AVX2" }
func (a avx2) setup(ptr Register, m int) (masks [8]VecVirtual, nib VecVirtual) {
	for j := range 2 * m {
		masks[j] = YMM()
		VBROADCASTI128(Mem{Base: ptr, Disp: 16 * j}, masks[j])
	}
	t := GP32()
	MOVL(U32(0x0f0f0f0f), t)
	x := XMM()
	// VMOVD, not MOVD: a legacy SSE instruction while the upper halves
	// of the YMM registers are dirty costs about 170 ns per call here
	// (measured on an AMD EPYC host), as on Intel's AVX-SSE transitions.
	VMOVD(t, x)
	nib = YMM()
	VPBROADCASTD(x, nib)
	return masks, nib
}
func (avx2) bits(mem Mem, lo, hi, nib VecVirtual, ascii bool) VecVirtual {
	x, y := YMM(), YMM()
	VMOVDQU(mem, x)
	VPSRLW(U8(4), x, y)
	if !ascii {
		VPAND(nib, x, x)
	}
	VPAND(nib, y, y)
	VPSHUFB(x, lo, x)
	VPSHUFB(y, hi, y)
	VPAND(y, x, x)
	return x
}
func (avx2) loBits(mem Mem, lo, nib VecVirtual, ascii bool) VecVirtual {
	x := YMM()
	VMOVDQU(mem, x)
	if !ascii {
		VPAND(nib, x, x)
	}
	VPSHUFB(x, lo, x)
	return x
}
func (avx2) and(src, dst VecVirtual) { VPAND(src, dst, dst) }
func (avx2) or(a, b VecVirtual) VecVirtual {
	r := YMM()
	VPOR(a, b, r)
	return r
}
func (avx2) nonZero(v VecVirtual, label string) {
	VPTEST(v, v)
	JNZ(LabelRef(label))
}
func (avx2) mask(v VecVirtual) GPVirtual {
	z, e := YMM(), YMM()
	VPXOR(z, z, z)
	VPCMPEQB(z, v, e)
	r := GP64()
	VPMOVMSKB(e, r.As32())
	NOTL(r.As32()) // zero-extends: the 32 bits of the non-zero bytes
	return r
}
func (avx2) end() { VZEROUPPER() }

// ssse3 is the 16-byte kernel: PSHUFB is SSSE3 (SSE2 has no byte shuffle),
// and PTEST is SSE4.1, so the zero test is a compare and a byte mask.
type ssse3 struct{}

func (ssse3) width() int   { return 16 }
func (ssse3) name() string { return "SSSE3" }
func (ssse3) setup(ptr Register, m int) (masks [8]VecVirtual, nib VecVirtual) {
	for j := range 2 * m {
		masks[j] = XMM()
		MOVOU(Mem{Base: ptr, Disp: 16 * j}, masks[j])
	}
	t := GP32()
	MOVL(U32(0x0f0f0f0f), t)
	nib = XMM()
	MOVD(t, nib)
	PSHUFD(U8(0), nib, nib)
	return masks, nib
}
func (ssse3) bits(mem Mem, lo, hi, nib VecVirtual, ascii bool) VecVirtual {
	x, y, a := XMM(), XMM(), XMM()
	MOVOU(mem, x)
	MOVO(x, y)
	PSRLW(U8(4), y)
	if !ascii {
		PAND(nib, x)
	}
	PAND(nib, y)
	MOVO(lo, a)
	PSHUFB(x, a)
	MOVO(hi, x)
	PSHUFB(y, x)
	PAND(x, a)
	return a
}
func (ssse3) loBits(mem Mem, lo, nib VecVirtual, ascii bool) VecVirtual {
	x, a := XMM(), XMM()
	MOVOU(mem, x)
	if !ascii {
		PAND(nib, x)
	}
	MOVO(lo, a)
	PSHUFB(x, a)
	return a
}
func (ssse3) and(src, dst VecVirtual) { PAND(src, dst) }
func (ssse3) or(a, b VecVirtual) VecVirtual {
	r := XMM()
	MOVO(a, r)
	POR(b, r)
	return r
}
func (ssse3) nonZero(v VecVirtual, label string) {
	z := XMM()
	PXOR(z, z)
	PCMPEQB(v, z) // z = the bytes of v that are zero
	t := GP32()
	PMOVMSKB(z, t)
	CMPL(t, U32(0xffff))
	JNE(LabelRef(label))
}
func (ssse3) mask(v VecVirtual) GPVirtual {
	z, e := XMM(), XMM()
	PXOR(z, z)
	MOVO(v, e)
	PCMPEQB(z, e)
	r := GP64()
	PMOVMSKB(e, r.As32())
	XORL(U32(0xffff), r.As32())
	return r
}
func (ssse3) end() {}
