package ascii

// IsValueByte reports whether c may appear in a field value (RFC 9110
// §5.5): HTAB, SP, visible ASCII and obs-text (0x80–0xFF); not NUL, CR,
// LF, another control character or DEL.
func IsValueByte(c byte) bool { return c >= 0x20 && c != 0x7f || c == '\t' }

// load64 returns the eight bytes of s from i on as a little-endian word;
// the compiler merges the loads into one.
func load64[T ~string | ~[]byte](s T, i int) uint64 {
	w := s[i : i+8]
	_ = w[7]
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
}

// IndexCTL returns the index of the first byte of s that may not appear in
// a field value (see IsValueByte), or -1 when there is none. It tests
// sixteen bytes per step with MayBeCTL and looks at the bytes of a word
// one by one only when the word test goes off (for a control byte, HTAB
// or some obs-text), then goes on by words. O(len(s)).
func IndexCTL[T ~string | ~[]byte](s T) int {
	i := 0
	for ; i+16 <= len(s); i += 16 {
		if MayBeCTL(load64(s, i)) || MayBeCTL(load64(s, i+8)) {
			if k := indexCTL(s, i, i+16); k >= 0 {
				return k
			}
		}
	}
	if i+8 <= len(s) {
		if MayBeCTL(load64(s, i)) {
			if k := indexCTL(s, i, i+8); k >= 0 {
				return k
			}
		}
		i += 8
	}
	if i == len(s) || len(s) >= 8 && !MayBeCTL(load64(s, len(s)-8)) {
		// Nothing left, or the last bytes, in one word that overlaps
		// the ones checked, are clean.
		return -1
	}
	return indexCTL(s, i, len(s))
}

// indexCTL is IndexCTL over s[i:j], a byte at a time.
func indexCTL[T ~string | ~[]byte](s T, i, j int) int {
	for ; i < j; i++ {
		if !IsValueByte(s[i]) {
			return i
		}
	}
	return -1
}

// ValidFieldValue reports whether v is a field-value (RFC 9110 §5.5):
// bytes IsValueByte accepts, without leading or trailing SP or HTAB. An
// empty v is one. O(len(v)).
func ValidFieldValue[T ~string | ~[]byte](v T) bool {
	n := len(v)
	if n == 0 {
		return true
	}
	if IsOWS(v[0]) || IsOWS(v[n-1]) {
		return false
	}
	return IndexCTL(v) < 0
}
