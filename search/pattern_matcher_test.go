package search

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/netkit/netkit/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// drainMatcher returns every match Next reports for the chunk fed last.
func drainMatcher(m Matcher) []Match {
	var got []Match
	for match, ok := m.Next(); ok; match, ok = m.Next() {
		got = append(got, match)
	}
	return got
}

func TestPatternMatcherTable(t *testing.T) {
	a := strings.Repeat("a", 70)
	for _, tc := range []struct {
		name   string
		needle string
		chunks []string
		want   []Match // nil: allSlow of the chunks joined
	}{
		{"straddle", "abcd", []string{"xxab", "cdxx"}, []Match{{Start: 2, End: 6}}},
		{"straddle three chunks", "abcdef", []string{"xab", "cd", "efx"}, []Match{{Start: 1, End: 7}}},
		{"byte chunks", "abcd", []string{"a", "b", "c", "d", "a", "b", "c", "d"}, []Match{{Start: 0, End: 4}, {Start: 4, End: 8}}},
		{"empty chunks", "abc", []string{"", "a", "", "", "bc", ""}, []Match{{Start: 0, End: 3}}},
		{"needle longer than chunks", "abcdefgh", []string{"abc", "de", "", "fgh", "abcdefg", "h"}, []Match{{Start: 0, End: 8}, {Start: 8, End: 16}}},
		{"straddle then inside", "abab", []string{"aba", "bababx"}, []Match{{Start: 0, End: 4}, {Start: 2, End: 6}, {Start: 4, End: 8}}},
		{"periodic across boundary", "abab", []string{"ab", "a", "bab", "ab"}, []Match{{Start: 0, End: 4}, {Start: 2, End: 6}, {Start: 4, End: 8}}},
		{"border resumes", "aabaa", []string{"aabaabaabaa"}, []Match{{Start: 0, End: 5}, {Start: 3, End: 8}, {Start: 6, End: 11}}},
		{"false prefix at end", "abcd", []string{"xabc", "xabc", "d"}, []Match{{Start: 5, End: 9}}},
		{"one byte", "a", []string{"a", "", "bab", "aa"}, []Match{{Start: 0, End: 1}, {Start: 2, End: 3}, {Start: 4, End: 5}, {Start: 5, End: 6}}},
		{"empty needle", "", []string{"abc", "", "d"}, []Match{}},
		{"absent", "xyz", []string{"xy", "zz", "xyxy", "zy"}, []Match{{Start: 0, End: 3}, {Start: 6, End: 9}}},
		{"dense", "aaaa", []string{a, "a", a[:3], a}, nil},
		{"dense long needle", a[:40], []string{a, a[:39], "a", a, "b", a}, nil},
		{"dense two-letter", "abaab", []string{strings.Repeat("abaab", 200)[1:], strings.Repeat("abaab", 300)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			if want == nil {
				want = allSlow([]byte(strings.Join(tc.chunks, "")), []byte(tc.needle))
			}
			m := NewPattern([]byte(tc.needle)).Matcher()
			for range 2 { // the second time after Reset
				got := []Match{}
				for _, c := range tc.chunks {
					m.Feed([]byte(c))
					got = append(got, drainMatcher(m)...)
				}
				require.Equal(t, want, got)
				m.Reset()
			}
		})
	}
}

// TestPatternMatcherReuse feeds every chunk in the same buffer and
// overwrites it once Next has reported false, as the Matcher contract
// allows: only the KMP state may carry a straddling match over.
func TestPatternMatcherReuse(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	h := bytes.Repeat([]byte("abaababaab"), 300)
	for _, needle := range []string{"abaab", "abaababaababaab", "babaabab", "b", string(h[:100])} {
		want := allSlow(h, []byte(needle))
		m := NewPattern([]byte(needle)).Matcher()
		buf := make([]byte, 64)
		var got []Match
		for rest := h; len(rest) > 0; {
			c := buf[:min(rng.IntN(len(buf)+1), len(rest))]
			copy(c, rest)
			rest = rest[len(c):]
			m.Feed(c)
			got = append(got, drainMatcher(m)...)
			for i := range buf {
				buf[i] = 'x'
			}
		}
		assert.Equal(t, want, got, "needle %.20q", needle)
	}
}

func TestPatternMatcherResetMidStream(t *testing.T) {
	m := NewPattern([]byte("abab")).Matcher()
	m.Feed([]byte("xxababab"))
	got, ok := m.Next()
	require.True(t, ok, "no first match")
	require.Equal(t, Match{Start: 2, End: 6}, got, "first match")
	// Reset with a match pending and a prefix "ab" matched at the end.
	m.Reset()
	m.Feed([]byte("ab"))
	got, ok = m.Next()
	require.False(t, ok, "after Reset: match %v from the old stream", got)
	m.Feed([]byte("abab"))
	want := []Match{{Start: 0, End: 4}, {Start: 2, End: 6}}
	require.Equal(t, want, drainMatcher(m), "after Reset")
	// Reset before any Feed, and Next without Feed.
	m = NewPattern(nil).Matcher()
	got, ok = m.Next()
	require.False(t, ok, "empty needle, no Feed: match %v", got)
	m = NewPattern([]byte("a")).Matcher()
	m.Reset()
	got, ok = m.Next()
	require.False(t, ok, "no Feed: match %v", got)
}

// TestPatternMatcherUndrained checks that a chunk counts whole even when
// Feed comes before Next has reported false for it, as with stream.Feed:
// its matches not yet reported are lost, but not the prefix it ends with.
func TestPatternMatcherUndrained(t *testing.T) {
	for _, tc := range []struct {
		needle, c0 string
		nexts      int // calls of Next on c0
		c1         string
		want       Match
	}{
		{"abab", "xxaba", 0, "bx", Match{Start: 2, End: 6}},
		{"abab", "abababa", 1, "bx", Match{Start: 4, End: 8}},
		{"aaaa", strings.Repeat("a", 100), 60, "a", Match{Start: 97, End: 101}}, // in phase kmp
	} {
		m := NewPattern([]byte(tc.needle)).Matcher()
		m.Feed([]byte(tc.c0))
		for range tc.nexts {
			m.Next()
		}
		m.Feed([]byte(tc.c1))
		assert.Equal(t, []Match{tc.want}, drainMatcher(m), "needle %q, %q after %d Next, then %q", tc.needle, tc.c0, tc.nexts, tc.c1)
	}
}

// TestPatternMatcherDense checks that dense matches hand the rest of the
// chunk over to KMP, and sparse ones do not, with the same answers either
// way.
func TestPatternMatcherDense(t *testing.T) {
	sparse := bytes.Repeat([]byte("x"), 1<<16)
	for i := 100; i < len(sparse)-64; i += 1000 {
		copy(sparse[i:], "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab")
	}
	for _, tc := range []struct {
		name     string
		needle   string
		h        []byte
		fallback bool
	}{
		{"aaaa", "aaaa", bytes.Repeat([]byte("a"), 1<<16), true},
		{"period 3", "abcabcab", bytes.Repeat([]byte("abc"), 1<<14), true},
		{"long needle", strings.Repeat("a", 200), bytes.Repeat([]byte("a"), 1<<14), true},
		{"sparse", "aaaaaaaab", sparse, false},
		{"adjacent", "abcdefghijklmnopqrstuvwxyz012345", bytes.Repeat([]byte("abcdefghijklmnopqrstuvwxyz012345"), 1<<10), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := NewPattern([]byte(tc.needle)).Matcher()
			m.Feed(tc.h)
			var got []Match
			fellBack := false
			for match, ok := m.Next(); ok; match, ok = m.Next() {
				got = append(got, match)
				fellBack = fellBack || m.(*patternMatcher).phase == phaseKMP
			}
			require.Equal(t, allSlow(tc.h, []byte(tc.needle)), got)
			assert.Equal(t, tc.fallback, fellBack, "handed over to KMP")
		})
	}
}

// TestPatternMatcherRandom streams haystacks over 1–4 letter alphabets, with
// needles cut from them (so matches are dense) or periodic, in chunks
// around the needle's length and much longer ones.
func TestPatternMatcherRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for range 300 {
		alpha := 1 + rng.IntN(4)
		h := make([]byte, 1+rng.IntN(20000))
		for i := range h {
			h[i] = 'a' + byte(rng.IntN(alpha))
			if rng.IntN(50) == 0 {
				h[i] = 'a' // runs that periodic needles match densely
			}
		}
		var needle []byte
		if rng.IntN(2) == 0 {
			l := rng.IntN(min(len(h), 150) + 1)
			at := rng.IntN(len(h) - l + 1)
			needle = h[at : at+l]
		} else {
			needle = bytes.Repeat([]byte("aab")[:1+rng.IntN(3)], 1+rng.IntN(40))
		}
		n := len(needle)
		sizes := []int{1, 2, max(n-1, 1), max(n, 1), n + 1, 2*n + 3, 4096, len(h)}
		size := sizes[rng.IntN(len(sizes))]
		want := allSlow(h, needle)
		m := NewPattern(needle).Matcher()
		got := feedAll(m, h, func() int { return rng.IntN(size + 1) })
		require.Equal(t, want, got, "needle %.40q, chunks ≤ %d", needle, size)
	}
}

func TestPatternMatcherNoAllocs(t *testing.T) {
	testenv.SkipRace(t, "the detector allocates, so allocation counts mean nothing")
	dense := bytes.Repeat([]byte("a"), 1<<14)
	sparse := bytes.Repeat([]byte("abcdefgh"), 1<<11)
	for _, tc := range []struct {
		needle string
		h      []byte
	}{
		{"aaaa", dense},
		{strings.Repeat("a", 100), dense},
		{"efghabcdefgh", sparse},
		{"xyz", sparse},
	} {
		m := NewPattern([]byte(tc.needle)).Matcher()
		for _, size := range []int{1, 7, 100, len(tc.h)} {
			a := testing.AllocsPerRun(20, func() {
				m.Reset()
				for i := 0; i < len(tc.h); i += size {
					m.Feed(tc.h[i:min(i+size, len(tc.h))])
					for match, ok := m.Next(); ok; match, ok = m.Next() {
						sinkInt = int(match.End)
					}
				}
			})
			assert.Zero(t, a, "needle %.10q, chunks of %d: allocs per stream", tc.needle, size)
		}
	}
}
