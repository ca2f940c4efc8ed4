package search

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPatternFallbacks drives Pattern.Index into each of its fallbacks —
// the windowed brute force for needles of up to bruteNeedle bytes and
// Two-Way beyond — with long haystacks over small alphabets, where
// candidates for the rarest byte are dense, and checks it against
// bytes.Index, matches near the end and across window seams included.
func TestPatternFallbacks(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for trial := range 2000 {
		alphabet := "ab"
		if trial%2 == 1 {
			alphabet = "abcd"
		}
		h := make([]byte, 300+rng.IntN(3000))
		for i := range h {
			h[i] = alphabet[rng.IntN(len(alphabet))]
		}
		n := 2 + rng.IntN(14)
		needle := make([]byte, n)
		for i := range needle {
			needle[i] = alphabet[rng.IntN(len(alphabet))]
		}
		if rng.IntN(2) == 0 {
			needle[rng.IntN(n)] = 'z' // absent, so the whole haystack is scanned
			if rng.IntN(2) == 0 {
				copy(h[len(h)-n-rng.IntN(100):], needle)
			}
		}
		want := bytes.Index(h, needle)
		require.Equal(t, want, NewPattern(needle).Index(h), "trial %d: Pattern(%q).Index (haystack %d bytes)", trial, needle, len(h))
		require.Equal(t, want, Index(h, needle), "trial %d: one-shot Index(%q) (haystack %d bytes)", trial, needle, len(h))
	}
}
