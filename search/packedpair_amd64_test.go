//go:build amd64 && !purego && linux

package search

import (
	"math/rand/v2"
	"testing"

	"github.com/netkit/netkit/internal/testenv"
	"github.com/stretchr/testify/require"
)

// TestPatternGuarded runs Pattern.Index at every level on haystacks that
// end at an inaccessible page, with the needle absent, so that every start
// position, the last ones included, is scanned.
func TestPatternGuarded(t *testing.T) {
	forEachSIMD(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(43, 44))
		for hl := 2; hl <= 150; hl++ {
			h := testenv.Guarded(t, hl)
			for n := 2; n <= min(hl, 40); n++ {
				for i := range h {
					h[i] = "ab"[rng.IntN(2)]
				}
				needle := randomText(rng, n, "ab")
				needle[rng.IntN(n)] = 'c'
				require.Equal(t, -1, NewPattern(needle).Index(h), "Pattern(%q).Index(%q)", needle, h)
				copy(h[hl-n:], needle)
				require.Equal(t, indexSlow(h, needle), NewPattern(needle).Index(h), "Pattern(%q).Index(%q)", needle, h)
			}
		}
	})
}
