package query

import "strings"

const upperhex = "0123456789ABCDEF"

// keep[c] is true for the bytes a query component carries unescaped: the
// unreserved set of RFC 3986 (ALPHA, DIGIT, '-', '.', '_', '~'), as net/url's
// QueryEscape keeps them.
var keep = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
		t[c+'a'-'A'] = true
	}
	for _, c := range "-._~" {
		t[c] = true
	}
	return t
}()

// AppendEscape appends the query-component escaping of s to dst and returns
// the extended slice: the bytes url.QueryEscape returns. A space becomes '+',
// unreserved bytes stay, every other byte becomes %XX with upper-case hex.
// It allocates only when dst has to grow. O(len(s)).
func AppendEscape(dst, s []byte) []byte {
	i := keepPrefix(s)
	if i == len(s) {
		return append(dst, s...)
	}
	dst = append(dst, s[:i]...)
	for i < len(s) {
		if c := s[i]; c == ' ' {
			dst = append(dst, '+')
		} else {
			dst = append(dst, '%', upperhex[c>>4], upperhex[c&15])
		}
		i++
		n := keepPrefix(s[i:])
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
		if !keep[s[i]] {
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
		for j < len(s) && keep[s[j]] {
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
			b.WriteByte(upperhex[c>>4])
			b.WriteByte(upperhex[c&15])
		}
		i = j + 1
	}
	return b.String()
}
