package search

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLanesBlock checks the interleaved lanes against the single pass they
// accelerate: block over lanes segments of n bytes must return what step
// returns over the same bytes, from any reachable state, whether a match is
// in the first lane, a later one, a warm-up or nowhere.
func TestLanesBlock(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	alphabets := []string{"ab", "abcd", "abcdefghijklmnopqrstuvwxyz", allBytes()}
	for trial := range 3000 {
		alphabet := alphabets[trial%len(alphabets)]
		npats := 1 + rng.IntN(6)
		pats, _ := setRandomInput(rng, alphabet, npats, 1+rng.IntN(12), 0)
		a := NewAhoCorasick(pats)
		n := a.maxLen + rng.IntN(64)
		i := a.maxLen + rng.IntN(8) // room for the first lane's warm-up
		_, h := setRandomInput(rng, alphabet, 1, 1, i+lanes*n+rng.IntN(16))
		if alphabet != "ab" && rng.IntN(2) == 0 {
			// Sparse matches: a haystack of other bytes with a few planted.
			for j := range h {
				h[j] = 0xF0 | byte(rng.IntN(16))
			}
			for range rng.IntN(3) {
				p := pats[rng.IntN(len(pats))]
				copy(h[rng.IntN(len(h)-len(p)+1):], p)
			}
		}
		// A reachable state at i: step from the root over some prefix,
		// ignoring its matches.
		s := uint32(0)
		for _, c := range h[rng.IntN(i+1):i] {
			s = a.trans[s+uint32(a.classes[c])]
		}
		gotS, gotE := a.block(h, i, n, s)
		wantS, wantE := a.step(h, i, i+lanes*n, s)
		require.Equal(t, wantE, gotE, "trial %d: end of block(h, %d, %d, %d) and of step\npatterns %q\nhaystack %q", trial, i, n, s, pats, h)
		// The state where the match ends, or, with none, where the block ends.
		require.Equal(t, wantS, gotS, "trial %d: state of block(h, %d, %d, %d) (end %d) and of step\npatterns %q\nhaystack %q", trial, i, n, s, gotE, pats, h)
	}
}

// TestSetLongHaystacks runs Find, All and a Matcher fed whole or in large
// chunks over haystacks long enough for the lanes, with sparse and dense
// matches, against the slow references.
func TestSetLongHaystacks(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for trial := range 60 {
		alphabet := "abcdefghijklmnopqrstuvwxyz"
		if trial%3 == 0 {
			alphabet = "abc"
		}
		maxLen := 4 + rng.IntN(20)
		if trial%5 == 4 {
			maxLen = 300 + rng.IntN(200) // segments no longer than a pattern
		}
		pats, _ := setRandomInput(rng, alphabet, 1+rng.IntN(8), maxLen, 0)
		h := make([]byte, 2048+rng.IntN(30000))
		for j := range h {
			h[j] = alphabet[rng.IntN(len(alphabet))]
			if trial%3 == 1 {
				h[j] = '0' + byte(rng.IntN(10)) // no pattern byte at all
			}
		}
		for range rng.IntN(400) {
			p := pats[rng.IntN(len(pats))]
			copy(h[rng.IntN(len(h)-len(p)+1):], p)
		}
		for _, kind := range []matchKind{leftmostFirst, leftmostLongest, overlapping} {
			fold := rng.IntN(2) == 0
			setCheck(t, pats, h, kind, fold, nil)
		}
		want := setOverlappingSlow(h, pats, false)
		m := NewSet(pats).Matcher()
		for _, chunk := range []int{len(h), 8192, 1500} {
			m.Reset()
			var got []Match
			for j := 0; j < len(h); j += chunk {
				m.Feed(h[j:min(j+chunk, len(h))])
				for match, ok := m.Next(); ok; match, ok = m.Next() {
					got = append(got, match)
				}
			}
			require.Len(t, got, len(want), "trial %d chunk %d: matches", trial, chunk)
			for k := range got {
				require.Equal(t, want[k], got[k], "trial %d chunk %d: match %d", trial, chunk, k)
			}
		}
	}
}

func allBytes() string {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return string(b)
}

// FuzzSetAllLong tiles the fuzzer's haystack until it is long enough for
// All's buffered lanes (acEvents), and checks them against All by
// successive scans and against the slow reference. Short patterns over few
// bytes make matches dense enough to fill a lane's events and shorten the
// blocks down to one lane.
func FuzzSetAllLong(f *testing.F) {
	setFuzzSeeds(f)
	// One pattern "a" in a haystack of "a": an event at every byte,
	// leftmost-first and overlapping, long enough for the lanes to fill
	// their events until they turn off.
	f.Add([]byte("\x1e\x00\x00\x00\x00\x00\x00"))
	f.Add([]byte("\x20\x00\x00\x00\x00\x00\x00"))
	f.Add([]byte("\x40\x03\x02ab\x01b\x03abaabababbabaab"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pats, h, kind, fold := setFuzzInput(data)
		if pats == nil || len(h) == 0 {
			return
		}
		a := NewAhoCorasick(pats, setOptions(kind, fold)...)
		n := lanes*(a.maxLen+laneMin) + int(data[0])*37
		for len(h) < n {
			h = append(h, h...)
		}
		got := slices.Collect(a.All(h))
		var scan []Match
		a.allScan(h, nil, func(m Match) bool { scan = append(scan, m); return true })
		require.Equal(t, scan, got, "%s: All(%q) with %q, against the scans", setKindName(kind, fold), h, pats)
		require.Equal(t, setAllSlow(h, pats, kind, fold), got, "%s: All(%q) with %q", setKindName(kind, fold), h, pats)
	})
}

// TestSetAllBreak stops range loops over All on long haystacks after each
// number of matches: the loop must see a prefix of the complete sequence
// and never be called again after it returned false.
func TestSetAllBreak(t *testing.T) {
	pats := toBytes([]string{"ab", "b", "abc", "ca", "bca"})
	h := []byte(strings.Repeat("xxabcaxbcab", 200))
	for kind := range overlapping + 1 {
		a := NewAhoCorasick(pats, setOptions(kind, false)...)
		want := slices.Collect(a.All(h))
		require.GreaterOrEqual(t, len(want), 100, "%s: matches; want many", setKindName(kind, false))
		for k := range 100 {
			var got []Match
			for m := range a.All(h) {
				got = append(got, m)
				if len(got) == k+1 {
					break
				}
			}
			require.Equal(t, want[:k+1], got, "%s: first %d matches", setKindName(kind, false), k+1)
		}
	}
}
