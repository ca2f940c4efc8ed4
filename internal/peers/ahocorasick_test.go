package peers

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	bobusumisu "github.com/BobuSumisu/aho-corasick"
	cloudflare "github.com/cloudflare/ahocorasick"
	petar "github.com/petar-dambovaliev/aho-corasick"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/corpus"
	"github.com/netkit/netkit/search"
)

// setSizes are the numbers of patterns searched for by BenchmarkSetFind and
// BenchmarkSetAll, as in the search package's own benchmarks.
var setSizes = []int{5, 16, 100, 1000}

// absentWords and rareWords are the pattern sets of the search package's
// BenchmarkSetFind and BenchmarkSetAll, drawn with the same seeds.
func absentWords(text []byte, n int) [][]byte {
	return corpus.AbsentWords(text, n, rand.New(rand.NewPCG(uint64(n), 1)))
}

func rareWords(tb testing.TB, text []byte, n int) [][]byte {
	pats, err := corpus.RareWords(text, n, rand.New(rand.NewPCG(uint64(n), 2)))
	require.NoError(tb, err)
	return pats
}

// goSource returns the 1 MiB of Go source that every comparison scans, or
// skips tb when GOROOT cannot be read.
func goSource(tb testing.TB) []byte {
	text, err := corpus.GoSource()
	if err != nil {
		tb.Skip(err)
	}
	return text
}

// A setKind names the netkit results that a peer's results are checked
// against.
type setKind int

const (
	// leftmostFirst: search.LeftmostFirst, non-overlapping leftmost
	// matches, the pattern given first among those starting at one offset.
	leftmostFirst setKind = iota
	// overlapping: search.Overlapping, every occurrence of every pattern,
	// by end offset and longest first among those ending at one offset.
	overlapping
	// distinct: which patterns occur at all, without positions: the
	// distinct Pattern values of the overlapping matches, in increasing
	// order.
	distinct
)

// newPetar builds a petar automaton with the options o (the match kind)
// and the DFA, which is what netkit's Set searches with (a transition table
// indexed by byte class); petar's default is an NFA that follows failure
// links while searching.
func newPetar(pats [][]byte, o petar.Opts) petar.AhoCorasick {
	o.DFA = true
	b := petar.NewAhoCorasickBuilder(o)
	return b.BuildByte(pats)
}

// A findImpl is one implementation's call that searches a text for the
// first match of a set of patterns.
type findImpl struct {
	name string
	// kind is the netkit kind whose first match find returns. Positions
	// are compared, pattern indexes are not (bobusumisu's MatchFirst
	// leaves them unset); for distinct, only whether there is a match.
	kind setKind
	// build builds the automaton of pats, outside any timer, and returns
	// the measured call.
	build func(pats [][]byte) (find func(text []byte) (search.Match, bool))
}

var findImpls = []findImpl{
	{"netkit", leftmostFirst, func(pats [][]byte) func([]byte) (search.Match, bool) {
		return search.NewSet(pats).Find
	}},
	// Contains reports whether any pattern occurs, and stops at the
	// first occurrence.
	{"cloudflare", distinct, func(pats [][]byte) func([]byte) (search.Match, bool) {
		m := cloudflare.NewMatcher(pats)
		return func(text []byte) (search.Match, bool) {
			return search.Match{}, m.Contains(text)
		}
	}},
	// The first match of a leftmost-first iterator.
	{"petar", leftmostFirst, func(pats [][]byte) func([]byte) (search.Match, bool) {
		ac := newPetar(pats, petar.Opts{MatchKind: petar.LeftMostFirstMatch})
		return func(text []byte) (search.Match, bool) {
			m := ac.IterByte(text).Next()
			if m == nil {
				return search.Match{}, false
			}
			return search.Match{Start: int64(m.Start()), End: int64(m.End()), Pattern: m.Pattern()}, true
		}
	}},
	// MatchFirst returns the first occurrence to end, the longest of
	// those ending at its end offset: the first overlapping match.
	{"bobusumisu", overlapping, func(pats [][]byte) func([]byte) (search.Match, bool) {
		tr := bobusumisu.NewTrieBuilder().AddPatterns(pats).Build()
		return func(text []byte) (search.Match, bool) {
			m := tr.MatchFirst(text)
			if m == nil {
				return search.Match{}, false
			}
			return search.Match{Start: m.Pos(), End: m.Pos() + int64(len(m.Match()))}, true
		}
	}},
}

// An allImpl is one implementation's way of reporting every match of a set
// of patterns in a text.
type allImpl struct {
	name string
	// kind is the netkit results that the impl's must equal.
	kind setKind
	// build builds the automaton of pats, outside any timer, and returns
	// the measured call, which passes each match in text to yield,
	// converted to a search.Match. For distinct, only Pattern is set, and
	// the patterns come in the impl's own order.
	build func(pats [][]byte, yield func(search.Match)) (all func(text []byte))
}

var allImpls = []allImpl{
	{"netkit-leftmost-first", leftmostFirst, func(pats [][]byte, yield func(search.Match)) func([]byte) {
		return netkitAll(search.NewSet(pats, search.LeftmostFirst()), yield)
	}},
	// petar's iterator resumes the search one byte after the start of the
	// match it returned, not after its end, so it also reports leftmost
	// matches that begin inside the previous one ("bcd" in "abcd" after
	// "abc"). Its matches are filtered here as netkit's All would resume:
	// a match that starts before the end of the last one kept is dropped.
	// What remains is exactly the leftmost-first sequence: petar's
	// searches start at or before the end of the last match kept until one
	// returns a match that starts at or after it, and that match, the
	// leftmost-first one in the rest of the text, is the one netkit's All
	// finds next. The filter costs one comparison per match; on the 1000
	// rare words of Go 1.26's sources petar returns 3,981 matches, of
	// which 3,862 are kept.
	{"petar-leftmost-first", leftmostFirst, func(pats [][]byte, yield func(search.Match)) func([]byte) {
		ac := newPetar(pats, petar.Opts{MatchKind: petar.LeftMostFirstMatch})
		return func(text []byte) {
			end := 0
			it := ac.IterByte(text)
			for m := it.Next(); m != nil; m = it.Next() {
				if m.Start() < end {
					continue
				}
				end = m.End()
				yield(search.Match{Start: int64(m.Start()), End: int64(end), Pattern: m.Pattern()})
			}
		}
	}},
	{"netkit-overlapping", overlapping, func(pats [][]byte, yield func(search.Match)) func([]byte) {
		return netkitAll(search.NewSet(pats, search.Overlapping()), yield)
	}},
	// Overlapping iteration needs petar's standard match kind.
	{"petar-overlapping", overlapping, func(pats [][]byte, yield func(search.Match)) func([]byte) {
		ac := newPetar(pats, petar.Opts{MatchKind: petar.StandardMatch})
		return func(text []byte) {
			it := ac.IterOverlappingByte(text)
			for m := it.Next(); m != nil; m = it.Next() {
				yield(search.Match{Start: int64(m.Start()), End: int64(m.End()), Pattern: m.Pattern()})
			}
		}
	}},
	// Walk calls back for every occurrence with the offset of its last
	// byte and its length; Match is Walk collecting a []*Match, one
	// allocation per match, so Walk is the call comparable with All.
	{"bobusumisu-overlapping", overlapping, func(pats [][]byte, yield func(search.Match)) func([]byte) {
		tr := bobusumisu.NewTrieBuilder().AddPatterns(pats).Build()
		walk := func(last, n, pattern int64) bool {
			yield(search.Match{Start: last - n + 1, End: last + 1, Pattern: int(pattern)})
			return true
		}
		return func(text []byte) { tr.Walk(text, walk) }
	}},
	// Match reports which patterns occur, each once, with no positions:
	// it walks every occurrence as an overlapping search does but outputs
	// a pattern only the first time. Nothing in netkit returns that, so
	// its cost is to be read against netkit-overlapping, which reports
	// every occurrence from which the distinct patterns follow.
	{"cloudflare-distinct", distinct, func(pats [][]byte, yield func(search.Match)) func([]byte) {
		m := cloudflare.NewMatcher(pats)
		return func(text []byte) {
			for _, p := range m.Match(text) {
				yield(search.Match{Pattern: p})
			}
		}
	}},
}

// netkitAll returns the call that passes the matches of s in a text to
// yield, with the range loop in a method so that it allocates nothing, as a
// caller's range loop over All does. Written as a closure returned from
// here, the loop was compiled, once netkitAll was inlined into the impl
// table's functions, with s.All not inlined (Go 1.26): its body escaped to
// the heap, three allocations per call.
func netkitAll(s *search.Set, yield func(search.Match)) func([]byte) {
	return netkitRun{s, yield}.all
}

type netkitRun struct {
	s     *search.Set
	yield func(search.Match)
}

func (r netkitRun) all(text []byte) {
	for m := range r.s.All(text) {
		r.yield(m)
	}
}

// netkitMatches returns netkit's results of the given kind for pats in
// text, the reference each peer is checked against.
func netkitMatches(text []byte, pats [][]byte, kind setKind) []search.Match {
	var ms []search.Match
	if kind == leftmostFirst {
		for m := range search.NewSet(pats, search.LeftmostFirst()).All(text) {
			ms = append(ms, m)
		}
		return ms
	}
	for m := range search.NewSet(pats, search.Overlapping()).All(text) {
		ms = append(ms, m)
	}
	if kind == overlapping {
		return ms
	}
	seen := map[int]bool{}
	var ds []search.Match
	for _, m := range ms {
		if !seen[m.Pattern] {
			seen[m.Pattern] = true
			ds = append(ds, search.Match{Pattern: m.Pattern})
		}
	}
	return sortByPattern(ds)
}

func sortByPattern(ms []search.Match) []search.Match {
	slices.SortFunc(ms, func(a, b search.Match) int { return cmp.Compare(a.Pattern, b.Pattern) })
	return ms
}

// TestPeersAgree checks, on the inputs of the benchmarks, that every impl
// finds what netkit finds under the corresponding kind: nothing for the
// absent words; for the rare words, the same first match and the same
// sequence of matches (the same set of patterns for distinct).
func TestPeersAgree(t *testing.T) {
	text := goSource(t)
	for _, n := range setSizes {
		t.Run(fmt.Sprintf("patterns=%d", n), func(t *testing.T) {
			absent, rare := absentWords(text, n), rareWords(t, text, n)
			for _, im := range findImpls {
				m, found := im.build(absent)(text)
				assert.False(t, found, "%s: absent words: unexpected match %+v", im.name, m)
				want, wok := search.NewSet(rare, search.LeftmostFirst()).Find(text)
				if im.kind != leftmostFirst {
					want, wok = search.NewSet(rare, search.Overlapping()).Find(text)
				}
				got, ok := im.build(rare)(text)
				assert.Equal(t, wok, ok, "%s: rare words: first match %+v, %v; netkit finds %+v, %v", im.name, got, ok, want, wok)
				if im.kind != distinct {
					assert.Equal(t, want.Start, got.Start, "%s: rare words: first match %+v; netkit finds %+v", im.name, got, want)
					assert.Equal(t, want.End, got.End, "%s: rare words: first match %+v; netkit finds %+v", im.name, got, want)
				}
			}
			for _, im := range allImpls {
				var got []search.Match
				im.build(rare, func(m search.Match) { got = append(got, m) })(text)
				if im.kind == distinct {
					sortByPattern(got)
				}
				want := netkitMatches(text, rare, im.kind)
				require.NotEmpty(t, want, "%s: netkit finds no rare word", im.name)
				if !slices.Equal(got, want) {
					i := 0
					for i < min(len(got), len(want)) && got[i] == want[i] {
						i++
					}
					t.Errorf("%s: %d matches, netkit %d; first difference at #%d: %+v, netkit %+v",
						im.name, len(got), len(want), i, got[i:min(i+1, len(got))], want[i:min(i+1, len(want))])
				}
			}
		})
	}
}

// BenchmarkSetFind searches 1 MiB of Go source for n random words that do
// not occur in it, with each impl's call for the first match (see
// findImpls), so every impl scans the whole text on every iteration. The
// words and the text are those of the search package's BenchmarkSetFind.
func BenchmarkSetFind(b *testing.B) {
	text := goSource(b)
	for _, n := range setSizes {
		pats := absentWords(text, n)
		for _, im := range findImpls {
			b.Run(fmt.Sprintf("patterns=%d/impl=%s", n, im.name), func(b *testing.B) {
				find := im.build(pats)
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				for b.Loop() {
					if m, ok := find(text); ok {
						b.Fatalf("unexpected match %+v", m)
					}
				}
			})
		}
	}
}

// BenchmarkSetAll reports every match in 1 MiB of Go source of n
// identifiers that each occur at most three times in it (the words of the
// search package's BenchmarkSetAll), with each impl's call for all matches
// (see allImpls). Each netkit-KIND sub-benchmark is the reference for the
// peers named with the same KIND; cloudflare-distinct, which reports only
// which patterns occur, is to be read against netkit-overlapping. Every
// iteration checks the number of matches against netkit's, which
// TestPeersAgree checks match by match.
func BenchmarkSetAll(b *testing.B) {
	text := goSource(b)
	for _, n := range setSizes {
		pats := rareWords(b, text, n)
		want := map[setKind]int{}
		for _, kind := range []setKind{leftmostFirst, overlapping, distinct} {
			want[kind] = len(netkitMatches(text, pats, kind))
		}
		for _, im := range allImpls {
			b.Run(fmt.Sprintf("patterns=%d/impl=%s", n, im.name), func(b *testing.B) {
				count := 0
				all := im.build(pats, func(search.Match) { count++ })
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				for b.Loop() {
					count = 0
					all(text)
					if count != want[im.kind] {
						b.Fatalf("%d matches; netkit reports %d", count, want[im.kind])
					}
				}
			})
		}
	}
}

// BenchmarkSetBuild builds the automaton that BenchmarkSetFind searches
// with, for 10,000 random words of 5–10 letters, with each impl (plus the
// closure around it, one small allocation). Every peer builds well within
// a second here, so none is skipped; cloudflare's trie holds two tables of
// 256 pointers per node, some 300 MB for these words.
func BenchmarkSetBuild(b *testing.B) {
	text := goSource(b)
	const n = 10000
	pats := corpus.AbsentWords(text, n, rand.New(rand.NewPCG(n, 3)))
	for _, im := range findImpls {
		b.Run(fmt.Sprintf("patterns=%d/impl=%s", n, im.name), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				im.build(pats)
			}
		})
	}
}
