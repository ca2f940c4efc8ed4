//go:build amd64 && !purego && linux

package search

import (
	"math/rand/v2"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// guarded returns a slice of n bytes that ends where an inaccessible page
// begins, so that reading one byte past it faults.
func guarded(t *testing.T, n int) []byte {
	t.Helper()
	page := syscall.Getpagesize()
	size := (n+page-1)/page*page + page
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	if err := syscall.Mprotect(mem[size-page:], syscall.PROT_NONE); err != nil {
		t.Skipf("mprotect: %v", err)
	}
	return mem[size-page-n : size-page : size-page]
}

// TestPatternGuarded runs Pattern.Index at every level on haystacks that
// end at an inaccessible page, with the needle absent, so that every start
// position, the last ones included, is scanned.
func TestPatternGuarded(t *testing.T) {
	forEachSIMD(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(43, 44))
		for hl := 2; hl <= 150; hl++ {
			h := guarded(t, hl)
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
