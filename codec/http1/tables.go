package http1

import "encoding/binary"

// Character classes, one bit each in chars: a 256-entry table read once per
// byte instead of a chain of comparisons.
const (
	cToken  = 1 << iota // tchar (RFC 9110 §5.6.2)
	cTarget             // a character of a request-target (RFC 3986: unreserved, reserved, '%')
	cHost               // a character of a Host value (RFC 3986 host [":" port], IP literals)
	cScheme             // ALPHA, DIGIT, '+', '-', '.'
	cQdText             // qdtext of a quoted-string (RFC 9110 §5.6.4)
	cVChar              // VCHAR / obs-text: what a quoted-pair may escape, besides SP and HTAB
)

var chars = func() (t [256]uint8) {
	set := func(bit uint8, s string) {
		for i := 0; i < len(s); i++ {
			t[s[i]] |= bit
		}
	}
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	set(cToken, alnum+"!#$%&'*+-.^_`|~")
	set(cTarget, alnum+"-._~"+":/?[]@"+"!$&'()*+,;="+"%")
	set(cHost, alnum+"-._~"+"!$&'()*+,;="+":[]%")
	set(cScheme, alnum+"+-.")
	for c := 0x21; c < 0x7f; c++ {
		t[c] |= cVChar
		if c != '"' && c != '\\' {
			t[c] |= cQdText
		}
	}
	for c := 0x80; c < 0x100; c++ {
		t[c] |= cVChar | cQdText
	}
	t[' '] |= cQdText
	t['\t'] |= cQdText
	return t
}()

// badValueByte reports whether c may not appear in a field value: a
// control character other than HTAB, or DEL (RFC 9110 §5.5). obs-text
// (0x80–0xFF) is allowed.
func badValueByte(c byte) bool { return (c < 0x20 && c != '\t') || c == 0x7f }

const (
	lo8 = 0x0101010101010101
	hi8 = 0x8080808080808080
)

// badValue returns the index of the first byte of v that may not appear in
// a field value, or -1. It tests eight bytes at a time: a word has a byte
// below 0x20 when (w - 0x20…) & ^w & 0x80… is not zero (a borrow only
// starts at such a byte, so there are no false alarms), and a DEL when
// w ^ 0x7f… has a zero byte; only then are its bytes looked at one by one
// (HTAB sets the first test off and is allowed).
func badValue(v []byte) int {
	i := 0
	for ; i+8 <= len(v); i += 8 {
		w := binary.LittleEndian.Uint64(v[i:])
		x := w ^ (0x7f * lo8)
		if (w-0x20*lo8)&^w&hi8|(x-lo8)&^x&hi8 != 0 {
			for j := i; j < i+8; j++ {
				if badValueByte(v[j]) {
					return j
				}
			}
		}
	}
	if i < len(v) && len(v) >= 8 {
		// The last bytes, in one word that overlaps the ones checked.
		w := binary.LittleEndian.Uint64(v[len(v)-8:])
		x := w ^ (0x7f * lo8)
		if (w-0x20*lo8)&^w&hi8|(x-lo8)&^x&hi8 == 0 {
			return -1
		}
	}
	for ; i < len(v); i++ {
		if badValueByte(v[i]) {
			return i
		}
	}
	return -1
}

// mayBeCTL reports, for the eight bytes of w, whether one of them may be
// a control character or DEL: it is never wrong when it says no. Per byte,
// z = ((b & 0x7f) + 1) & 0x7f is below 0x21 exactly for b < 0x20, DEL,
// 0x80–0x9f and 0xff, and z - 0x21 then sets the byte's top bit (a borrow
// only starts at such a byte). Five operations; the obs-text bytes that
// set it off are looked at one by one.
func mayBeCTL(w uint64) bool {
	z := (w&(0x7f*lo8) + lo8) & (0x7f * lo8)
	return (z-0x21*lo8)&hi8 != 0
}

// firstCTL returns the index of the first byte of l from i on that may
// not appear in a field value (see badValue), or len(l).
func firstCTL(l []byte, i int) int {
	b := l[i:]
	for len(b) >= 16 {
		if mayBeCTL(binary.LittleEndian.Uint64(b)) {
			break
		}
		if mayBeCTL(binary.LittleEndian.Uint64(b[8:])) {
			b = b[8:]
			break
		}
		b = b[16:]
	}
	for len(b) >= 8 && !mayBeCTL(binary.LittleEndian.Uint64(b)) {
		b = b[8:]
	}
	for i = len(l) - len(b); i < len(l); i++ {
		if badValueByte(l[i]) {
			return i
		}
	}
	return len(l)
}

// equalLower reports whether b equals lower, which is all lowercase,
// ignoring the case of b's ASCII letters (and only theirs: 0x11 is not
// '1').
func equalLower(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c |= 0x20
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// trimOWS returns b without leading and trailing SP and HTAB.
func trimOWS(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	for j > i && (b[j-1] == ' ' || b[j-1] == '\t') {
		j--
	}
	return b[i:j]
}

func unhex(c byte) int64 {
	switch {
	case '0' <= c && c <= '9':
		return int64(c - '0')
	case 'a' <= c && c <= 'f':
		return int64(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return int64(c - 'A' + 10)
	}
	return -1
}
