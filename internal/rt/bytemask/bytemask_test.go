package bytemask

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// Masks agrees with the byte-at-a-time twin on random blocks, at every
// alignment, for one byte and for two, with each kernel this CPU runs.
func TestMasksMatchTwin(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	p := make([]byte, 64*9+64)
	for round := range 300 {
		alphabet := []byte{'\n', '\r', 'a', ';', 0, 0xff}[:2+round%4]
		for i := range p {
			p[i] = alphabet[r.IntN(len(alphabet))]
		}
		c1, c2 := alphabet[r.IntN(len(alphabet))], alphabet[r.IntN(len(alphabet))]
		for _, off := range []int{0, 1, 7, 31, 63} {
			blocks := r.IntN(9)
			want := make([]uint64, blocks)
			twin(want, p[off:], c1, c2)
			got := make([]uint64, blocks+1)
			got[blocks] = 0x5555 // a word past dst: never written
			Masks(got[:blocks], p[off:], c1, c2)
			require.Equal(t, want, got[:blocks], "round %d, offset %d, %d blocks, bytes %q %q", round, off, blocks, c1, c2)
			require.Equal(t, uint64(0x5555), got[blocks], "a kernel wrote past dst")
			if Built {
				for _, k := range kernels() {
					g := make([]uint64, blocks)
					if blocks > 0 {
						k.f(&p[off], blocks, c1, c2, &g[0])
					}
					require.Equal(t, want, g, "%s: round %d, offset %d", k.name, round, off)
				}
			}
		}
	}
}

// Masks refuses a p shorter than the masks it is asked for.
func TestMasksShort(t *testing.T) {
	require.Panics(t, func() { Masks(make([]uint64, 2), make([]byte, 127), 'a', 'a') })
	Masks(nil, nil, 'a', 'a') // nothing asked, nothing read
}

func BenchmarkMasks(b *testing.B) {
	p := make([]byte, 64<<10)
	dst := make([]uint64, len(p)/64)
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		Masks(dst, p, '\n', '\n')
	}
}
