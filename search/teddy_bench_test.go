package search

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/netkit/netkit/internal/corpus"
	"github.com/stretchr/testify/require"
)

// BenchmarkSetTeddyMax searches 1 MiB of Go source with sets of 64
// patterns, the most that Teddy takes (BenchmarkSetFind and BenchmarkSetAll
// have 5, 16, 100 and 1000): op=find for absent random words, as
// BenchmarkSetFind, and op=all for every leftmost-first match of rare
// identifiers, as BenchmarkSetAll.
func BenchmarkSetTeddyMax(b *testing.B) {
	text, err := corpus.GoSource()
	if err != nil {
		b.Skip(err)
	}
	const n = 64
	absent := corpus.AbsentWords(text, n, rand.New(rand.NewPCG(n, 1)))
	b.Run(fmt.Sprintf("patterns=%d/op=find", n), func(b *testing.B) {
		benchFindAbsent(b, text, NewSet(absent).Find)
	})
	rare, err := corpus.RareWords(text, n, rand.New(rand.NewPCG(n, 2)))
	require.NoError(b, err)
	b.Run(fmt.Sprintf("patterns=%d/op=all", n), func(b *testing.B) {
		s := NewSet(rare)
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for b.Loop() {
			for m := range s.All(text) {
				sinkSetMatch = m
			}
		}
	})
}

// BenchmarkSetTeddyLevel is BenchmarkSetFind's search for 5 and 16 absent
// words at each simd level this process can run: avx2 and sse2 (Teddy's
// 32- and 16-byte kernels) against purego, the byte prefilter or the bare
// automaton, which is what Set did before Teddy.
func BenchmarkSetTeddyLevel(b *testing.B) {
	text, err := corpus.GoSource()
	if err != nil {
		b.Skip(err)
	}
	for _, n := range []int{5, 16} {
		pats := corpus.AbsentWords(text, n, rand.New(rand.NewPCG(uint64(n), 1)))
		s := NewSet(pats)
		for _, l := range simdLevels() {
			b.Run(fmt.Sprintf("patterns=%d/level=%v", n, l), func(b *testing.B) {
				withSIMD(b, l)
				benchFindAbsent(b, text, s.Find)
			})
		}
	}
}
