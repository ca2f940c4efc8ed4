package query

import (
	"slices"
	"strings"

	"github.com/netkit/netkit/codec/internal/ascii"
)

// decode writes the query-component decoding of s into out, which must have
// room for len(s) bytes, and returns how many bytes it wrote and the offset
// in s of the first bad escape, or -1. With lenient set, a '%' that does not
// start a valid escape is kept as a literal '%' and decoding never fails.
func decode(out, s []byte, lenient bool) (int, int) {
	out = out[:len(s)]
	j := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '%':
			if i+2 < len(s) {
				if h, l := ascii.Unhex[s[i+1]], ascii.Unhex[s[i+2]]; h|l < 16 {
					out[j] = h<<4 | l
					j++
					i += 2
					continue
				}
			}
			if !lenient {
				return j, i
			}
			out[j] = '%'
			j++
		case '+':
			out[j] = ' '
			j++
		default:
			out[j] = c
			j++
		}
	}
	return j, -1
}

// AppendUnescape appends the query-component decoding of s to dst: each %XX
// becomes the byte 0xXX and each '+' a space, as url.QueryUnescape does. On a
// '%' not followed by two hexadecimal digits it returns dst unchanged and a
// [*SyntaxError] of kind [ErrBadEscape] whose Offset is that '%' in s; it
// accepts and rejects exactly the inputs url.QueryUnescape does. It
// allocates only when dst has to grow (by at most len(s)). O(len(s)).
func AppendUnescape(dst, s []byte) ([]byte, error) {
	n := len(dst)
	dst = slices.Grow(dst, len(s))
	w, bad := decode(dst[n:n+len(s)], s, false)
	if bad >= 0 {
		return dst[:n], &SyntaxError{Offset: bad, Kind: ErrBadEscape}
	}
	return dst[:n+w], nil
}

// Unescape returns the query-component decoding of s, with the same result
// and the same accept/reject decisions as url.QueryUnescape; the error is a
// [*SyntaxError] of kind [ErrBadEscape]. It returns s itself, without
// allocating, when s holds no '%' and no '+'.
func Unescape(s string) (string, error) {
	i := strings.IndexAny(s, "%+")
	if i < 0 {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		switch c := s[i]; c {
		case '%':
			if i+2 >= len(s) || ascii.Unhex[s[i+1]]|ascii.Unhex[s[i+2]] >= 16 {
				return "", &SyntaxError{Offset: i, Kind: ErrBadEscape}
			}
			b.WriteByte(ascii.Unhex[s[i+1]]<<4 | ascii.Unhex[s[i+2]])
			i += 2
		case '+':
			b.WriteByte(' ')
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}
