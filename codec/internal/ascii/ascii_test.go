package ascii

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The classes spelled out from the RFCs' ABNF, byte by byte, as a
// reference for the table.
func slowClass(c byte, class uint8) bool {
	alpha := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
	digit := '0' <= c && c <= '9'
	unreserved := alpha || digit || strings.IndexByte("-._~", c) >= 0
	subDelims := strings.IndexByte("!$&'()*+,;=", c) >= 0
	switch class {
	case Token:
		return alpha || digit || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
	case Target:
		return unreserved || subDelims || strings.IndexByte(":/?[]@%", c) >= 0
	case Host:
		return unreserved || subDelims || strings.IndexByte(":[]%", c) >= 0
	case Scheme:
		return alpha || digit || c == '+' || c == '-' || c == '.'
	case QdText:
		return c == '\t' || c == ' ' || c == 0x21 || 0x23 <= c && c <= 0x5b || 0x5d <= c && c <= 0x7e || c >= 0x80
	case VChar:
		return 0x21 <= c && c <= 0x7e || c >= 0x80
	case Unreserved:
		return unreserved
	}
	panic("unknown class")
}

func TestClasses(t *testing.T) {
	for _, class := range []uint8{Token, Target, Host, Scheme, QdText, VChar, Unreserved} {
		for c := range 256 {
			assert.Equal(t, slowClass(byte(c), class), Is(byte(c), class), "class %#x, byte %#x", class, c)
		}
	}
	for c := range 256 {
		assert.Equal(t, slowClass(byte(c), Token), IsTokenByte(byte(c)), "byte %#x", c)
	}
}

func TestAllIn(t *testing.T) {
	assert.True(t, AllIn("", Token))
	assert.False(t, IsToken(""))
	assert.False(t, IsToken([]byte{}))
	for n := 1; n < 12; n++ {
		for bad := range n + 1 {
			b := []byte(strings.Repeat("a", n))
			if bad < n {
				b[bad] = ' '
			}
			assert.Equal(t, bad == n, IsToken(b), "%q", b)
			assert.Equal(t, bad == n, IsToken(string(b)), "string %q", b)
			assert.Equal(t, bad, TokenPrefix(b), "%q", b)
		}
	}
}

func TestFold(t *testing.T) {
	assert.True(t, EqualLower([]byte("Content-Length"), "content-length"))
	assert.True(t, EqualLower("CHUNKED", "chunked"))
	assert.False(t, EqualLower([]byte("chunke"), "chunked"))
	// Only ASCII letters fold: 0x11 | 0x20 is '1', and must not match.
	assert.False(t, EqualLower([]byte{0x11}, "1"))
	assert.True(t, EqualFold([]byte("HoSt"), "hOsT"))
	assert.False(t, EqualFold([]byte{0x11}, "1"))
	assert.False(t, EqualFold([]byte("host"), "hosts"))
	for c := range 256 {
		for d := range 128 {
			want := c == d || c < 128 && strings.EqualFold(string(rune(c)), string(rune(d)))
			assert.Equal(t, want, EqualFold([]byte{byte(c)}, string(rune(d))), "%#x %#x", c, d)
		}
	}
}

func TestTrimOWS(t *testing.T) {
	for in, want := range map[string]string{"": "", " \t": "", "\t a b \t": "a b", "x": "x", " x": "x"} {
		assert.Equal(t, want, string(TrimOWS([]byte(in))), "%q", in)
	}
}

func TestUnhex(t *testing.T) {
	for c := range 256 {
		want := byte(0xFF)
		switch {
		case '0' <= c && c <= '9':
			want = byte(c - '0')
		case 'a' <= c && c <= 'f':
			want = byte(c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			want = byte(c - 'A' + 10)
		}
		assert.Equal(t, want, Unhex[c], "byte %#x", c)
	}
	for v := range 16 {
		assert.Equal(t, byte(v), Unhex[UpperHex[v]])
	}
}

// word spreads the bytes of a lane test: fill everywhere, c at pos.
func word(fill, c byte, pos int) uint64 {
	var w [8]byte
	for i := range w {
		w[i] = fill
	}
	w[pos] = c
	return binary.LittleEndian.Uint64(w[:])
}

// TestWordTests checks each SWAR test against its byte-by-byte meaning,
// for every byte in every lane among every other byte.
func TestWordTests(t *testing.T) {
	for pos := range 8 {
		for fill := range 256 {
			for c := range 256 {
				w := word(byte(fill), byte(c), pos)
				has := func(f func(b byte) bool) bool { return f(byte(fill)) || f(byte(c)) }
				if (HasZero(w) != 0) != has(func(b byte) bool { return b == 0 }) {
					require.Failf(t, "HasZero", "%#016x", w)
				}
				if (HasByte(w, '+') != 0) != has(func(b byte) bool { return b == '+' }) {
					require.Failf(t, "HasByte", "%#016x", w)
				}
				if (HasLess(w, 0x20) != 0) != has(func(b byte) bool { return b < 0x20 }) {
					require.Failf(t, "HasLess", "%#016x", w)
				}
				bad := has(func(b byte) bool { return !IsValueByte(b) })
				got := MayBeCTL(w)
				if bad && !got {
					require.Failf(t, "MayBeCTL", "%#016x: a control byte not flagged", w)
				}
				if !bad && got && fill < 0x80 && c < 0x80 && fill != '\t' && c != '\t' {
					require.Failf(t, "MayBeCTL", "%#016x: flagged without a control byte, HTAB or obs-text", w)
				}
			}
		}
	}
}

// TestUnreservedWord checks the 8-byte test against the table for every
// byte in every lane, among neighbours that are kept and neighbours that
// are not.
func TestUnreservedWord(t *testing.T) {
	for _, fill := range []byte{'a', '~', '0', 0x7f, 0x80, 0xff} {
		for lane := range 8 {
			for c := range 256 {
				w := word(fill, byte(c), lane)
				want := Is(fill, Unreserved) && Is(byte(c), Unreserved)
				require.Equal(t, want, UnreservedWord(w) == Hi8, "%#016x", w)
			}
		}
	}
}

func TestUnreservedPrefix(t *testing.T) {
	for n := range 40 {
		for bad := range n + 1 {
			s := make([]byte, n)
			for i := range s {
				s[i] = "aZ09-._~"[i%8]
			}
			if bad < n {
				s[bad] = '/'
			}
			require.Equal(t, bad, UnreservedPrefix(s), "%q", s)
		}
	}
}

func slowIndexCTL(s []byte) int {
	for i, c := range s {
		if c < 0x20 && c != '\t' || c == 0x7f {
			return i
		}
	}
	return -1
}

// TestIndexCTL puts each kind of byte at each position of values of every
// length up to 40, among plain bytes and among obs-text and HTAB (which
// set the word test off without being refused).
func TestIndexCTL(t *testing.T) {
	for n := range 41 {
		for _, fill := range []byte{'a', '\t', 0x80, 0x9f, 0xff, ' '} {
			for pos := range n + 1 {
				for _, c := range []byte{0, '\r', '\n', 0x1f, 0x7f, '\t', 0x80, 'x', 0xff} {
					s := make([]byte, n)
					for i := range s {
						s[i] = fill
					}
					if pos < n {
						s[pos] = c
					}
					want := slowIndexCTL(s)
					require.Equal(t, want, IndexCTL(s), "%q", s)
					require.Equal(t, want, IndexCTL(string(s)), "string %q", s)
				}
			}
		}
	}
}

func TestValidFieldValue(t *testing.T) {
	for v, want := range map[string]bool{
		"": true, "a": true, "a b": true, "a\tb": true, " a": false, "a ": false, "\ta": false,
		"a\x00": false, "0123456789abcdef\r\n": false, "é\x80\xff": true, "\x7f": false,
	} {
		assert.Equal(t, want, ValidFieldValue(v), "%q", v)
		assert.Equal(t, want, ValidFieldValue([]byte(v)), "bytes %q", v)
	}
}

// TestValidFieldValueEveryByte checks the word-at-a-time value check
// against the ABNF's, with every byte at every position of values of 1 to
// 17 bytes, among plain bytes and among obs-text.
func TestValidFieldValueEveryByte(t *testing.T) {
	const banned = "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0a\x0b\x0c\x0d\x0e\x0f" +
		"\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x7f"
	for n := 1; n <= 17; n++ {
		for pos := range n {
			for c := range 256 {
				for _, fill := range []byte{'a', 0xff, 0x80} {
					v := bytes.Repeat([]byte{fill}, n)
					v[pos] = byte(c)
					want := !strings.ContainsAny(string(v), banned) && strings.Trim(string(v), " \t") == string(v)
					require.Equal(t, want, ValidFieldValue(v), "%q", v)
					require.Equal(t, want, ValidFieldValue(string(v)), "string %q", v)
				}
			}
		}
	}
}

func FuzzIndexCTL(f *testing.F) {
	f.Add([]byte("text/html; charset=utf-8"))
	f.Add([]byte("0123456789abcdef\x80\x81\x82\x83\x84\x85\x86\x87\x00"))
	f.Fuzz(func(t *testing.T, s []byte) {
		require.Equal(t, slowIndexCTL(s), IndexCTL(s))
		require.Equal(t, slowIndexCTL(s), IndexCTL(string(s)))
	})
}
