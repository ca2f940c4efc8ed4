package search

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/netkit/netkit/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPatternLevels checks Pattern.Index and the one-shot Index at every
// vector level against bytes.Index, on haystacks and needles of every
// length around the vector widths (16, 32, and the 64 positions of an
// unrolled AVX2 block), with the needle planted at every distance from the
// end, absent, or with only its rare pair present (candidates that fail).
func TestPatternLevels(t *testing.T) {
	forEachSIMD(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(31, 32))
		for hl := 0; hl <= 200; hl++ {
			for _, n := range []int{2, 3, 4, 5, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100} {
				if n > hl+1 {
					continue
				}
				needle := randomText(rng, n, "abcdefgh")
				needle[rng.IntN(n)] = 'Q'
				needle[rng.IntN(n)] = 'Z'
				h := randomText(rng, hl, "abcdefgh")
				checkLevel(t, h, needle)
				// Planted at a random place, and at the very end.
				if n <= hl {
					at := rng.IntN(hl - n + 1)
					copy(h, needle)
					copy(h[at:], needle)
					checkLevel(t, h, needle)
					copy(h[hl-n:], needle)
					checkLevel(t, h, needle)
				}
				// Pair bytes all over, the needle nowhere.
				for i := range h {
					if rng.IntN(4) == 0 {
						h[i] = "QZ"[rng.IntN(2)]
					}
				}
				if !bytes.Contains(h, needle) {
					checkLevel(t, h, needle)
				}
			}
		}
	})
}

// checkLevel fails t unless Pattern.Index and Index agree with bytes.Index
// on h and needle.
func checkLevel(t *testing.T, h, needle []byte) {
	t.Helper()
	want := bytes.Index(h, needle)
	got := NewPattern(needle).Index(h)
	require.Equal(t, want, got, "Pattern(%q).Index(%q)", needle, h)
	require.Equal(t, want, Index(h, needle), "Index(%q, %q)", h, needle)
}

func randomText(rng *rand.Rand, n int, alphabet string) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return b
}

// TestPatternLevelsFallback drives the packed-pair path into its fallbacks
// at every level: over a two-letter alphabet the rare pair is everywhere,
// so the candidates' work soon exceeds the bytes passed over.
func TestPatternLevelsFallback(t *testing.T) {
	forEachSIMD(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(33, 34))
		for trial := range 1000 {
			h := randomText(rng, 100+rng.IntN(3000), "ab")
			needle := randomText(rng, 2+rng.IntN(40), "ab")
			if trial%2 == 0 {
				needle[len(needle)-1] = 'c'
				if trial%4 == 0 {
					copy(h[len(h)-len(needle)-rng.IntN(min(100, len(h)-len(needle)+1)):], needle)
				}
			}
			checkLevel(t, h, needle)
		}
	})
}

// TestPatternLevelsNoAllocs checks that Pattern.Index and Index allocate
// nothing at any level, the fallbacks included.
func TestPatternLevelsNoAllocs(t *testing.T) {
	testenv.SkipRace(t, "the detector allocates, so allocation counts mean nothing")
	forEachSIMD(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(35, 36))
		letters := randomText(rng, 4096, "etaoinshrdlu")
		ab := randomText(rng, 4096, "ab")
		wn, wh, _ := worstCase()
		for i, tc := range []struct{ h, n []byte }{
			{letters, []byte("zq")},
			{letters, randomText(rng, 8, "etaoinshrdlu")},
			{letters, bytes.Clone(letters[4000:4040])},
			{ab, randomText(rng, 6, "ab")},
			{ab, randomText(rng, 16, "ab")},
			{wh, wn},
		} {
			p := NewPattern(tc.n)
			a := testing.AllocsPerRun(100, func() { sinkInt = p.Index(tc.h) })
			assert.Zero(t, a, "case %d: Pattern.Index: allocs", i)
			a = testing.AllocsPerRun(100, func() { sinkInt = Index(tc.h, tc.n) })
			assert.Zero(t, a, "case %d: Index: allocs", i)
		}
	})
}

// FuzzPatternLevels runs Pattern.Index and Index at every vector level
// against the pure-Go level and bytes.Index, with indexSlow as the slow
// reference when the haystack is short. The fuzzer's offset cuts the
// haystack so that its length, and the needle's place in it, fall around
// the vector widths.
func FuzzPatternLevels(f *testing.F) {
	wn, wh, wf := worstCase()
	f.Add(byte(0), uint16(0), wh, wn)
	f.Add(byte(4), uint16(0), wf, wn)
	f.Add(byte(0x80), uint16(31), bytes.Repeat([]byte("abcdefgh"), 9), []byte("hab"))
	f.Add(byte(0x81), uint16(63), bytes.Repeat([]byte("abc"), 40), []byte("abcabd"))
	f.Add(byte(3), uint16(15), []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), []byte("\r\n\r\n"))
	f.Fuzz(func(t *testing.T, mode byte, off uint16, h, n []byte) {
		h, n = shape(mode, off, h, n)
		if mode&0x20 != 0 && len(h) > 0 {
			h = h[int(off)%len(h):] // the start moves across vectors
		}
		want := bytes.Index(h, n)
		if len(h) <= 1024 {
			require.Equal(t, want, indexSlow(h, n), "indexSlow(%q, %q) against bytes.Index", h, n)
		}
		p := NewPattern(n)
		old := simd
		defer func() { simd = old }()
		for _, l := range simdLevels() {
			simd = l
			got := p.Index(h)
			require.Equal(t, want, got, "%v: Pattern(%q).Index(%q)", l, n, h)
			require.Equal(t, want, Index(h, n), "%v: Index(%q, %q)", l, h, n)
		}
	})
}
