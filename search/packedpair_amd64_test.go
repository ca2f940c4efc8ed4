//go:build amd64 && !purego && linux

package search

import (
	"math/bits"
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

// TestPackedPairKernels checks each kernel's result against the positions
// it describes, on streams that end at an inaccessible page: the mask's
// lowest bit is the first candidate, every bit is a candidate, and no
// candidate between the lowest and highest bits is left out. The pair
// kernels are checked as triple kernels whose third stream is the second.
func TestPackedPairKernels(t *testing.T) {
	type kernel func(a, b, c *byte, m int, b1, b2, b3 byte) (int, uint64)
	pair := func(f func(a, b *byte, m int, b1, b2 byte) (int, uint64)) kernel {
		return func(a, b, c *byte, m int, b1, b2, b3 byte) (int, uint64) {
			if c != b || b3 != b2 {
				panic("pair kernel given a distinct third stream")
			}
			return f(a, b, m, b1, b2)
		}
	}
	kernels := []struct {
		name   string
		level  simdLevel
		width  int
		triple bool
		f      kernel
	}{
		{"pairSSE2", simdSSE2, 16, false, pair(packedPairSSE2)},
		{"tripleSSE2", simdSSE2, 16, true, packedTripleSSE2},
		{"pairAVX2", simdAVX2, 32, false, pair(packedPairAVX2)},
		{"tripleAVX2", simdAVX2, 32, true, packedTripleAVX2},
	}
	rng := rand.New(rand.NewPCG(41, 42))
	for _, k := range kernels {
		if k.level > detected {
			continue
		}
		for m := k.width; m <= 300; m++ {
			for range 20 {
				// The streams are one buffer at offsets 0, d and e, as
				// for offsets i1, i2 and i3 of a needle.
				d, e := rng.IntN(40), rng.IntN(40)
				buf := guarded(t, m+max(d, e))
				for i := range buf {
					buf[i] = "xyXY"[rng.IntN(4)]
					if rng.IntN(10) == 0 {
						buf[i] = "ab"[rng.IntN(2)]
					}
				}
				a, b, c := buf[:m], buf[d:d+m], buf[e:e+m]
				b3 := byte('a')
				if !k.triple {
					c, b3 = b, 'b'
				}
				cand := func(i int) bool { return a[i] == 'a' && b[i] == 'b' && c[i] == b3 }
				first := -1
				for i := range m {
					if cand(i) {
						first = i
						break
					}
				}
				off, mask := k.f(&a[0], &b[0], &c[0], m, 'a', 'b', b3)
				if first < 0 {
					require.Equal(t, uint64(0), mask, "%s m=%d: mask %#x at %d, want none", k.name, m, mask, off)
					continue
				}
				require.NotEqual(t, uint64(0), mask, "%s m=%d: (%d, %#x), first candidate at %d", k.name, m, off, mask, first)
				require.Equal(t, first, off+bits.TrailingZeros64(mask), "%s m=%d: (%d, %#x), first candidate at %d", k.name, m, off, mask, first)
				hi := off + 63 - bits.LeadingZeros64(mask)
				require.Less(t, hi, m, "%s m=%d: (%d, %#x) goes past m", k.name, m, off, mask)
				for i := first; i <= hi; i++ {
					bit := mask>>(i-off)&1 == 1
					require.Equal(t, cand(i), bit, "%s m=%d: (%d, %#x): bit for %d is %v, candidate %v", k.name, m, off, mask, i, bit, cand(i))
				}
			}
		}
	}
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
