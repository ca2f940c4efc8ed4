package search

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/netkit/netkit/internal/corpus"
	"github.com/stretchr/testify/require"
)

// buildBenchPatterns is the number of patterns BenchmarkSetBuild builds.
const buildBenchPatterns = 10000

// buildBenchInput is one pattern set of BenchmarkSetBuild.
type buildBenchInput struct {
	alphabet string
	pats     [][]byte
}

// buildBenchInputs returns the pattern sets of BenchmarkSetBuild: random
// lower-case words absent from Go source (27 byte classes), identifiers
// from it (about 64 classes), and random bytes (256 classes). They are
// computed once: finding 10,000 absent words takes seconds.
var buildBenchInputs = sync.OnceValues(func() ([]buildBenchInput, error) {
	text, err := corpus.GoSource()
	if err != nil {
		return nil, err
	}
	lower := corpus.AbsentWords(text, buildBenchPatterns, rand.New(rand.NewPCG(buildBenchPatterns, 3)))
	ident, err := corpus.SomeRareWords(text, buildBenchPatterns, rand.New(rand.NewPCG(buildBenchPatterns, 4)))
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(buildBenchPatterns, 5))
	raw := make([][]byte, buildBenchPatterns)
	for i := range raw {
		p := make([]byte, 5+rng.IntN(6))
		for j := range p {
			p[j] = byte(rng.Uint32())
		}
		raw[i] = p
	}
	return []buildBenchInput{{"lower", lower}, {"ident", ident}, {"bytes", raw}}, nil
})

// BenchmarkSetBuild times NewAhoCorasick on about 10,000 patterns over
// alphabets of increasing size, and reports the automaton's memory per
// pattern (B/pattern). The bytes are those of the patterns, so MB/s is the
// rate at which pattern bytes are compiled. The number of identifiers
// depends on the Go source read, hence the patterns= key.
func BenchmarkSetBuild(b *testing.B) {
	if _, err := corpus.GoSource(); err != nil {
		b.Skip(err)
	}
	inputs, err := buildBenchInputs()
	require.NoError(b, err)
	for _, in := range inputs {
		total := 0
		for _, p := range in.pats {
			total += len(p)
		}
		b.Run(fmt.Sprintf("patterns=%d/alphabet=%s", len(in.pats), in.alphabet), func(b *testing.B) {
			b.SetBytes(int64(total))
			b.ReportAllocs()
			var a *AhoCorasick
			for b.Loop() {
				a = NewAhoCorasick(in.pats)
			}
			b.ReportMetric(float64(a.memSize())/float64(len(in.pats)), "B/pattern")
		})
	}
}
