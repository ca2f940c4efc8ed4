package search

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/netkit/netkit/internal/corpus"
)

var sinkIndex int

// BenchmarkIndex searches 1 MiB of English-frequency lower-case letters for
// an absent needle, so the whole haystack is scanned. first=rare needles
// start with 'q' or 'z', first=common ones with 'e' or 'a'; the rest of the
// needle is drawn like the haystack. impl=bytes is bytes.Index, the
// reference.
func BenchmarkIndex(b *testing.B) {
	rng := rand.New(rand.NewPCG(42, 42))
	base := corpus.EnglishLetters(rng, 1<<20)
	for _, n := range []int{2, 4, 8, 16, 32, 64, 256} {
		for _, first := range []string{"rare", "common"} {
			lead := "qz"
			if first == "common" {
				lead = "ea"
			}
			needle := corpus.EnglishLetters(rng, n)
			needle[0] = lead[rng.IntN(2)]
			h := bytes.Clone(base)
			corpus.RemoveAll(h, needle)
			p := NewPattern(needle)
			for _, impl := range []string{"pattern", "bytes"} {
				b.Run(fmt.Sprintf("needle=%d/first=%s/impl=%s", n, first, impl), func(b *testing.B) {
					b.SetBytes(int64(len(h)))
					b.ReportAllocs()
					if impl == "pattern" {
						for b.Loop() {
							sinkIndex = p.Index(h)
						}
					} else {
						for b.Loop() {
							sinkIndex = bytes.Index(h, needle)
						}
					}
					if sinkIndex != -1 {
						b.Fatalf("needle found at %d", sinkIndex)
					}
				})
			}
		}
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
