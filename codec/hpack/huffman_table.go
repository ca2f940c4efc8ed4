package hpack

// The Huffman code of RFC 7541 Appendix B is canonical: codes of one length
// are consecutive numbers in symbol order, and each length's first code
// follows the last code of the length before (shifted left by the
// difference). So the 257 code lengths below determine every code, and the
// codes, the encoder's table and the decoder's tables are computed from them
// when the package is initialised.

// huffmanEOS is the end-of-string symbol (RFC 7541 §5.2): 30 one bits, never
// encoded; a prefix of it pads the last byte of a string.
const huffmanEOS = 256

// huffmanMaxLen is the longest code length in bits (EOS's).
const huffmanMaxLen = 30

// huffmanLens holds the code length in bits of each symbol: bytes 0 to 255,
// then EOS.
var huffmanLens = [257]uint8{
	13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, // 0x00
	28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28, // 0x10
	6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6, // 0x20 ' ' to '/'
	5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10, // 0x30 '0' to '?'
	13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, // 0x40 '@' to 'O'
	7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6, // 0x50 'P' to '_'
	15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5, // 0x60 '`' to 'o'
	6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28, // 0x70 'p' to DEL
	20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, // 0x80
	24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24, // 0x90
	22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, // 0xa0
	21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23, // 0xb0
	26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, // 0xc0
	19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27, // 0xd0
	20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23, // 0xe0
	26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26, // 0xf0
	30, // EOS
}

// huffmanCodes holds each symbol's code, right-aligned, with its length in
// huffmanLens.
var huffmanCodes [257]uint32

// huffmanEnc holds, for each byte, its code shifted left by 8 with its length
// in the low 8 bits: one load per byte for the encoder.
var huffmanEnc [256]uint64

// The canonical decoder of codes longer than huffmanLookupBits. For each
// length l, huffmanLimit[l] is one past the last code of length l, aligned to
// the left of 32 bits (so in 33 bits: the last length's limit is 1<<32);
// huffmanBase[l] is the position in huffmanSorted of the length's first
// symbol minus its first code. A left-aligned 32-bit window w holds a code
// of length l when l is the shortest length with w < huffmanLimit[l]; the
// symbol is huffmanSorted[huffmanBase[l] + w>>(32-l)].
var (
	huffmanLimit  [huffmanMaxLen + 1]uint64
	huffmanBase   [huffmanMaxLen + 1]int32
	huffmanSorted [257]uint16 // symbols by code
)

// huffmanLookupBits is the width of the decoder's window: huffmanLookup is
// indexed by the next huffmanLookupBits bits of the input. 13 bits hold two
// codes of 6 and 7 bits, the usual pair in header text (lowercase, digits,
// punctuation: 5 or 6 bits; uppercase: 7); 12 bits took 10% more lookups
// on the benchmarks' user-agent.
const huffmanLookupBits = 13

// A huffmanLookup entry decodes the window it is indexed by: the first one or
// two symbols whose codes fit in it. Its bits:
//
//	 0– 7  the length of the codes decoded, in bits (at most 13, so bits 4
//	       to 7 are 0: acc <<= e&63 is one shift instruction, with no mask)
//	 8–15  the first symbol
//	16–23  the second symbol (when there are two)
//	24–31  the number of symbols decoded times 8: 0, 8 or 16 (the number of
//	       bits they take in the fast loop's output word)
//
// An entry whose first code is longer than the window is 0: it decodes
// nothing and consumes nothing, and the canonical decoder takes the code.
// 8192 entries of 4 bytes: 32 KiB.
var huffmanLookup [1 << huffmanLookupBits]uint32

const (
	lookupSymShift   = 8
	lookupCountShift = 24
)

func init() {
	huffmanInit()
}

// huffmanInit computes the codes and the decoder's tables from huffmanLens.
func huffmanInit() {
	// Canonical codes: by length, then by symbol.
	var count [huffmanMaxLen + 1]int
	for _, l := range huffmanLens {
		count[l]++
	}
	var first [huffmanMaxLen + 2]uint32 // first code of each length
	var pos [huffmanMaxLen + 1]int32    // position in huffmanSorted of each length's first symbol
	code, p := uint32(0), int32(0)
	for l := 1; l <= huffmanMaxLen; l++ {
		first[l] = code
		pos[l] = p
		code = (code + uint32(count[l])) << 1
		p += int32(count[l])
		huffmanLimit[l] = uint64(first[l]+uint32(count[l])) << (32 - l)
		huffmanBase[l] = pos[l] - int32(first[l])
	}
	next := first
	for s, l := range huffmanLens {
		huffmanCodes[s] = next[l]
		huffmanSorted[pos[l]+int32(next[l]-first[l])] = uint16(s)
		next[l]++
	}
	for b := range huffmanEnc {
		huffmanEnc[b] = uint64(huffmanCodes[b])<<8 | uint64(huffmanLens[b])
	}

	// The lookup table: for each window, the first code that fits, then a
	// second one if it fits in what is left. EOS never fits (30 bits).
	for w := range huffmanLookup {
		win := uint32(w) << (32 - huffmanLookupBits) // left-aligned
		s1, l1 := huffmanDecodeShort(win)
		if l1 == 0 {
			continue
		}
		e := uint32(l1) | uint32(s1)<<lookupSymShift | 8<<lookupCountShift
		if s2, l2 := huffmanDecodeShort(win << l1); l2 != 0 && l1+l2 <= huffmanLookupBits {
			e = uint32(l1+l2) | uint32(s1)<<lookupSymShift | uint32(s2)<<(lookupSymShift+8) | 16<<lookupCountShift
		}
		huffmanLookup[w] = e
	}
}

// huffmanDecodeShort decodes the code at the start of the left-aligned
// window win when it is at most huffmanLookupBits long, returning the symbol
// and its length, or length 0.
func huffmanDecodeShort(win uint32) (sym uint16, n int) {
	for l := 1; l <= huffmanLookupBits; l++ {
		if uint64(win) < huffmanLimit[l] {
			return huffmanSorted[huffmanBase[l]+int32(win>>(32-l))], l
		}
	}
	return 0, 0
}

// huffmanDecodeLong decodes the code at the start of the left-aligned window
// win, which the lookup table does not hold (it is longer than
// huffmanLookupBits), returning the symbol (perhaps EOS) and its length.
// Every window holds a code: the Huffman code is complete.
func huffmanDecodeLong(win uint32) (sym uint16, n uint) {
	l := huffmanLookupBits + 1
	for l < huffmanMaxLen && uint64(win) >= huffmanLimit[l] {
		l++
	}
	return huffmanSorted[huffmanBase[l]+int32(win>>(32-l))], uint(l)
}
