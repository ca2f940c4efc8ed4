//go:build amd64 && !purego && linux

package search

import (
	"math/bits"
	"math/rand/v2"
	"syscall"
	"testing"
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
// candidate between the lowest and highest bits is left out.
func TestPackedPairKernels(t *testing.T) {
	kernels := []struct {
		level simdLevel
		width int
		f     func(a, b *byte, m int, b1, b2 byte) (int, uint64)
	}{
		{simdSSE2, 16, packedPairSSE2},
		{simdAVX2, 32, packedPairAVX2},
	}
	rng := rand.New(rand.NewPCG(41, 42))
	for _, k := range kernels {
		if k.level > detected {
			continue
		}
		for m := k.width; m <= 300; m++ {
			for range 20 {
				d := rng.IntN(40) // b is a at offset d, as for i2 = i1+d
				buf := guarded(t, m+d)
				for i := range buf {
					buf[i] = "xyXY"[rng.IntN(4)]
					if rng.IntN(50) == 0 {
						buf[i] = "ab"[rng.IntN(2)]
					}
				}
				a, b := buf[:m], buf[d:d+m]
				if rng.IntN(2) == 0 {
					a, b = b, a
				}
				first := -1
				for i := range m {
					if a[i] == 'a' && b[i] == 'b' {
						first = i
						break
					}
				}
				off, mask := k.f(&a[0], &b[0], m, 'a', 'b')
				if first < 0 {
					if mask != 0 {
						t.Fatalf("%v m=%d: mask %#x at %d, want none", k.level, m, mask, off)
					}
					continue
				}
				if mask == 0 || off+bits.TrailingZeros64(mask) != first {
					t.Fatalf("%v m=%d: (%d, %#x), first candidate at %d", k.level, m, off, mask, first)
				}
				hi := off + 63 - bits.LeadingZeros64(mask)
				if hi >= m {
					t.Fatalf("%v m=%d: (%d, %#x) goes past m", k.level, m, off, mask)
				}
				for i := first; i <= hi; i++ {
					cand := a[i] == 'a' && b[i] == 'b'
					if bit := mask>>(i-off)&1 == 1; bit != cand {
						t.Fatalf("%v m=%d: (%d, %#x): bit for %d is %v, candidate %v", k.level, m, off, mask, i, bit, cand)
					}
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
				if got := NewPattern(needle).Index(h); got != -1 {
					t.Fatalf("Pattern(%q).Index(%q) = %d, want -1", needle, h, got)
				}
				copy(h[hl-n:], needle)
				if got, want := NewPattern(needle).Index(h), indexSlow(h, needle); got != want {
					t.Fatalf("Pattern(%q).Index(%q) = %d, want %d", needle, h, got, want)
				}
			}
		}
	})
}
