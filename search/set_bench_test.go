package search

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/netkit/netkit/internal/corpus"
	"github.com/stretchr/testify/require"
)

// setBenchRegexp compiles the leftmost-first equivalent of a Set, the
// reference in the same run (for sets of up to setBenchRegexpMax patterns:
// the regexp engine slows down with the size of the alternation).
func setBenchRegexp(pats [][]byte) *regexp.Regexp {
	q := make([]string, len(pats))
	for i, p := range pats {
		q[i] = regexp.QuoteMeta(string(p))
	}
	return regexp.MustCompile(strings.Join(q, "|"))
}

var sinkSetMatch Match

// BenchmarkSetPrefilter searches 1 MiB of Go source for 5 absent words
// that all begin with one of three bytes, so Find skips from candidate to
// candidate with bytes.IndexByte: 'Q', 'X' and 'Z' are rare in Go source,
// 'e', 't' and 'a' common. prefilter=off is the same search on the bare
// automaton, the reference.
func BenchmarkSetPrefilter(b *testing.B) {
	text, err := corpus.GoSource()
	if err != nil {
		b.Skip(err)
	}
	for _, first := range []string{"rare", "common"} {
		lead := "QXZ"
		if first == "common" {
			lead = "eta"
		}
		pats := corpus.AbsentWords(text, 5, rand.New(rand.NewPCG(3, 3)))
		for i, p := range pats {
			p[0] = lead[i%3]
		}
		setBenchPrefilter(b, text, first, pats)
	}
}

func setBenchPrefilter(b *testing.B, text []byte, first string, pats [][]byte) {
	s, a := NewSet(pats), NewAhoCorasick(pats)
	for _, impl := range []struct {
		name string
		find func([]byte) (Match, bool)
	}{{"on", s.Find}, {"off", a.Find}} {
		b.Run("patterns=5/first="+first+"/prefilter="+impl.name, func(b *testing.B) {
			benchFindAbsent(b, text, impl.find)
		})
	}
}

// benchFindAbsent times find over text, in which nothing may match, so the
// whole text is scanned on every iteration.
func benchFindAbsent(b *testing.B, text []byte, find func([]byte) (Match, bool)) {
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	var m Match
	var ok bool
	for b.Loop() {
		m, ok = find(text)
		sinkSetMatch = m
	}
	require.False(b, ok, "unexpected match %v", m)
}

// setBenchRegexpMax is the largest set compared with regexp, which needs
// seconds per MiB beyond it.
const setBenchRegexpMax = 16

// BenchmarkSetFind searches 1 MiB of Go source for a set of random words
// that do not occur in it, so the whole text is scanned. impl=regexp is an
// alternation of the quoted words, the reference.
func BenchmarkSetFind(b *testing.B) {
	text, err := corpus.GoSource()
	if err != nil {
		b.Skip(err)
	}
	for _, n := range []int{5, 16, 100, 1000} {
		pats := corpus.AbsentWords(text, n, rand.New(rand.NewPCG(uint64(n), 1)))
		b.Run(fmt.Sprintf("patterns=%d/impl=netkit", n), func(b *testing.B) {
			benchFindAbsent(b, text, NewSet(pats).Find)
		})
		if n > setBenchRegexpMax {
			continue
		}
		b.Run(fmt.Sprintf("patterns=%d/impl=regexp", n), func(b *testing.B) {
			re := setBenchRegexp(pats)
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			var loc []int
			for b.Loop() {
				loc = re.FindIndex(text)
			}
			require.Nil(b, loc, "unexpected match")
		})
	}
}

// BenchmarkSetFindShort is BenchmarkSetFind on short haystacks, the size
// of a request line or a header block: each iteration searches 64 pieces
// of size bytes taken across the 1 MiB of Go source for absent words.
// impl=automaton is the same set as a bare AhoCorasick, with no prefilter:
// what a Set would cost if its vector set-up did not pay off on short
// input.
func BenchmarkSetFindShort(b *testing.B) {
	text, err := corpus.GoSource()
	if err != nil {
		b.Skip(err)
	}
	for _, n := range []int{5, 16} {
		pats := corpus.AbsentWords(text, n, rand.New(rand.NewPCG(uint64(n), 1)))
		s, a := NewSet(pats), NewAhoCorasick(pats)
		for _, size := range []int{40, 64, 100, 300, 1000} {
			var pieces [64][]byte
			for i := range pieces {
				at := i * (len(text) - size) / len(pieces)
				pieces[i] = text[at : at+size]
			}
			for _, impl := range []struct {
				name string
				find func([]byte) (Match, bool)
			}{{"netkit", s.Find}, {"automaton", a.Find}} {
				b.Run(fmt.Sprintf("patterns=%d/size=%d/impl=%s", n, size, impl.name), func(b *testing.B) {
					b.SetBytes(int64(len(pieces) * size))
					b.ReportAllocs()
					found := 0
					for b.Loop() {
						for _, p := range pieces {
							if _, ok := impl.find(p); ok {
								found++
							}
						}
					}
					require.Zero(b, found, "matches where none may be")
				})
			}
		}
	}
}

// BenchmarkSetAll reports every leftmost-first match in 1 MiB of Go source
// of a set of identifiers that each occur at most three times in it.
// impl=regexp is an alternation of the quoted words, the reference.
func BenchmarkSetAll(b *testing.B) {
	text, err := corpus.GoSource()
	if err != nil {
		b.Skip(err)
	}
	for _, n := range []int{5, 16, 100, 1000} {
		pats, err := corpus.RareWords(text, n, rand.New(rand.NewPCG(uint64(n), 2)))
		require.NoError(b, err)
		// The match count is checked against regexp for the smaller sets.
		want := 0
		if n <= setBenchRegexpMax {
			want = len(setBenchRegexp(pats).FindAllIndex(text, -1))
		} else {
			for range NewSet(pats).All(text) {
				want++
			}
		}
		b.Run(fmt.Sprintf("patterns=%d/impl=netkit", n), func(b *testing.B) {
			s := NewSet(pats)
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			count := 0
			for b.Loop() {
				count = 0
				for m := range s.All(text) {
					sinkSetMatch = m
					count++
				}
			}
			require.Equal(b, want, count, "matches; regexp finds %d", want)
		})
		if n > setBenchRegexpMax {
			continue
		}
		b.Run(fmt.Sprintf("patterns=%d/impl=regexp", n), func(b *testing.B) {
			re := setBenchRegexp(pats)
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			got := 0
			for b.Loop() {
				got = len(re.FindAllIndex(text, -1))
			}
			require.Equal(b, want, got, "matches")
		})
	}
}

// BenchmarkSetStream feeds 1 MiB of Go source in 64 KiB chunks to a Set's
// Matcher, which reports every occurrence of a set of rare identifiers,
// against impl=all, the same Set's All under Overlapping over the whole
// text: the same matches, found without chunk boundaries.
func BenchmarkSetStream(b *testing.B) {
	text, err := corpus.GoSource()
	if err != nil {
		b.Skip(err)
	}
	const chunk = 64 << 10
	for _, n := range []int{16, 100} {
		pats, err := corpus.RareWords(text, n, rand.New(rand.NewPCG(uint64(n), 2)))
		require.NoError(b, err)
		s := NewSet(pats, Overlapping())
		want := 0
		for range s.All(text) {
			want++
		}
		b.Run(fmt.Sprintf("patterns=%d/chunk=65536/impl=matcher", n), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			m := s.Matcher()
			count := 0
			for b.Loop() {
				m.Reset()
				count = 0
				for i := 0; i < len(text); i += chunk {
					m.Feed(text[i:min(i+chunk, len(text))])
					for match, ok := m.Next(); ok; match, ok = m.Next() {
						sinkSetMatch = match
						count++
					}
				}
			}
			require.Equal(b, want, count, "matches")
		})
		b.Run(fmt.Sprintf("patterns=%d/chunk=65536/impl=all", n), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			count := 0
			for b.Loop() {
				count = 0
				for m := range s.All(text) {
					sinkSetMatch = m
					count++
				}
			}
			require.Equal(b, want, count, "matches")
		})
	}
}
