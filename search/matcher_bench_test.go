package search

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/netkit/netkit/internal/corpus"
	"github.com/stretchr/testify/require"
)

var sinkStreamEnd int64

// BenchmarkStream compares Pattern's Matcher, fed 1 MiB of English-frequency
// letters in 64 KiB chunks, with Pattern.Index finding every overlapping
// match in the same bytes at once (resuming one byte past each match). The
// needle starts with a common byte ('e', on which KMP's bytes.IndexByte skip
// stops every few bytes) or a rare one ('q'), and occurs every 64 KiB.
func BenchmarkStream(b *testing.B) {
	const chunk = 64 << 10
	for _, n := range []int{8, 16, 64} {
		for _, first := range []byte{'e', 'q'} {
			rng := rand.New(rand.NewPCG(7, 7))
			h := corpus.EnglishLetters(rng, 1<<20)
			needle := append([]byte{first}, corpus.EnglishLetters(rng, n-1)...)
			corpus.RemoveAll(h, needle)
			for i := 1000; i+n <= len(h); i += chunk {
				copy(h[i:], needle)
			}
			want := len(allSlow(h, needle))
			p := NewPattern(needle)
			name := fmt.Sprintf("needle=%d/first=%c", n, first)
			b.Run(name+"/impl=matcher", func(b *testing.B) {
				b.SetBytes(int64(len(h)))
				b.ReportAllocs()
				m := p.Matcher()
				count := 0
				for b.Loop() {
					m.Reset()
					count = 0
					for i := 0; i < len(h); i += chunk {
						m.Feed(h[i:min(i+chunk, len(h))])
						for match, ok := m.Next(); ok; match, ok = m.Next() {
							sinkStreamEnd = match.End
							count++
						}
					}
				}
				require.Equal(b, want, count, "matches")
			})
			b.Run(name+"/impl=index", func(b *testing.B) {
				b.SetBytes(int64(len(h)))
				b.ReportAllocs()
				count := 0
				for b.Loop() {
					count = 0
					for s := 0; ; {
						j := p.Index(h[s:])
						if j < 0 {
							break
						}
						sinkStreamEnd = int64(s + j + n)
						count++
						s += j + 1
					}
				}
				require.Equal(b, want, count, "matches")
			})
		}
	}
}
