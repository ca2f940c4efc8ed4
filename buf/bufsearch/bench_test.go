package bufsearch_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/buf/bufsearch"
	"github.com/netkit/netkit/internal/corpus"
	"github.com/netkit/netkit/search"
)

var sinkInt int

// BenchmarkCompositeIndex searches 1 MiB of Go source (internal/corpus;
// random English-frequency letters when GOROOT is unreadable) for an
// absent needle, so every byte is scanned. impl=composite is
// Searcher.Index with a search.Pattern over 8 components of 128 KiB (the
// shape of buf's benchmark of the same name); impl=contiguous is the same
// Pattern on the bytes in one slice, the reference; impl=bytes is
// bytes.Index on that slice.
func BenchmarkCompositeIndex(b *testing.B) {
	rng := rand.New(rand.NewPCG(8, 8))
	text, err := corpus.GoSource()
	if err != nil {
		b.Logf("using letters: %v", err)
		text = corpus.EnglishLetters(rng, corpus.TextSize)
	}
	const parts = 8
	a := buf.NewAllocator(buf.WithLeakLevel(buf.LeakOff))
	c := buf.NewComposite(buf.WithAllocator(a))
	defer c.Release()
	part := len(text) / parts
	for k := range parts {
		x := a.Get(part)
		x.Write(text[k*part : (k+1)*part])
		c.Append(x)
	}
	flat := text[:parts*part]
	var s bufsearch.Searcher
	for _, m := range []int{8, 16, 64} {
		needle := corpus.AbsentNeedle(rng, flat, m)
		p := search.NewPattern(needle)
		impls := []struct {
			name  string
			index func() int
		}{
			{"composite", func() int { return s.Index(c, p) }},
			{"contiguous", func() int { return p.Index(flat) }},
			{"bytes", func() int { return bytes.Index(flat, needle) }},
		}
		for _, impl := range impls {
			b.Run(fmt.Sprintf("needle=%d/impl=%s", m, impl.name), func(b *testing.B) {
				b.SetBytes(int64(len(flat)))
				b.ReportAllocs()
				for b.Loop() {
					sinkInt = impl.index()
				}
				require.Equal(b, -1, sinkInt, "absent needle %q found at %d", needle, sinkInt)
			})
		}
	}
}
