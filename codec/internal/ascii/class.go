package ascii

// Character classes, one bit each in Classes: a scanner reads one table
// entry per byte instead of a chain of comparisons, and tests several
// classes with one mask.
const (
	// Token marks a tchar, a byte of a token (RFC 9110 §5.6.2): method
	// names, field names, transfer codings, chunk extensions.
	Token uint8 = 1 << iota
	// Target marks a byte of a request-target (RFC 9112 §3.2, from RFC
	// 3986): unreserved, reserved (gen-delims and sub-delims) and '%'.
	Target
	// Host marks a byte of a Host value (RFC 3986 host [":" port], IP
	// literals): unreserved, sub-delims, ':', '[', ']' and '%'.
	Host
	// Scheme marks a byte of a URI scheme after its first letter (RFC
	// 3986 §3.1): ALPHA, DIGIT, '+', '-', '.'.
	Scheme
	// QdText marks qdtext, a byte a quoted-string holds unescaped (RFC
	// 9110 §5.6.4): HTAB, SP, visible ASCII but '"' and '\', obs-text.
	QdText
	// VChar marks VCHAR and obs-text (0x21–0x7E, 0x80–0xFF): what a
	// quoted-pair may escape besides SP and HTAB.
	VChar
	// Unreserved marks the unreserved bytes of RFC 3986 §2.3: ALPHA,
	// DIGIT, '-', '.', '_', '~' — what a query component carries
	// unescaped.
	Unreserved
)

// Classes holds, for each byte, the class bits it belongs to. It is
// computed once at start-up and never written again.
var Classes = func() (t [256]uint8) {
	set := func(bit uint8, s string) {
		for i := 0; i < len(s); i++ {
			t[s[i]] |= bit
		}
	}
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	set(Token, alnum+"!#$%&'*+-.^_`|~")
	set(Target, alnum+"-._~"+":/?[]@"+"!$&'()*+,;="+"%")
	set(Host, alnum+"-._~"+"!$&'()*+,;="+":[]%")
	set(Scheme, alnum+"+-.")
	set(Unreserved, alnum+"-._~")
	for c := 0x21; c < 0x7f; c++ {
		t[c] |= VChar
		if c != '"' && c != '\\' {
			t[c] |= QdText
		}
	}
	for c := 0x80; c < 0x100; c++ {
		t[c] |= VChar | QdText
	}
	t[' '] |= QdText
	t['\t'] |= QdText
	return t
}()

// Is reports whether c belongs to one of the classes in the mask.
func Is(c byte, class uint8) bool { return Classes[c]&class != 0 }

// IsTokenByte reports whether c is a tchar.
func IsTokenByte(c byte) bool { return Classes[c]&Token != 0 }

// AllIn reports whether every byte of b belongs to class (a single class
// bit); it does for an empty b. It reads four table entries per step with
// one branch. O(len(b)).
func AllIn[T ~string | ~[]byte](b T, class uint8) bool {
	acc := class
	i := 0
	for ; i+4 <= len(b); i += 4 {
		acc &= Classes[b[i]] & Classes[b[i+1]] & Classes[b[i+2]] & Classes[b[i+3]]
	}
	for ; i < len(b); i++ {
		acc &= Classes[b[i]]
	}
	return acc&class != 0
}

// IsToken reports whether b is a token: one or more tchars (RFC 9110
// §5.6.2).
func IsToken[T ~string | ~[]byte](b T) bool { return len(b) > 0 && AllIn(b, Token) }

// TokenPrefix returns the length of the longest prefix of b made of
// tchars.
func TokenPrefix(b []byte) int {
	i := 0
	for i < len(b) && Classes[b[i]]&Token != 0 {
		i++
	}
	return i
}

// IsOWS reports whether c is SP or HTAB, the bytes of optional whitespace
// (RFC 9110 §5.6.3).
func IsOWS(c byte) bool { return c == ' ' || c == '\t' }

// TrimOWS returns b without leading and trailing SP and HTAB. The result
// aliases b.
func TrimOWS(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && IsOWS(b[i]) {
		i++
	}
	for j > i && IsOWS(b[j-1]) {
		j--
	}
	return b[i:j]
}

// EqualLower reports whether b equals lower, which must be all lower case,
// ignoring the case of b's ASCII letters (and only theirs: 0x11 does not
// match '1'). O(len(lower)).
func EqualLower[T ~string | ~[]byte](b T, lower string) bool {
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

// EqualFold reports whether b and s are equal ignoring the case of ASCII
// letters. O(len(s)).
func EqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x |= 0x20
		}
		if 'A' <= y && y <= 'Z' {
			y |= 0x20
		}
		if x != y {
			return false
		}
	}
	return true
}

// Unhex maps a hexadecimal digit (either case) to its value and every
// other byte to 0xFF, so that Unhex[a]|Unhex[b] < 16 tests two digits at
// once.
var Unhex = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xFF
	}
	for c := byte('0'); c <= '9'; c++ {
		t[c] = c - '0'
	}
	for c := byte('a'); c <= 'f'; c++ {
		t[c] = c - 'a' + 10
		t[c-'a'+'A'] = c - 'a' + 10
	}
	return t
}()

// UpperHex is the hexadecimal digits, upper case, indexed by value.
const UpperHex = "0123456789ABCDEF"
