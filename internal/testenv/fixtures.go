package testenv

import (
	"bytes"
	"math/rand/v2"
)

// RandomLayout returns up to n random bytes of alphabet and a layout to
// cut them into a composite's components: component lengths of 1 to 9
// bytes, used in turn (a layout of {1} makes every byte a component of its
// own, one time in three).
func RandomLayout(r *rand.Rand, alphabet string, n int) ([]byte, []int) {
	data := make([]byte, r.IntN(n+1))
	for i := range data {
		data[i] = alphabet[r.IntN(len(alphabet))]
	}
	if r.IntN(3) == 0 {
		return data, []int{1}
	}
	layout := make([]int, 1+r.IntN(6))
	for i := range layout {
		layout[i] = 1 + r.IntN(9)
	}
	return data, layout
}

// Needle returns a needle of 1 to n bytes to search h for: mostly a piece
// of h (so that it is found), sometimes random bytes of alphabet.
func Needle(r *rand.Rand, h []byte, alphabet string, n int) []byte {
	k := 1 + r.IntN(n)
	if len(h) > 0 && r.IntN(4) != 0 {
		i := r.IntN(len(h))
		return bytes.Clone(h[i:min(i+k, len(h))])
	}
	p := make([]byte, k)
	for i := range p {
		p[i] = alphabet[r.IntN(len(alphabet))]
	}
	return p
}

// An IndexCase is a search over a composite: Content cut by Layout (as
// RandomLayout's layouts are used), Skip bytes consumed first, then a
// search for Needle, whose answer is Want (an offset from the first unread
// byte, or -1).
type IndexCase struct {
	Content string
	Layout  []int
	Skip    int
	Needle  string
	Want    int
}

// IndexCases are the hand-picked cases every composite search is tested
// on: empty content and needle, matches at the start, across seams and
// after a skip, needles longer than a component or than the content, and
// periodic content that defeats naive restarts.
var IndexCases = []IndexCase{
	{"", []int{1}, 0, "", 0},
	{"", []int{1}, 0, "a", -1},
	{"abc", []int{1}, 0, "", 0},
	{"abc", []int{1}, 3, "", 0},
	{"abc", []int{1}, 0, "c", 2},
	{"abcabc", []int{2}, 0, "ca", 2},
	{"abcabc", []int{2}, 1, "ab", 2},
	{"abcabc", []int{2}, 4, "ab", -1},
	{"abc", []int{1}, 0, "abcd", -1},
	{"hello\r\n\r\nbody", []int{6, 1, 1, 1, 9}, 0, "\r\n\r\n", 5},
	{"hello\r\n\r\nbody", []int{6, 1, 1, 1, 9}, 3, "\r\n\r\n", 2},
	{"aaaaaaaaaaaaaaaaaaaaaaab", []int{1}, 0, "aaaaaaaaaaab", 12},
	{"aaaaaaaaaaaaaaaaaaaaaaab", []int{2, 3}, 5, "aaaaab", 13},
	{"xyzxyzxyzxyzxy", []int{1}, 0, "xyzxyzxyzxyzxyz", -1},
	{"ab", []int{1}, 0, "ab", 0},
}
