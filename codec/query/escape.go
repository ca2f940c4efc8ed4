package query

import (
	"strings"

	"github.com/netkit/netkit/codec/internal/ascii"
)

// AppendEscape appends the query-component escaping of s to dst and returns
// the extended slice: the bytes url.QueryEscape returns. A space becomes '+',
// unreserved bytes stay, every other byte becomes %XX with upper-case hex.
// It allocates only when dst has to grow. O(len(s)).
func AppendEscape(dst, s []byte) []byte {
	i := ascii.UnreservedPrefix(s)
	if i == len(s) {
		return append(dst, s...)
	}
	dst = append(dst, s[:i]...)
	for i < len(s) {
		if c := s[i]; c == ' ' {
			dst = append(dst, '+')
		} else {
			dst = append(dst, '%', ascii.UpperHex[c>>4], ascii.UpperHex[c&15])
		}
		i++
		n := ascii.UnreservedPrefix(s[i:])
		dst = append(dst, s[i:i+n]...)
		i += n
	}
	return dst
}

// Escape returns the query-component escaping of s, the same string as
// url.QueryEscape. It returns s itself, without allocating, when nothing
// needs escaping, and allocates the result once otherwise.
func Escape(s string) string {
	n, changed := len(s), false
	for i := 0; i < len(s); i++ {
		if !ascii.Is(s[i], ascii.Unreserved) {
			changed = true
			if s[i] != ' ' {
				n += 2
			}
		}
	}
	if !changed {
		return s
	}
	var b strings.Builder
	b.Grow(n)
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && ascii.Is(s[j], ascii.Unreserved) {
			j++
		}
		b.WriteString(s[i:j])
		if j == len(s) {
			break
		}
		if c := s[j]; c == ' ' {
			b.WriteByte('+')
		} else {
			b.WriteByte('%')
			b.WriteByte(ascii.UpperHex[c>>4])
			b.WriteByte(ascii.UpperHex[c&15])
		}
		i = j + 1
	}
	return b.String()
}
