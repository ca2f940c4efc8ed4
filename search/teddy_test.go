package search

import (
	"bytes"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/netkit/netkit/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// teddyCandidateSlow reports whether offset p of h is a candidate of t: by
// the definition, some bucket passes at every fingerprint offset.
func teddyCandidateSlow(t *teddy, h []byte, p int) bool {
	if p+t.m > len(h) {
		return false
	}
	for b := range teddyBuckets {
		ok := true
		for k := range t.m {
			c := h[p+k]
			if t.masks[2*k][c&15]>>b&1 == 0 || t.masks[2*k+1][c>>4]>>b&1 == 0 {
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// teddyRandom returns random patterns of minLen to minLen+5 bytes over
// alphabet, and a haystack over it with up to 5 of them planted.
func teddyRandom(rng *rand.Rand, alphabet string, npats, minLen, hlen int) ([][]byte, []byte) {
	return randomPatterns(rng, alphabet, npats, minLen, minLen+5, hlen, 6)
}

// TestTeddyNext checks the block kernels of every level against blockGo
// and the definition of a candidate, and next, with and without the batch
// kernels' buffer, against the patterns, from every start offset of
// haystacks of up to a few vectors and from some of haystacks of up to
// 1.7 KiB, and that every occurrence of a pattern is a candidate.
func TestTeddyNext(t *testing.T) {
	forEachSIMD(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		for trial := range 400 {
			alphabet := []string{"abcdefghijklmnopqrstuvwxyz", "ab", "aAbBzZ", allBytes(), "0123456789"}[trial%5]
			fold := trial%3 == 0
			hlen := rng.IntN(140)
			if trial%8 == 7 {
				hlen = teddyBatchMin + rng.IntN(1500) // for the batch kernels
			}
			pats, h := teddyRandom(rng, alphabet[:len(alphabet)-trial%2], 1+rng.IntN(teddyMaxPatterns), 1+rng.IntN(4), hlen)
			if trial%5 == 4 {
				for i := range pats {
					pats[i][0] = 'x' // never in the haystack: few candidates
				}
			}
			td := newTeddy(pats, fold)
			for i := 0; i <= len(h); i += 1 + len(h)/140*rng.IntN(20) {
				want := td.nextGo(h, i)
				p := i
				for p+td.m <= len(h) && !teddyCandidateSlow(td, h, p) {
					p++
				}
				require.Equal(t, want, p, "nextGo(h, %d) = %d; the first candidate is %d", i, want, p)
				base, mask, end := td.block(h, i)
				if mask == 0 {
					require.Greater(t, p+td.m, len(h), "m=%d, %d patterns, len %d: block(h, %d) has no candidate; the first is %d", td.m, len(pats), len(h), i, p)
				} else {
					require.Equal(t, p, base+bits.TrailingZeros64(mask), "m=%d, %d patterns, len %d: block(h, %d) = %d, %#x: first candidate", td.m, len(pats), len(h), i, base, mask)
					require.LessOrEqual(t, end, base+64, "m=%d, %d patterns, len %d: block(h, %d) = %d, %#x, %d: end past the block", td.m, len(pats), len(h), i, base, mask, end)
					require.LessOrEqual(t, end, len(h)-td.m+1, "m=%d, %d patterns, len %d: block(h, %d) = %d, %#x, %d: end past the offsets", td.m, len(pats), len(h), i, base, mask, end)
					require.GreaterOrEqual(t, end, base+64-bits.LeadingZeros64(mask), "m=%d, %d patterns, len %d: block(h, %d) = %d, %#x, %d: end before the last candidate", td.m, len(pats), len(h), i, base, mask, end)
					var wrong []int // offsets whose bit is not the slow test's answer
					for j := p; j < end; j++ {
						if got := mask>>(j-base)&1 == 1; got != teddyCandidateSlow(td, h, j) {
							wrong = append(wrong, j)
						}
					}
					require.Empty(t, wrong, "m=%d, %d patterns, len %d: block(h, %d) = %d, %#x: wrong bits", td.m, len(pats), len(h), i, base, mask)
				}
				// next, from i and then from each offset it returns.
				var m pfState
				if trial%2 == 1 {
					m.tBuf = new([64]uint64)
				}
				// The walk collects what is wrong and asserts once at its
				// end: per offset, testify's boxed message arguments would
				// cost more than the checks.
				var skipped, notCandidates []int
				for j, q := i, i; ; j = q + 1 {
					q = td.next(h, j, &m)
					for r := j; r < min(q, len(h)); r++ {
						if teddyMayBeginSlow(pats, h, r, fold) {
							skipped = append(skipped, r) // a pattern may begin there
						}
					}
					if q+td.m > len(h) {
						require.Equal(t, max(j, len(h)-td.m+1), q, "next(h, %d) = %d; want no candidate", j, q)
						break
					}
					if !teddyCandidateSlow(td, h, q) {
						notCandidates = append(notCandidates, q)
					}
				}
				require.Empty(t, skipped, "m=%d, %d patterns %q, fold %v: next from %d skips offsets of %q", td.m, len(pats), pats, fold, i, h)
				require.Empty(t, notCandidates, "m=%d: next from %d returns offsets that are no candidates", td.m, i)
			}
			for _, pat := range pats {
				var missed []int // offsets where pat occurs that are no candidates
				for p := 0; p+len(pat) <= len(h); p++ {
					if setMatchAtSlow(h, p, pat, fold) && !teddyCandidateSlow(td, h, p) {
						missed = append(missed, p)
					}
				}
				require.Empty(t, missed, "%q occurs at offsets of %q that are no candidates", pat, h)
			}
		}
	})
}

// TestTeddyBatch checks the batch kernels of every level and fingerprint
// length against the definition of a candidate, from random start offsets
// of haystacks of up to a few thousand bytes, dense and sparse in
// candidates, and that only the words of sum are written.
func TestTeddyBatch(t *testing.T) {
	forEachSIMD(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(9, 10))
		for trial := range 300 {
			alphabet := []string{"abcdefghijklmnopqrstuvwxyz", "ab", "aAbBzZ", allBytes(), "0123456789"}[trial%5]
			pats, h := teddyRandom(rng, alphabet, 1+rng.IntN(teddyMaxPatterns), 1+rng.IntN(5), 64+rng.IntN(5000))
			if trial%4 == 3 {
				for i := range pats {
					pats[i][0] = 'x' // never in most haystacks: few candidates
				}
			}
			td := newTeddy(pats, trial%3 == 0)
			for r := range 20 {
				m := 1 + rng.IntN(td.m)
				lean := r%2 == 1 && m >= 3
				if len(h) < 64+m-1 {
					break
				}
				i := rng.IntN(len(h) - 64 - m + 2)
				var out [64]uint64
				for j := range out {
					out[j] = 0xdead
				}
				words, sum := td.batch(h, i, m, lean, &out)
				want := min(64, (len(h)-i-m+1)/64)
				require.Equal(t, want, words, "m=%d, len %d: words batch(h, %d) examines", m, len(h), i)
				require.False(t, words < 64 && sum>>words != 0, "m=%d, len %d: batch(h, %d) = %d, %#x: bits past the words", m, len(h), i, words, sum)
				// Per offset and word, the loop collects what is wrong and
				// asserts once: testify's message arguments would cost more
				// than the checks.
				var wantWords, gotWords []uint64
				var notLean, zeroInSum, writtenNotInSum []int
				for j := range words {
					var want uint64
					for b := range 64 {
						p := i + 64*j + b
						full := teddyCandidateSlowM(td, h, p, m)
						if lean && teddyLeanSlow(td, h, p, m) || !lean && full {
							want |= 1 << b
						}
						if lean && full && !teddyLeanSlow(td, h, p, m) {
							notLean = append(notLean, p)
						}
					}
					got := uint64(0)
					if sum>>j&1 == 1 {
						got = out[j]
						if got == 0 {
							zeroInSum = append(zeroInSum, j)
						}
					} else if out[j] != 0xdead {
						writtenNotInSum = append(writtenNotInSum, j)
					}
					wantWords, gotWords = append(wantWords, want), append(gotWords, got)
				}
				require.Empty(t, notLean, "m=%d: offsets that are candidates, not lean ones", m)
				require.Empty(t, zeroInSum, "m=%d, len %d: batch(h, %d): words in sum that are zero", m, len(h), i)
				require.Empty(t, writtenNotInSum, "m=%d, len %d: batch(h, %d): words not in sum that are written", m, len(h), i)
				require.Equal(t, wantWords, gotWords, "m=%d, lean %v, %d patterns, len %d: batch(h, %d): candidate words", m, lean, len(pats), len(h), i)
			}
		}
	})
}

// teddyCandidateSlowM is teddyCandidateSlow with the first m bytes of the
// fingerprint.
func teddyCandidateSlowM(t *teddy, h []byte, p, m int) bool {
	u := *t
	u.m = m
	return teddyCandidateSlow(&u, h, p)
}

// teddyLeanSlow reports whether offset p of h is a candidate of t's lean
// test with m bytes: some bucket passes at byte 0 by both nibbles, and at
// bytes 1 to m-1 by the low nibble, which for ASCII fingerprints a byte
// above 0x7f never passes.
func teddyLeanSlow(t *teddy, h []byte, p, m int) bool {
	for b := range teddyBuckets {
		ok := true
		for k := range m {
			c := h[p+k]
			if t.masks[2*k][c&15]>>b&1 == 0 || k == 0 && t.masks[1][c>>4]>>b&1 == 0 || k > 0 && t.ascii && c > 0x7f {
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// teddyMayBeginSlow reports whether some pattern occurs at p of h, or
// begins there and continues past the end of h.
func teddyMayBeginSlow(pats [][]byte, h []byte, p int, fold bool) bool {
	for _, pat := range pats {
		n := min(len(pat), len(h)-p)
		if setMatchAtSlow(h[:p+n], p, pat[:n], fold) {
			return true
		}
	}
	return false
}

// TestTeddySet runs Find, All and Matcher of sets of up to 64 patterns at
// every level, against the slow references, over haystacks of a few
// vectors (every match near a vector boundary somewhere) and long ones.
func TestTeddySet(t *testing.T) {
	forEachSIMD(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 8))
		iters := 300
		if testing.Short() {
			iters = 60
		}
		for trial := range iters {
			alphabet := []string{"abcd", "aAbBcC", "abcdefghij", "\x00\xffxX"}[trial%4]
			hlen := rng.IntN(200)
			if trial%10 == 9 {
				hlen = 2000 + rng.IntN(3000)
			}
			pats, h := teddyRandom(rng, alphabet, 1+rng.IntN(teddyMaxPatterns), 1+rng.IntN(3), hlen)
			for kind := range overlapping + 1 {
				setCheck(t, pats, h, kind, trial%2 == 1, rng)
			}
		}
	})
}

// TestTeddyUsed checks which prefilter a Set uses at each level.
func TestTeddyUsed(t *testing.T) {
	pats := make([][]byte, teddyMaxPatterns+1)
	for i := range pats {
		pats[i] = []byte{'a' + byte(i%26), 'a' + byte(i/26), 'q'}
	}
	forEachSIMD(t, func(t *testing.T) {
		small, big := NewSet(pats[:teddyMaxPatterns]), NewSet(pats)
		assert.False(t, big.tf != nil || big.prefilter() != big.pf, "%d patterns: Teddy is used", len(pats))
		require.NotNil(t, small.tf, "%d patterns: no Teddy prefilter", teddyMaxPatterns)
		want := kernelsBuilt && simd != simdNone
		assert.Equal(t, want, small.prefilter() == small.tf, "Teddy used")
		assert.Nil(t, NewSet(nil).tf, "an empty set has a Teddy prefilter")
	})
}

// TestTeddyNoAllocs checks that Find and a complete All loop allocate
// nothing at every level, on a haystack long enough for the kernels.
func TestTeddyNoAllocs(t *testing.T) {
	testenv.SkipRace(t, "the detector allocates, so allocation counts mean nothing")
	h := bytes.Repeat([]byte("the quick brown fox jumps over the lazy dog "), 100)
	pats := toBytes([]string{"fox", "dog", "lazy", "qu", "zebra", "Jumps"})
	forEachSIMD(t, func(t *testing.T) {
		for kind := range overlapping + 1 {
			s := NewSet(pats, setOptions(kind, true)...)
			n := testing.AllocsPerRun(50, func() { s.Find(h) })
			assert.Zero(t, n, "%s: Find allocates", setKindName(kind, true))
			count := 0
			n = testing.AllocsPerRun(50, func() {
				for m := range s.All(h) {
					count += int(m.End)
				}
			})
			assert.Zero(t, n, "%s: All loop allocates", setKindName(kind, true))
			sinkInt += count
		}
	})
}

// FuzzSetTeddy runs Find, All and Matcher at every simd level against the
// pure-Go Set and the slow references. The haystack (see setFuzzInput) is
// also searched repeated to past two AVX2 vectors after a prefix of 0–40
// bytes, so that matches fall on every side of vector boundaries and,
// for the Matcher, of chunk seams; and in a haystack of 4–8 KiB, pieces of
// it and prefixes of the patterns in an order drawn from the input, for
// the batch kernels (4 KiB per call) with dense candidates, most of which
// fail verify, and the turn from the lean test to the full one.
func FuzzSetTeddy(f *testing.F) {
	setFuzzSeeds(f)
	f.Add([]byte("\x03\x08\x03abc\x02ab\x04abca\x01c\x03cab\x02ba\x03bbb\x02ccabcabcabcabcabcabcabcabcabcabcabcabcbcabcabcab"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pats, h, kind, fold := setFuzzInput(data)
		if pats == nil {
			return
		}
		if len(h) > 0 {
			pad := int(data[len(data)-1]) % 41
			long := bytes.Repeat([]byte{'.'}, pad)
			for len(long) < 70 {
				long = append(long, h...)
			}
			teddyFuzzCheck(t, pats, long, kind, fold, data)
			teddyFuzzCheck(t, pats, teddyFuzzLong(pats, h, data), kind, fold, data)
		}
		teddyFuzzCheck(t, pats, h, kind, fold, data)
	})
}

// teddyFuzzLong returns a haystack of 4–8 KiB made of pieces of h and
// prefixes of the patterns, in an order and of lengths drawn from data.
func teddyFuzzLong(pats [][]byte, h, data []byte) []byte {
	var seed uint64
	for _, c := range data {
		seed = seed*131 + uint64(c)
	}
	rng := rand.New(rand.NewPCG(seed, 3))
	n := 4096 + int(data[len(data)-1])*16
	long := make([]byte, 0, n+len(h))
	for len(long) < n {
		if rng.IntN(3) == 0 {
			i := rng.IntN(len(h))
			long = append(long, h[i:i+1+rng.IntN(len(h)-i)]...)
		} else {
			p := pats[rng.IntN(len(pats))]
			long = append(long, p[:1+rng.IntN(len(p))]...)
		}
	}
	return long
}

func teddyFuzzCheck(t *testing.T, pats [][]byte, h []byte, kind matchKind, fold bool, data []byte) {
	opts := setOptions(kind, fold)
	name := setKindName(kind, fold)
	wantM, wantOK := setFindSlow(h, pats, kind, fold)
	wantAll := setAllSlow(h, pats, kind, fold)
	wantOver := setOverlappingSlow(h, pats, fold)
	seed := uint64(len(data))
	for _, c := range data {
		seed = seed*31 + uint64(c)
	}
	for _, l := range simdLevels() {
		old := simd
		simd = l
		s := NewSet(pats, opts...)
		m, ok := s.Find(h)
		all := slices.Collect(s.All(h))
		over := setFeedRandom(s.Matcher(), h, rand.New(rand.NewPCG(seed, 1)))
		simd = old
		// Compared with == first: the fuzzer calls this for every input,
		// and testify compares by reflection.
		if ok != wantOK || m != wantM {
			require.Equal(t, wantOK, ok, "%v %s: Find(%q) with %q found", l, name, h, pats)
			require.Equal(t, wantM, m, "%v %s: Find(%q) with %q", l, name, h, pats)
		}
		if !slices.Equal(all, wantAll) {
			require.Equal(t, wantAll, all, "%v %s: All(%q) with %q", l, name, h, pats)
		}
		if !slices.Equal(over, wantOver) {
			require.Equal(t, wantOver, over, "%v %s: Matcher(%q) with %q", l, name, h, pats)
		}
	}
}
