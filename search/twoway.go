package search

import "bytes"

// TwoWay searches for one needle with the Two-Way algorithm of Crochemore
// and Perrin ("Two-way string-matching", J. ACM 38(3), 1991). The needle is
// split at a critical factorization u·v, found from the maximal suffixes of
// the needle under the byte order and its reverse; each attempt compares v
// left to right, then u right to left, and shifts by the local period. Index
// runs in O(len(haystack)+len(needle)) time in the worst case (at most
// 2·len(haystack) comparisons) and needs O(1) space beyond the needle.
//
// A TwoWay is immutable once built and safe for concurrent use.
type TwoWay struct {
	needle []byte
	ell    int  // u = needle[:ell+1], v = needle[ell+1:]; -1 ≤ ell < len(needle)
	per    int  // period of the needle (periodic) or the safe shift (otherwise)
	short  bool // true when u is a suffix of v's prefix of length per: the needle has period per
}

// NewTwoWay returns a TwoWay searcher for needle. It keeps its own copy of
// needle, so the caller may modify needle afterwards.
func NewTwoWay(needle []byte) *TwoWay { return newTwoWay(bytes.Clone(needle)) }

// newTwoWay is NewTwoWay without the copy: the TwoWay keeps needle.
func newTwoWay(needle []byte) *TwoWay {
	t := new(TwoWay)
	t.init(needle)
	return t
}

// init prepares t for needle, without copying it.
func (t *TwoWay) init(needle []byte) {
	t.needle = needle
	n := t.needle
	m := len(n)
	if m == 0 {
		return
	}
	i, p := maxSuffix(n, false)
	j, q := maxSuffix(n, true)
	if i > j {
		t.ell, t.per = i, p
	} else {
		t.ell, t.per = j, q
	}
	if bytes.Equal(n[:t.ell+1], n[t.per:t.per+t.ell+1]) {
		t.short = true // the needle is periodic with period per
	} else {
		t.per = max(t.ell+1, m-t.ell-1) + 1
	}
}

// maxSuffix returns the start of the maximal suffix of x minus one (so -1
// means the whole of x) and the period of that suffix, under the byte order
// or, when rev is set, its reverse.
func maxSuffix(x []byte, rev bool) (ms, p int) {
	ms, j, k := -1, 0, 1
	p = 1
	for j+k < len(x) {
		a, b := x[j+k], x[ms+k]
		if rev {
			a, b = b, a
		}
		switch {
		case a < b:
			j += k
			k = 1
			p = j - ms
		case a == b:
			if k != p {
				k++
			} else {
				j += p
				k = 1
			}
		default:
			ms = j
			j = ms + 1
			k, p = 1, 1
		}
	}
	return ms, p
}

// Len returns the length of the needle.
func (t *TwoWay) Len() int { return len(t.needle) }

// Index returns the index of the first instance of the needle in haystack,
// or -1 if it is not present; an empty needle is found at 0, as with
// bytes.Index.
func (t *TwoWay) Index(haystack []byte) int {
	x, y := t.needle, haystack
	m := len(x)
	if m == 0 {
		return 0
	}
	ell, per := t.ell, t.per
	if t.short {
		// Periodic needle: after a full match attempt that shifts by the
		// period, the first m-per bytes are known to match (memory).
		memory := -1
		for j := 0; j <= len(y)-m; {
			i := max(ell, memory) + 1
			for i < m && x[i] == y[i+j] {
				i++
			}
			if i < m {
				j += i - ell
				memory = -1
				continue
			}
			i = ell
			for i > memory && x[i] == y[i+j] {
				i--
			}
			if i <= memory {
				return j
			}
			j += per
			memory = m - per - 1
		}
		return -1
	}
	for j := 0; j <= len(y)-m; {
		i := ell + 1
		for i < m && x[i] == y[i+j] {
			i++
		}
		if i < m {
			j += i - ell
			continue
		}
		i = ell
		for i >= 0 && x[i] == y[i+j] {
			i--
		}
		if i < 0 {
			return j
		}
		j += per
	}
	return -1
}

// Matcher returns a Matcher that reports every occurrence of the needle in
// a stream, overlapping ones included, at absolute stream offsets. Two-Way
// needs to look back at bytes of earlier chunks, so the streaming search is
// delegated to KMP: Matcher builds a KMP failure table (len(needle) int32s,
// allocated once per call) and the state crossing a chunk boundary is the
// KMP state plus the stream offset, as documented on KMP.Matcher.
func (t *TwoWay) Matcher() Matcher { return newKMP(t.needle).Matcher() }
