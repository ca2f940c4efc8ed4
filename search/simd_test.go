package search

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// simdLevels returns every level this process can run, widest first, down
// to pure Go.
func simdLevels() []simdLevel {
	var ls []simdLevel
	for l := detected; ; l-- {
		ls = append(ls, l)
		if l == simdNone {
			return ls
		}
	}
}

// detected is the level chosen at start-up, before any test lowered it.
var detected = simd

// forEachSIMD runs f once per level in simdLevels, as a subtest named by
// the level, with simd set to it. Tests that use it must not be parallel.
func forEachSIMD(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	for _, l := range simdLevels() {
		t.Run(l.String(), func(t *testing.T) {
			withSIMD(t, l)
			f(t)
		})
	}
}

// withSIMD sets simd to l until t ends.
func withSIMD(t testing.TB, l simdLevel) {
	old := simd
	simd = l
	t.Cleanup(func() { simd = old })
}

func TestSIMDDetected(t *testing.T) {
	t.Logf("search kernels: %v (levels tested: %v)", detected, simdLevels())
	require.Equal(t, kernelsBuilt, detected != simdNone, "kernels built: %v, but the level detected is %v", kernelsBuilt, detected)
}
