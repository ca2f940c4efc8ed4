package search

import (
	"fmt"
	"iter"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/netkit/netkit/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func setOptions(kind matchKind, fold bool) []SetOption {
	opts := []SetOption{[...]func() SetOption{LeftmostFirst, LeftmostLongest, Overlapping}[kind]()}
	if fold {
		opts = append(opts, ASCIICaseInsensitive())
	}
	return opts
}

func setKindName(kind matchKind, fold bool) string {
	s := [...]string{"leftmost-first", "leftmost-longest", "overlapping"}[kind]
	if fold {
		s += "/fold"
	}
	return s
}

func toBytes(ss []string) [][]byte {
	b := make([][]byte, len(ss))
	for i, s := range ss {
		b[i] = []byte(s)
	}
	return b
}

// setFeedRandom feeds h to m in random chunks and collects the matches.
func setFeedRandom(m Matcher, h []byte, rng *rand.Rand) []Match {
	var got []Match
	for len(h) > 0 {
		n := min(len(h), rng.IntN(8))
		if rng.IntN(4) == 0 {
			n = min(len(h), rng.IntN(len(h)+1))
		}
		m.Feed(h[:n])
		for match, ok := m.Next(); ok; match, ok = m.Next() {
			got = append(got, match)
		}
		h = h[n:]
	}
	return got
}

// setCheck compares Set and AhoCorasick with the references.
func setCheck(t *testing.T, pats [][]byte, h []byte, kind matchKind, fold bool, rng *rand.Rand) {
	t.Helper()
	opts := setOptions(kind, fold)
	name := setKindName(kind, fold)
	s := NewSet(pats, opts...)
	a := NewAhoCorasick(pats, opts...)
	wantM, wantOK := setFindSlow(h, pats, kind, fold)
	wantAll := setAllSlow(h, pats, kind, fold)
	wantOver := setOverlappingSlow(h, pats, fold)
	for _, impl := range []struct {
		name    string
		find    func([]byte) (Match, bool)
		all     func([]byte) []Match
		matcher func() Matcher
	}{
		{"Set", s.Find, func(h []byte) []Match { return slices.Collect(s.All(h)) }, s.Matcher},
		{"AhoCorasick", a.Find, func(h []byte) []Match { return slices.Collect(a.All(h)) }, a.Matcher},
	} {
		// Compared with == first: the random and fuzz tests call this
		// hundreds of thousands of times, and testify compares by
		// reflection and boxes its message arguments on every call.
		if m, ok := impl.find(h); ok != wantOK || m != wantM {
			require.Equal(t, wantOK, ok, "%s %s: Find(%q) with %q found", impl.name, name, h, pats)
			require.Equal(t, wantM, m, "%s %s: Find(%q) with %q", impl.name, name, h, pats)
		}
		if all := impl.all(h); !slices.Equal(all, wantAll) {
			require.Equal(t, wantAll, all, "%s %s: All(%q) with %q", impl.name, name, h, pats)
		}
		if rng != nil {
			m := impl.matcher()
			for range 2 {
				if over := setFeedRandom(m, h, rng); !slices.Equal(over, wantOver) {
					require.Equal(t, wantOver, over, "%s %s: Matcher(%q) with %q", impl.name, name, h, pats)
				}
				m.Reset()
			}
		}
	}
	require.Equal(t, len(pats), s.Len(), "Set.Len")
	require.Equal(t, len(pats), a.Len(), "AhoCorasick.Len")
}

func TestSetTable(t *testing.T) {
	for _, tt := range []struct {
		pats []string
		h    string
		opts []SetOption
		want []Match
	}{
		{[]string{"Samwise", "Sam"}, "Samwise", nil, []Match{{0, 7, 0}}},
		{[]string{"Sam", "Samwise"}, "Samwise", nil, []Match{{0, 3, 0}}},
		{[]string{"Sam", "Samwise"}, "Samwise", []SetOption{LeftmostLongest()}, []Match{{0, 7, 1}}},
		{[]string{"Sam", "Samwise"}, "Samwise", []SetOption{Overlapping()}, []Match{{0, 3, 0}, {0, 7, 1}}},
		{[]string{"bcd", "abcdef"}, "abcdex", nil, []Match{{1, 4, 0}}},
		{[]string{"bcd", "abcdef"}, "abcdef", nil, []Match{{0, 6, 1}}},
		{[]string{"b", "abc"}, "abd", nil, []Match{{1, 2, 0}}},
		{[]string{"a", "aa", "aaa"}, "aaa", []SetOption{Overlapping()}, []Match{{0, 1, 0}, {0, 2, 1}, {1, 2, 0}, {0, 3, 2}, {1, 3, 1}, {2, 3, 0}}},
		{[]string{"a", "aa"}, "aaa", []SetOption{LeftmostLongest()}, []Match{{0, 2, 1}, {2, 3, 0}}},
		{[]string{"x", "x"}, "xx", []SetOption{Overlapping()}, []Match{{0, 1, 0}, {0, 1, 1}, {1, 2, 0}, {1, 2, 1}}},
		{[]string{"x", "x"}, "xx", []SetOption{LeftmostLongest()}, []Match{{0, 1, 0}, {1, 2, 0}}},
		{[]string{"GO"}, "go Go gO GO", nil, []Match{{9, 11, 0}}},
		{[]string{"GO"}, "go Go gO GO", []SetOption{ASCIICaseInsensitive()}, []Match{{0, 2, 0}, {3, 5, 0}, {6, 8, 0}, {9, 11, 0}}},
		{[]string{"é"}, "É é", []SetOption{ASCIICaseInsensitive()}, []Match{{3, 5, 0}}},
		{[]string{"foo", "bar"}, "", nil, nil},
		{nil, "anything", nil, nil},
		{[]string{"he", "she", "his", "hers"}, "ushers", []SetOption{Overlapping()}, []Match{{1, 4, 1}, {2, 4, 0}, {2, 6, 3}}},
		{[]string{"he", "she", "his", "hers"}, "ushers", nil, []Match{{1, 4, 1}}},
	} {
		s := NewSet(toBytes(tt.pats), tt.opts...)
		got := slices.Collect(s.All([]byte(tt.h)))
		assert.Equal(t, tt.want, got, "NewSet(%q).All(%q)", tt.pats, tt.h)
		m, ok := s.Find([]byte(tt.h))
		if assert.Equal(t, len(tt.want) > 0, ok, "NewSet(%q).Find(%q) found", tt.pats, tt.h) && ok {
			assert.Equal(t, tt.want[0], m, "NewSet(%q).Find(%q)", tt.pats, tt.h)
		}
	}
}

func TestSetEmptyPattern(t *testing.T) {
	for _, build := range []func(){
		func() { NewSet([][]byte{[]byte("a"), {}}) },
		func() { NewAhoCorasick([][]byte{nil}) },
	} {
		func() {
			defer func() {
				r := recover()
				assert.Contains(t, fmt.Sprint(r), "empty", "recover() = %v; want a panic about an empty pattern", r)
			}()
			build()
		}()
	}
	s := NewSet(nil)
	_, ok := s.Find([]byte("abc"))
	assert.False(t, ok, "empty set matched")
	assert.Zero(t, s.Len(), "empty set's Len")
	m := s.Matcher()
	m.Feed([]byte("abc"))
	_, ok = m.Next()
	assert.False(t, ok, "empty set Matcher matched")
}

// setRandomInput builds random patterns of 1 to maxLen bytes and a
// haystack over a small alphabet, with up to 3 patterns planted in the
// haystack.
func setRandomInput(rng *rand.Rand, alphabet string, npats, maxLen, hlen int) ([][]byte, []byte) {
	return randomPatterns(rng, alphabet, npats, 1, maxLen, hlen, 4)
}

// randomPatterns builds npats random patterns of minLen to maxLen bytes
// over alphabet and a haystack of hlen bytes over it, with up to
// maxPlants-1 of the patterns copied into the haystack.
func randomPatterns(rng *rand.Rand, alphabet string, npats, minLen, maxLen, hlen, maxPlants int) ([][]byte, []byte) {
	word := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return b
	}
	pats := make([][]byte, npats)
	for i := range pats {
		pats[i] = word(minLen + rng.IntN(maxLen-minLen+1))
	}
	h := word(hlen)
	for range rng.IntN(maxPlants) {
		p := pats[rng.IntN(len(pats))]
		if len(p) <= len(h) {
			copy(h[rng.IntN(len(h)-len(p)+1):], p)
		}
	}
	return pats, h
}

func TestSetRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	iters := 3000
	if testing.Short() {
		iters = 300
	}
	for range iters {
		alphabet := []string{"ab", "abc", "aAbB", "abcd", "aAbBcC", "\x00\xffxX"}[rng.IntN(6)]
		pats, h := setRandomInput(rng, alphabet, 1+rng.IntN(12), 1+rng.IntN(8), rng.IntN(64))
		for kind := range overlapping + 1 {
			for _, fold := range []bool{false, true} {
				setCheck(t, pats, h, kind, fold, rng)
			}
		}
	}
}

// TestSetPrefilter covers the prefilter's memo: a frequent and a rare
// first byte, case folding of first bytes, and a set with too many.
func TestSetPrefilter(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	h := []byte(strings.Repeat("xaxbxa", 50) + "zq" + strings.Repeat("ab", 30) + "Zq")
	for _, pats := range [][]string{
		{"zq"}, {"xb", "zq"}, {"ab", "xa", "zq"}, {"ab", "xa", "zq", "q"}, {"Zq", "ba"},
	} {
		for kind := range overlapping + 1 {
			for _, fold := range []bool{false, true} {
				setCheck(t, toBytes(pats), h, kind, fold, rng)
			}
		}
	}
	p := newPrefilter(toBytes([]string{"ab", "Ab"}), true)
	if assert.NotNil(t, p, "prefilter of ab, Ab folded") {
		assert.Equal(t, 2, p.n, "bytes of the prefilter of ab, Ab folded")
	}
	p = newPrefilter(toBytes([]string{"ab", "cd"}), true)
	assert.Nil(t, p, "prefilter of ab, cd folded; want none (4 bytes)")
}

// setFuzzInput decodes a fuzz input: data[0] picks the match kind, case
// folding and the alphabet, data[1] the number of patterns (1–20); each
// pattern is a length byte then its bytes (taken cyclically from the
// input); the rest is the haystack.
func setFuzzInput(data []byte) (pats [][]byte, h []byte, kind matchKind, fold bool) {
	if len(data) < 3 {
		return nil, nil, 0, false
	}
	kind = matchKind(data[0] % 3)
	fold = data[0]/3%2 == 1
	alphabets := []string{"ab", "abc", "aAbB", "abcd", ""}
	alphabet := alphabets[int(data[0]/6)%len(alphabets)]
	conv := func(c byte) byte {
		if alphabet == "" {
			return c
		}
		return alphabet[int(c)%len(alphabet)]
	}
	npats := 1 + int(data[1])%20
	data = data[2:]
	k := 0
	take := func() byte {
		c := data[k%len(data)]
		k++
		return c
	}
	for range npats {
		n := int(take())
		if n < 200 {
			n = 1 + n%6
		} else {
			n = 1 + (n-200)*3
		}
		p := make([]byte, n)
		for i := range p {
			p[i] = conv(take())
		}
		pats = append(pats, p)
	}
	if k < len(data) {
		for _, c := range data[k:] {
			h = append(h, conv(c))
		}
	}
	return pats, h, kind, fold
}

func setFuzzSeeds(f *testing.F) {
	f.Add([]byte("\x00\x03\x02ab\x01b\x03abaabababbabaab"))
	f.Add([]byte("\x01\x05\x02ab\x01b\x03abaabababbabaab"))
	f.Add([]byte("\x0a\x05\x02aB\x01b\x03AbaabABabbabaab"))
	f.Add([]byte("\x1e\x02\x03he\x00\x04hers\x02sheushersandhishe"))
	f.Add([]byte("\x20\x02\xcaab\x01ccabababababababababababababababab"))
}

func FuzzSetFind(f *testing.F) {
	setFuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		pats, h, kind, fold := setFuzzInput(data)
		if pats == nil {
			return
		}
		want, wantOK := setFindSlow(h, pats, kind, fold)
		opts := setOptions(kind, fold)
		for _, find := range []func([]byte) (Match, bool){NewSet(pats, opts...).Find, NewAhoCorasick(pats, opts...).Find} {
			got, ok := find(h)
			require.Equal(t, wantOK, ok, "%s: Find(%q) with %q found", setKindName(kind, fold), h, pats)
			require.Equal(t, want, got, "%s: Find(%q) with %q", setKindName(kind, fold), h, pats)
		}
	})
}

func FuzzSetAll(f *testing.F) {
	setFuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		pats, h, kind, fold := setFuzzInput(data)
		if pats == nil {
			return
		}
		want := setAllSlow(h, pats, kind, fold)
		opts := setOptions(kind, fold)
		for _, all := range []func([]byte) iter.Seq[Match]{NewSet(pats, opts...).All, NewAhoCorasick(pats, opts...).All} {
			require.Equal(t, want, slices.Collect(all(h)), "%s: All(%q) with %q", setKindName(kind, fold), h, pats)
		}
	})
}

func FuzzSetMatcher(f *testing.F) {
	setFuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		pats, h, kind, fold := setFuzzInput(data)
		if pats == nil {
			return
		}
		seed := uint64(len(data)) // the chunking is derived from the input
		for _, c := range data {
			seed = seed*31 + uint64(c)
		}
		want := setOverlappingSlow(h, pats, fold)
		rng := rand.New(rand.NewPCG(seed, 0))
		opts := setOptions(kind, fold)
		for _, m := range []Matcher{NewSet(pats, opts...).Matcher(), NewAhoCorasick(pats, opts...).Matcher()} {
			require.Equal(t, want, setFeedRandom(m, h, rng), "%s: Matcher(%q) with %q", setKindName(kind, fold), h, pats)
		}
	})
}

// TestSetNoAllocs checks that Find, a complete All loop and Feed+Next
// allocate nothing, at every simd level.
func TestSetNoAllocs(t *testing.T) {
	testenv.SkipRace(t, "the detector allocates, so allocation counts mean nothing")
	forEachSIMD(t, func(t *testing.T) {
		h := []byte(strings.Repeat("the quick brown fox jumps over the lazy dog ", 50))
		for _, pats := range [][]string{{"fox", "dog"}, {"the", "quick", "lazy", "over", "jumps"}} {
			for kind := range overlapping + 1 {
				for _, fold := range []bool{false, true} {
					s := NewSet(toBytes(pats), setOptions(kind, fold)...)
					name := setKindName(kind, fold)
					n := testing.AllocsPerRun(100, func() { s.Find(h) })
					assert.Zero(t, n, "%s: Find allocates", name)
					count := 0
					n = testing.AllocsPerRun(100, func() {
						for m := range s.All(h) {
							count += int(m.End)
						}
					})
					assert.Zero(t, n, "%s: All loop allocates", name)
					m := s.Matcher()
					n = testing.AllocsPerRun(100, func() {
						m.Reset()
						for i := 0; i < len(h); i += 7 {
							m.Feed(h[i:min(i+7, len(h))])
							for _, ok := m.Next(); ok; _, ok = m.Next() {
								count++
							}
						}
					})
					assert.Zero(t, n, "%s: Feed+Next allocates", name)
					sinkInt += count
				}
			}
		}
	})
}
