package buf

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRareFinderPick checks which two bytes the prefilter scans for, with
// the rare bytes at the start, the end and the middle, and in needles of
// one repeated byte (the ranking is pairscan.Rank's).
func TestRareFinderPick(t *testing.T) {
	for _, tc := range []struct {
		needle string
		o1, o2 int
	}{
		{"Qeeee", 0, 1},       // rarest first; the others equal: the first of them
		{"eeeeQ", 4, 0},       // rarest last
		{"ee\x00ee", 2, 0},    // rarest in the middle
		{"the Zebra~", 9, 4},  // ~ rarer than Z
		{"aaaa", 0, 1},        // one byte repeated: two offsets of it
		{"ZZZZe", 0, 1},       // equal ranks: the first of them
		{"e\xffe\xffe", 1, 3}, // 0xFF is rarer than e: both offsets of it
		{"ab", 1, 0},          // b is rarer than a
	} {
		f := newRareFinder([]byte(tc.needle))
		assert.Equal(t, tc.o1, f.o1, "rarest offset in %q", tc.needle)
		assert.Equal(t, tc.o2, f.o2, "second offset in %q", tc.needle)
		assert.NotEqual(t, f.o1, f.o2, "both offsets in %q", tc.needle)
		assert.Equal(t, tc.needle[f.o1], f.b1, "rarest byte in %q", tc.needle)
		assert.Equal(t, tc.needle[f.o2], f.b2, "second byte in %q", tc.needle)
	}
}

// TestRareFinderIndex checks rareFinder.index, and its scalar loop
// (which the purego build runs), against bytes.Index on
// haystacks built to defeat the prefilter as well as to suit it.
func TestRareFinderIndex(t *testing.T) {
	rep := func(s string, n int) []byte { return bytes.Repeat([]byte(s), n) }
	cat := func(ps ...[]byte) []byte { return bytes.Join(ps, nil) }
	for _, tc := range []struct {
		name     string
		hay      []byte
		needle   string
		wantHere int  // bytes.Index's answer
		fallBack bool // the false candidates exceed the budget
	}{
		{"rare at start", cat(rep("the quick brown fox ", 50), []byte("Qxyz")), "Qxyz", 1000, false},
		{"rare at end", cat(rep("the quick brown fox ", 50), []byte("ee ~")), "ee ~", 1000, false},
		{"rare in middle", cat(rep("the quick brown fox ", 50), []byte("th\x01e ")), "th\x01e ", 1000, false},
		{"only frequent bytes", cat(rep("the the then ", 80), []byte("the thee")), "the thee", 1040, true},
		{"only frequent, absent", rep("the the then ", 80), "the thee", -1, true},
		{"repeated byte", cat(rep("a", 300), []byte("b"), rep("a", 40)), "aaab", 297, false},
		{"needle of one byte repeated", cat(rep("ab", 300), rep("a", 5)), "aaaaa", 600, true},
		// The rarest byte everywhere: every position is a candidate.
		{"rare byte everywhere", cat(rep("~", 5000), []byte("e")), "~~~e", 4997, true},
		{"rare byte everywhere, absent", rep("~", 5000), "~~~e", -1, true},
		// Both rare bytes at their offsets everywhere, the full compare failing.
		{"both rare bytes everywhere", cat(rep("QZ", 3000), []byte("QZa")), "QZQZa", 5998, true},
		{"both rare bytes everywhere, absent", rep("QZ", 3000), "QZQZa", -1, true},
		// Fall back to bytes.Index early, with the match far after.
		{"fallback, late match", cat(rep("Q", 100), rep("f", 5000), []byte("Qe")), "Qe", 5100, true},
		// Candidates at the very ends of the haystack.
		{"match at 0", []byte("Qabc"), "Qabc", 0, false},
		{"match is the haystack end", []byte("xxxxabcQ"), "abcQ", 4, false},
		{"needle longer than haystack", []byte("abQ"), "abQd", -1, false},
		{"needle equals haystack", []byte("abQd"), "abQd", 0, false},
		{"empty haystack", nil, "ab", -1, false},
		{"long needle", cat(rep("x", 100), rep("the Zebra~", 10), []byte("!")), string(cat(rep("the Zebra~", 10), []byte("!"))), 100, false},
	} {
		f := newRareFinder([]byte(tc.needle))
		want := bytes.Index(tc.hay, []byte(tc.needle))
		require.Equal(t, tc.wantHere, want, "%s: the case's own answer disagrees with bytes.Index", tc.name)
		assert.Equal(t, want, f.scalar(tc.hay), "%s: scalar(%q)", tc.name, tc.needle)
		assert.Equal(t, tc.fallBack, f.fellBack, "%s: scalar fell back to bytes.Index", tc.name)
		assert.Equal(t, want, f.index(tc.hay), "%s: index(%q)", tc.name, tc.needle)
	}

	// Random haystacks over alphabets of frequent and rare bytes; needles
	// cut from them (often present) or random (often absent).
	r := rand.New(rand.NewPCG(27, 1))
	for _, alphabet := range []string{"e ", "eQ", "Q~", "ab\x00", "the Zq\n", "\xff\xfe"} {
		for range 500 {
			hay := make([]byte, r.IntN(300))
			for i := range hay {
				hay[i] = alphabet[r.IntN(len(alphabet))]
			}
			needle := make([]byte, 2+r.IntN(12))
			if len(hay) >= len(needle) && r.IntN(2) == 0 {
				i := r.IntN(len(hay) - len(needle) + 1)
				copy(needle, hay[i:])
			} else {
				for i := range needle {
					needle[i] = alphabet[r.IntN(len(alphabet))]
				}
			}
			f := newRareFinder(needle)
			want := bytes.Index(hay, needle)
			require.Equal(t, want, f.index(hay), "index(%q) in %q", needle, hay)
			require.Equal(t, want, f.scalar(hay), "scalar(%q) in %q", needle, hay)
		}
	}
}
