//go:build amd64 && !purego

package search

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTeddyNoSSSE3 checks that at the SSE2 level a CPU without SSSE3 (no
// PSHUFB) gets the byte prefilter, with the same matches.
func TestTeddyNoSSSE3(t *testing.T) {
	withSIMD(t, simdSSE2)
	old := hasSSSE3
	hasSSSE3 = false
	t.Cleanup(func() { hasSSSE3 = old })
	pats := toBytes([]string{"abc", "bca", "ca"})
	s := NewSet(pats)
	require.Same(t, s.pf, s.prefilter(), "without SSSE3, the Set uses Teddy")
	rng := rand.New(rand.NewPCG(9, 10))
	_, h := teddyRandom(rng, "abc", 1, 1, 500)
	for kind := range overlapping + 1 {
		setCheck(t, pats, h, kind, false, rng)
	}
}
