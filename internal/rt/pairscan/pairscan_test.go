package pairscan

import (
	"bytes"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// levels returns every level this process can run, widest first, down to
// the Go twins.
func levels() []Level {
	var ls []Level
	for l := Best; ; l-- {
		ls = append(ls, l)
		if l == None {
			return ls
		}
	}
}

// TestByteRank checks that ByteRank is a ranking (every value from 0 to
// 255 given to exactly one byte) in the broad order its doc gives.
func TestByteRank(t *testing.T) {
	var seen [256]bool
	for b, r := range ByteRank {
		require.False(t, seen[r], "rank %d given twice (again to byte %#x)", r, b)
		seen[r] = true
	}
	assert.Greater(t, ByteRank[' '], ByteRank['e'], "space is ranked rarer than e")
	assert.Greater(t, ByteRank['e'], ByteRank['z'], "e is ranked rarer than z")
	assert.Greater(t, ByteRank['z'], ByteRank['Q'], "z is ranked rarer than Q")
	assert.Greater(t, ByteRank['Q'], ByteRank[0x80], "Q is ranked rarer than a UTF-8 continuation byte")
	assert.Greater(t, ByteRank[0x80], ByteRank[0x01], "a continuation byte is ranked rarer than a control byte")
}

// TestRank checks which bytes Rank picks, with the rare bytes at the
// start, the end and the middle, in needles of one repeated byte, and
// for the shortest needles.
func TestRank(t *testing.T) {
	for _, tc := range []struct {
		needle     string
		i1, i2, i3 int
	}{
		{"Qeeee", 0, 1, 2},      // rarest first; the others equal: the first of them
		{"eeeeQ", 4, 0, 1},      // rarest last
		{"ee\x00ee", 2, 0, 1},   // rarest in the middle
		{"the Zebra~", 9, 4, 6}, // ~ rarer than Z, b next
		{"aaaa", 0, 1, 2},       // one byte repeated: three offsets of it
		{"ab", 1, 0, -1},        // b is rarer than a; no third byte
		{"x", 0, 0, -1},         // one byte: the pair is that byte twice
	} {
		p := Rank([]byte(tc.needle))
		assert.Equal(t, []int{tc.i1, tc.i2, tc.i3}, []int{p.I1, p.I2, p.I3}, "offsets in %q", tc.needle)
		assert.Equal(t, tc.needle[p.I1], p.B1, "rarest byte in %q", tc.needle)
		assert.Equal(t, tc.needle[p.I2], p.B2, "second byte in %q", tc.needle)
		if p.I3 >= 0 {
			assert.Equal(t, tc.needle[p.I3], p.B3, "third byte in %q", tc.needle)
		}
	}
	assert.Equal(t, -1, Rank(nil).I3, "the empty needle")
}

// checkBlock checks one kernel result (off, mask) for the positions
// 0…m-1 whose candidates cand reports: a zero mask exactly when there is
// no candidate, the mask's lowest bit the first candidate, no bit past
// m-1, and every position between the lowest and highest bits a bit
// exactly when it is a candidate.
func checkBlock(t *testing.T, what string, m int, cand func(int) bool, off int, mask uint64) {
	t.Helper()
	first := -1
	for i := range m {
		if cand(i) {
			first = i
			break
		}
	}
	if first < 0 {
		require.Equal(t, uint64(0), mask, "%s m=%d: mask %#x at %d, want none", what, m, mask, off)
		return
	}
	require.NotEqual(t, uint64(0), mask, "%s m=%d: (%d, %#x), first candidate at %d", what, m, off, mask, first)
	require.Equal(t, first, off+bits.TrailingZeros64(mask), "%s m=%d: (%d, %#x), first candidate at %d", what, m, off, mask, first)
	hi := off + 63 - bits.LeadingZeros64(mask)
	require.Less(t, hi, m, "%s m=%d: (%d, %#x) goes past m", what, m, off, mask)
	for i := first; i <= hi; i++ {
		bit := mask>>(i-off)&1 == 1
		require.Equal(t, cand(i), bit, "%s m=%d: (%d, %#x): bit for %d is %v, candidate %v", what, m, off, mask, i, bit, cand(i))
	}
}

// TestTwins checks the Go twins against the kernels' contract on random
// streams, as TestPackedPairKernels checks the kernels.
func TestTwins(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	for m := 1; m <= 300; m++ {
		for range 20 {
			d, e := rng.IntN(40), rng.IntN(40)
			buf := make([]byte, m+max(d, e))
			for i := range buf {
				buf[i] = "xyXY"[rng.IntN(4)]
				if rng.IntN(10) == 0 {
					buf[i] = "ab"[rng.IntN(2)]
				}
			}
			a, b, c := buf[:m], buf[d:d+m], buf[e:e+m]
			off, mask := pairGo(a, b, 'a', 'b')
			checkBlock(t, "pairGo", m, func(i int) bool { return a[i] == 'a' && b[i] == 'b' }, off, mask)
			off, mask = tripleGo(a, b, c, 'a', 'b', 'a')
			checkBlock(t, "tripleGo", m, func(i int) bool { return a[i] == 'a' && b[i] == 'b' && c[i] == 'a' }, off, mask)
		}
	}
}

// index is what a caller of Index does: on (-1, s) it searches from s
// with bytes.Index. It also checks that a resume point never skips a
// match.
func index(t *testing.T, p *Needle, h []byte, l Level) int {
	k, resume := p.Index(h, l)
	if resume < 0 {
		return k
	}
	require.Equal(t, -1, k, "Index(%q, %v) = (%d, %d): a match and a resume point", p.Bytes, l, k, resume)
	require.LessOrEqual(t, resume, len(h)-len(p.Bytes)+1, "resume point past the last start")
	if w := bytes.Index(h, p.Bytes); w >= 0 {
		require.GreaterOrEqual(t, w, resume, "Index(%q, %v) resumes at %d, past the match at %d", p.Bytes, l, resume, w)
	}
	if i := bytes.Index(h[resume:], p.Bytes); i >= 0 {
		return resume + i
	}
	return -1
}

// TestIndex checks Index at every level against bytes.Index on random
// haystacks over small alphabets (where the prefilter gives up, and where
// the triple kernels take over) and on text with rare needles.
func TestIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 48))
	for _, alphabet := range []string{"ab", "abc", "e ", "the Zq\n", "Q~x", "\x00\xff"} {
		for range 400 {
			h := make([]byte, 15+rng.IntN(3000))
			for i := range h {
				h[i] = alphabet[rng.IntN(len(alphabet))]
			}
			n := make([]byte, 2+rng.IntN(20))
			if len(h) >= len(n) && rng.IntN(2) == 0 {
				copy(n, h[rng.IntN(len(h)-len(n)+1):])
			} else {
				for i := range n {
					n[i] = alphabet[rng.IntN(len(alphabet))]
				}
			}
			if len(h)-len(n)+1 < MinStarts {
				continue
			}
			p := Rank(n)
			want := bytes.Index(h, n)
			for _, l := range levels() {
				require.Equal(t, want, index(t, &p, h, l), "%v: Index(%q) in %d bytes", l, n, len(h))
			}
		}
	}
}

// FuzzIndex checks Index at every level against bytes.Index.
func FuzzIndex(f *testing.F) {
	f.Add(bytes.Repeat([]byte("abcdefgh"), 9), []byte("hab"))
	f.Add(bytes.Repeat([]byte("abc"), 40), []byte("abcabd"))
	f.Add([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), []byte("\r\n\r\n"))
	f.Add(bytes.Repeat([]byte("~"), 5000), []byte("~~~e"))
	// A candidate before the tail and the match in the last 16 starts,
	// where a twin's block begins at its first candidate, not at the
	// tail's first start (the CI fuzz run's find).
	f.Add([]byte("~~00000000000000000000000000000000000000000000~~~00000000000000~~~~e"), []byte("~~e"))
	f.Fuzz(func(t *testing.T, h, n []byte) {
		if len(n) < 2 || len(h)-len(n)+1 < MinStarts {
			return
		}
		p := Rank(n)
		want := bytes.Index(h, n)
		for _, l := range levels() {
			require.Equal(t, want, index(t, &p, h, l), "%v: Index(%q, %q)", l, h, n)
		}
	})
}
