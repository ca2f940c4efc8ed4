package search

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/netkit/netkit/internal/corpus"
	"github.com/stretchr/testify/require"
)

var sinkIndex int

// indexBenchTexts returns the haystacks of BenchmarkIndex: 1 MiB of
// English-frequency lower-case letters, 1 MiB of Go source, and 64 MiB of
// letters, which no cache holds, so that the search is memory-bound. Each
// is made on the first call of its h, so that a run of some
// sub-benchmarks pays only for the texts they search.
func indexBenchTexts(b *testing.B) []indexBenchText {
	texts := []indexBenchText{{"letters", sync.OnceValue(func() []byte {
		return corpus.EnglishLetters(rand.New(rand.NewPCG(42, 42)), 1<<20)
	})}}
	if _, err := corpus.GoSource(); err == nil {
		texts = append(texts, indexBenchText{"gosrc", func() []byte { src, _ := corpus.GoSource(); return src }})
	} else {
		b.Logf("text=gosrc skipped: %v", err)
	}
	return append(texts, indexBenchText{"letters64M", letters64M})
}

type indexBenchText struct {
	name string
	h    func() []byte
}

var letters64M = sync.OnceValue(func() []byte {
	return corpus.EnglishLetters(rand.New(rand.NewPCG(64, 64)), 64<<20)
})

// indexBenchNeedle returns an n-byte needle whose first byte is rare or
// common in h: for letters, 'q' or 'z' against 'e' or 'a', then random
// letters; for Go source, a piece of the source that starts at a rare byte
// ('Q', 'Z', 'X', 'J') or at a common one ('e', 't', tab, space), with its
// last bytes changed (within printable ASCII) until it no longer occurs in
// h. Needles in letters are removed from the haystack instead (see
// BenchmarkIndex), so that they stay letters.
func indexBenchNeedle(rng *rand.Rand, h []byte, text string, n int, first string) []byte {
	if text != "gosrc" {
		lead := "qz"
		if first == "common" {
			lead = "ea"
		}
		needle := corpus.EnglishLetters(rng, n)
		needle[0] = lead[rng.IntN(2)]
		return needle
	}
	lead := "QZXJ"
	if first == "common" {
		lead = "et\t "
	}
	var needle []byte
	for needle == nil {
		i := rng.IntN(len(h) - n)
		if strings.IndexByte(lead, h[i]) >= 0 {
			needle = bytes.Clone(h[i : i+n])
		}
	}
	for k := n - 1; bytes.Contains(h, needle); {
		if needle[k] < '!' || needle[k] >= '~' {
			needle[k] = '!'
			k = max(k-1, 1)
			continue
		}
		needle[k]++
	}
	return needle
}

// BenchmarkIndex searches each text for absent needles of 2 to 256 bytes,
// so the whole haystack is scanned. first=rare needles start with a byte
// that is rare in the text, first=common ones with a common byte (see
// indexBenchNeedle). impl=bytes is bytes.Index, the reference.
func BenchmarkIndex(b *testing.B) {
	rng := rand.New(rand.NewPCG(42, 43))
	type needle struct {
		n     int
		first string
		b     []byte
	}
	for _, text := range indexBenchTexts(b) {
		// Needles in letters do not depend on the text (see
		// indexBenchNeedle), so only Go source is read here; the needles
		// are the same whichever sub-benchmarks run.
		var src []byte
		if text.name == "gosrc" {
			src = text.h()
		}
		var needles []needle
		for _, n := range []int{2, 4, 8, 16, 32, 64, 256} {
			for _, first := range []string{"rare", "common"} {
				needles = append(needles, needle{n, first, indexBenchNeedle(rng, src, text.name, n, first)})
			}
		}
		b.Run("text="+text.name, func(b *testing.B) {
			h := text.h()
			if text.name != "gosrc" {
				// Remove the needles from (a copy of) the letters; removing
				// one may create another, so repeat until none occurs.
				h = bytes.Clone(h)
				for again := true; again; {
					again = false
					for _, nd := range needles {
						if bytes.Contains(h, nd.b) {
							corpus.RemoveAll(h, nd.b)
							again = true
						}
					}
				}
			}
			for _, nd := range needles {
				p := NewPattern(nd.b)
				for _, impl := range []string{"pattern", "bytes"} {
					b.Run(fmt.Sprintf("needle=%d/first=%s/impl=%s", nd.n, nd.first, impl), func(b *testing.B) {
						b.SetBytes(int64(len(h)))
						b.ReportAllocs()
						if impl == "pattern" {
							for b.Loop() {
								sinkIndex = p.Index(h)
							}
						} else {
							for b.Loop() {
								sinkIndex = bytes.Index(h, nd.b)
							}
						}
						require.Equal(b, -1, sinkIndex, "needle found at %d", sinkIndex)
					})
				}
			}
		})
	}
}

// BenchmarkWorstCase is Netty's WORST_CASE: a 1023×'a'+'b' needle in
// 2048×'a', which is quadratic for a naive search.
func BenchmarkWorstCase(b *testing.B) {
	needle, h, _ := worstCase()
	impls := []struct {
		name  string
		index func([]byte) int
	}{
		{"pattern", NewPattern(needle).Index},
		{"bytes", func(h []byte) int { return bytes.Index(h, needle) }},
		{"twoway", NewTwoWay(needle).Index},
		{"kmp", NewKMP(needle).Index},
	}
	for _, impl := range impls {
		b.Run("impl="+impl.name, func(b *testing.B) {
			b.SetBytes(int64(len(h)))
			b.ReportAllocs()
			for b.Loop() {
				sinkIndex = impl.index(h)
			}
		})
	}
}

// BenchmarkMatcher streams 1 MiB of English-frequency letters in 4 KiB
// chunks through each matcher for a 16-byte needle that occurs every 64 KiB.
func BenchmarkMatcher(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 7))
	h := corpus.EnglishLetters(rng, 1<<20)
	needle := corpus.EnglishLetters(rng, 16)
	corpus.RemoveAll(h, needle)
	for i := 1000; i+len(needle) <= len(h); i += 64 << 10 {
		copy(h[i:], needle)
	}
	bt, _ := NewBitap(needle)
	for _, impl := range []struct {
		name string
		m    Matcher
	}{{"pattern", NewPattern(needle).Matcher()}, {"bitap", bt.Matcher()}} {
		b.Run("needle=16/chunk=4096/impl="+impl.name, func(b *testing.B) {
			b.SetBytes(int64(len(h)))
			b.ReportAllocs()
			m := impl.m
			for b.Loop() {
				m.Reset()
				for i := 0; i < len(h); i += 4096 {
					m.Feed(h[i:min(i+4096, len(h))])
					for match, ok := m.Next(); ok; match, ok = m.Next() {
						sinkIndex = int(match.End)
					}
				}
			}
		})
	}
}
