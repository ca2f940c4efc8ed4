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
