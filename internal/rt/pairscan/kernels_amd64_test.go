//go:build amd64 && !purego && linux

package pairscan

import (
	"math/rand/v2"
	"testing"

	"github.com/netkit/netkit/internal/testenv"
)

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
		level  Level
		width  int
		triple bool
		f      kernel
	}{
		{"pairSSE2", SSE2, 16, false, pair(packedPairSSE2)},
		{"tripleSSE2", SSE2, 16, true, packedTripleSSE2},
		{"pairAVX2", AVX2, 32, false, pair(packedPairAVX2)},
		{"tripleAVX2", AVX2, 32, true, packedTripleAVX2},
	}
	rng := rand.New(rand.NewPCG(41, 42))
	for _, k := range kernels {
		if k.level > Best {
			continue
		}
		for m := k.width; m <= 300; m++ {
			for range 20 {
				// The streams are one buffer at offsets 0, d and e, as
				// for offsets i1, i2 and i3 of a needle.
				d, e := rng.IntN(40), rng.IntN(40)
				buf := testenv.Guarded(t, m+max(d, e))
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
				off, mask := k.f(&a[0], &b[0], &c[0], m, 'a', 'b', b3)
				checkBlock(t, k.name, m, cand, off, mask)
			}
		}
	}
}
