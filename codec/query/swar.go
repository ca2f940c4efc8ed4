package query

import "encoding/binary"

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// ge returns w with the high bit of each byte lane set exactly when that
// byte is >= c, for bytes below 0x80: adding 0x80-c to such a byte cannot
// carry into the next lane. The other bits of the result are noise.
func ge(w uint64, c byte) uint64 { return w + ones*uint64(0x80-c) }

// unreserved returns highs exactly when the 8 bytes packed in w are all
// unreserved (see keep): ASCII, and each a digit, a letter (folded to lower
// case by setting bit 0x20), '-', '.', '_' or '~', every range tested as
// ">= lo and not >= hi+1".
func unreserved(w uint64) uint64 {
	l := w | ones*0x20
	m := ge(w, '0')&^ge(w, '9'+1) | ge(l, 'a')&^ge(l, 'z'+1) |
		ge(w, '-')&^ge(w, '.'+1) | ge(w, '_')&^ge(w, '_'+1) | ge(w, '~')&^ge(w, '~'+1)
	return m &^ w & highs
}

// keepPrefix returns the length of the longest prefix of s whose bytes are
// all unreserved, testing 16 bytes per step while it can. The arithmetic of
// unreserved is written out here for both words because the function is too
// costly for the inliner, and a call per word halves the speed.
func keepPrefix(s []byte) int {
	const lower = ones * 0x20
	i := 0
	for ; i+16 <= len(s); i += 16 {
		p := s[i : i+16 : i+16]
		a := binary.LittleEndian.Uint64(p)
		b := binary.LittleEndian.Uint64(p[8:])
		la, lb := a|lower, b|lower
		ma := ge(a, '0')&^ge(a, '9'+1) | ge(la, 'a')&^ge(la, 'z'+1) |
			ge(a, '-')&^ge(a, '.'+1) | ge(a, '_')&^ge(a, '_'+1) | ge(a, '~')&^ge(a, '~'+1)
		mb := ge(b, '0')&^ge(b, '9'+1) | ge(lb, 'a')&^ge(lb, 'z'+1) |
			ge(b, '-')&^ge(b, '.'+1) | ge(b, '_')&^ge(b, '_'+1) | ge(b, '~')&^ge(b, '~'+1)
		if ma&mb&^(a|b)&highs != highs {
			break
		}
	}
	for i < len(s) && keep[s[i]] {
		i++
	}
	return i
}
