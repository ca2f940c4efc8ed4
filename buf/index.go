package buf

import "bytes"

// This file holds the in-component search of Composite.Index: a
// rare-byte prefilter in front of bytes.Index, so that Index scans at
// bytes.IndexByte's speed where the needle has a byte that the haystack
// seldom holds, without a prepared searcher and without keeping state
// between calls.

// byteRank ranks each byte value by how common it is guessed to be in
// the bytes netkit searches (text, source code, protocol headers): 255 is
// the most common, 0 the rarest. It was written for this package from
// general knowledge of such text, not measured on a corpus nor taken
// from elsewhere, as one ordering from most to least common:
//
//   - space, then lowercase letters in English-text order with newline
//     and tab placed among them (e t a o i n s r, \n, h l d c u m, \t,
//     f p …), interleaved with the punctuation that source code and
//     headers use most: . , ( ) " = : / _ - * ; { } [ ];
//   - then '0' and '1', uppercase letters in English order, the other
//     digits, \r, then the rarer punctuation (< > & ' + | ! # % ? @ $ \ ^
//     `) with the rarest letters (j q z X J Q Z) and ~ among them;
//   - then the bytes of non-ASCII UTF-8 (continuation bytes 0x80–0xBF,
//     then leading bytes 0xC2–0xF4);
//   - then NUL and the other control bytes, DEL, and last the bytes that
//     never occur in UTF-8 (0xC0, 0xC1, 0xF5–0xFF).
//
// A wrong guess only costs speed: the prefilter verifies every candidate
// and, past a budget of false candidates, hands the rest of the search
// to bytes.Index.
var byteRank = [256]uint8{
	42, 41, 40, 39, 38, 37, 36, 35, 34, 239, 246, 33, 32, 181, 31, 30, // 0x00–0x0F
	29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, // 0x10–0x1F
	255, 171, 231, 170, 166, 169, 178, 177, 233, 232, 218, 176, 234, 223, 236, 225, // 0x20–0x2F
	221, 220, 193, 191, 188, 189, 184, 183, 187, 186, 226, 217, 180, 230, 179, 168, // 0x30–0x3F
	167, 210, 197, 208, 201, 209, 198, 195, 196, 207, 161, 182, 203, 200, 205, 204, // 0x40–0x4F
	202, 160, 206, 211, 212, 199, 185, 194, 162, 190, 159, 214, 165, 213, 164, 224, // 0x50–0x5F
	163, 252, 227, 242, 243, 254, 238, 235, 245, 250, 175, 219, 244, 240, 249, 251, // 0x60–0x6F
	237, 174, 247, 248, 253, 241, 222, 229, 192, 228, 173, 216, 172, 215, 158, 13, // 0x70–0x7F
	157, 156, 155, 154, 153, 152, 151, 150, 149, 148, 147, 146, 145, 144, 143, 142, // 0x80–0x8F
	141, 140, 139, 138, 137, 136, 135, 134, 133, 132, 131, 130, 129, 128, 127, 126, // 0x90–0x9F
	125, 124, 123, 122, 121, 120, 119, 118, 117, 116, 115, 114, 113, 112, 111, 110, // 0xA0–0xAF
	109, 108, 107, 106, 105, 104, 103, 102, 101, 100, 99, 98, 97, 96, 95, 94, // 0xB0–0xBF
	12, 11, 93, 92, 91, 90, 89, 88, 87, 86, 85, 84, 83, 82, 81, 80, // 0xC0–0xCF
	79, 78, 77, 76, 75, 74, 73, 72, 71, 70, 69, 68, 67, 66, 65, 64, // 0xD0–0xDF
	63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, // 0xE0–0xEF
	47, 46, 45, 44, 43, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, // 0xF0–0xFF
}

// A rareFinder searches for a needle of at least 2 bytes by its two
// rarest bytes (by byteRank): b1 at offset o1 is scanned for with
// bytes.IndexByte, b2 at offset o2 (o2 ≠ o1) is checked at each hit, and
// a hit passing both is verified against the whole needle. It lives on
// the stack of one Index call.
type rareFinder struct {
	needle []byte
	o1, o2 int
	b1, b2 byte

	// fellBack records that index gave up on the prefilter, for tests.
	fellBack bool
}

// newRareFinder picks the rarest byte of needle (the first of equal
// rank) and the rarest at another offset, preferring, among equal ranks,
// a byte value other than the first's, which makes the second check
// worth more. len(needle) must be at least 2.
func newRareFinder(needle []byte) rareFinder {
	o1 := 0
	for i := 1; i < len(needle); i++ {
		if byteRank[needle[i]] < byteRank[needle[o1]] {
			o1 = i
		}
	}
	o2 := -1
	for i := range needle {
		if i == o1 {
			continue
		}
		if o2 < 0 || rareBetter(needle[i], needle[o2], needle[o1]) {
			o2 = i
		}
	}
	return rareFinder{needle: needle, o1: o1, o2: o2, b1: needle[o1], b2: needle[o2]}
}

// rareBetter reports whether x is a better second byte than y, given the
// first byte b1: a value other than b1 beats b1's own value, then the
// rarer wins.
func rareBetter(x, y, b1 byte) bool {
	if (x == b1) != (y == b1) {
		return y == b1
	}
	return byteRank[x] < byteRank[y]
}

// index returns the offset of the first instance of f's needle in h, or
// -1, as bytes.Index(h, f.needle) does.
//
// Each hit of b1 that fails the b2 check or the full compare is a false
// candidate, and each costs a bytes.IndexByte call that scanned little.
// When they exceed 8 plus one per 8 bytes scanned (the rate at which
// bytes.Index itself gives up on its first-byte scan), the rest of h is
// searched with bytes.Index, so the worst case stays bytes.Index's plus
// that bounded overrun.
func (f *rareFinder) index(h []byte) int {
	m := len(f.needle)
	last := len(h) - m // the last offset where a match can start
	fails := 0
	for s := 0; s <= last; {
		j := bytes.IndexByte(h[s+f.o1:last+f.o1+1], f.b1)
		if j < 0 {
			return -1
		}
		s += j
		if h[s+f.o2] == f.b2 && bytes.Equal(h[s:s+m], f.needle) {
			return s
		}
		s++
		fails++
		if fails > 8+s>>3 {
			f.fellBack = true
			if i := bytes.Index(h[s:], f.needle); i >= 0 {
				return s + i
			}
			return -1
		}
	}
	return -1
}
