package search

import (
	"math/rand/v2"
	"testing"
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
		if gotE != wantE || gotE >= 0 && gotS != wantS {
			t.Fatalf("trial %d: block(h, %d, %d, %d) = %d, %d; step = %d, %d\npatterns %q\nhaystack %q", trial, i, n, s, gotS, gotE, wantS, wantE, pats, h)
		}
		if gotE < 0 && gotS != wantS {
			t.Fatalf("trial %d: block ends in state %d; step in %d", trial, gotS, wantS)
		}
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
			if len(got) != len(want) {
				t.Fatalf("trial %d chunk %d: %d matches; want %d", trial, chunk, len(got), len(want))
			}
			for k := range got {
				if got[k] != want[k] {
					t.Fatalf("trial %d chunk %d: match %d = %v; want %v", trial, chunk, k, got[k], want[k])
				}
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
