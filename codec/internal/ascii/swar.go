package ascii

import "encoding/binary"

// The SWAR constants: a word of 0x01 bytes and a word of 0x80 bytes. A
// byte c spread over a word is Lo8*c; the top bit of each byte lane is
// where the word tests below leave their answer.
const (
	Lo8 = 0x0101010101010101
	Hi8 = 0x8080808080808080
)

// HasZero returns a word whose byte lanes have their top bit set from the
// first zero byte of w on (lanes above the first may be set by its
// borrow); it is zero exactly when w has no zero byte.
func HasZero(w uint64) uint64 { return (w - Lo8) &^ w & Hi8 }

// HasByte is HasZero for bytes equal to c: zero exactly when no byte of w
// is c.
func HasByte(w uint64, c byte) uint64 { return HasZero(w ^ Lo8*uint64(c)) }

// HasLess returns a word that is zero exactly when no byte of w is below
// n, for n at most 0x80 (a borrow only starts at such a byte, so there are
// no false alarms).
func HasLess(w uint64, n byte) uint64 { return (w - Lo8*uint64(n)) &^ w & Hi8 }

// GE returns w with the top bit of each byte lane set exactly when that
// byte is >= c, for bytes below 0x80 and c at most 0x80: adding 0x80-c to
// such a byte cannot carry into the next lane. The other bits of the
// result are noise; bytes of 0x80 and up must be masked out by the caller
// (&^ w).
func GE(w uint64, c byte) uint64 { return w + Lo8*uint64(0x80-c) }

// MayBeCTL reports, for the eight bytes of w, whether one of them may be
// a byte a field value may not hold (a control character other than
// HTAB, or DEL): it is never wrong when it says no. Per byte,
// z = ((b & 0x7f) + 1) & 0x7f is below 0x21 exactly for b < 0x20, DEL,
// 0x80–0x9f and 0xff, and z - 0x21 then sets the byte's top bit (a borrow
// only starts at such a byte). Five operations; HTAB and the obs-text
// bytes that set it off are looked at one by one by the caller.
func MayBeCTL(w uint64) bool {
	z := (w&(0x7f*Lo8) + Lo8) & (0x7f * Lo8)
	return (z-0x21*Lo8)&Hi8 != 0
}

// UnreservedWord returns Hi8 exactly when the eight bytes of w are all
// Unreserved: ASCII, and each a digit, a letter (folded to lower case by
// setting bit 0x20), '-', '.', '_' or '~', every range tested as ">= lo
// and not >= hi+1".
func UnreservedWord(w uint64) uint64 {
	l := w | Lo8*0x20
	m := GE(w, '0')&^GE(w, '9'+1) | GE(l, 'a')&^GE(l, 'z'+1) |
		GE(w, '-')&^GE(w, '.'+1) | GE(w, '_')&^GE(w, '_'+1) | GE(w, '~')&^GE(w, '~'+1)
	return m &^ w & Hi8
}

// UnreservedPrefix returns the length of the longest prefix of s whose
// bytes are all Unreserved, testing 16 bytes per step while it can. The
// arithmetic of UnreservedWord is written out here for both words because
// the function is too costly for the inliner, and a call per word would
// cost more than the test itself.
func UnreservedPrefix(s []byte) int {
	const lower = Lo8 * 0x20
	i := 0
	for ; i+16 <= len(s); i += 16 {
		p := s[i : i+16 : i+16]
		a := binary.LittleEndian.Uint64(p)
		b := binary.LittleEndian.Uint64(p[8:])
		la, lb := a|lower, b|lower
		ma := GE(a, '0')&^GE(a, '9'+1) | GE(la, 'a')&^GE(la, 'z'+1) |
			GE(a, '-')&^GE(a, '.'+1) | GE(a, '_')&^GE(a, '_'+1) | GE(a, '~')&^GE(a, '~'+1)
		mb := GE(b, '0')&^GE(b, '9'+1) | GE(lb, 'a')&^GE(lb, 'z'+1) |
			GE(b, '-')&^GE(b, '.'+1) | GE(b, '_')&^GE(b, '_'+1) | GE(b, '~')&^GE(b, '~'+1)
		if ma&mb&^(a|b)&Hi8 != Hi8 {
			break
		}
	}
	for i < len(s) && Classes[s[i]]&Unreserved != 0 {
		i++
	}
	return i
}
