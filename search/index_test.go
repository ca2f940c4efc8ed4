package search

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/netkit/netkit/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// single is one single-needle searcher under test.
type single struct {
	name    string
	index   func([]byte) int
	matcher func() Matcher // nil when the searcher cannot stream this needle
}

// singles returns every single-needle searcher built for needle.
func singles(tb testing.TB, needle []byte) []single {
	k, tw, p := NewKMP(needle), NewTwoWay(needle), NewPattern(needle)
	s := []single{
		{"kmp", k.Index, k.Matcher},
		{"twoway", tw.Index, tw.Matcher},
		{"pattern", p.Index, p.Matcher},
		{"oneshot", func(h []byte) int { return Index(h, needle) }, p.Matcher},
	}
	b, err := NewBitap(needle)
	if len(needle) <= 64 {
		require.NoError(tb, err, "NewBitap(len %d)", len(needle))
		s = append(s, single{"bitap", b.Index, b.Matcher})
	} else {
		require.ErrorIs(tb, err, ErrTooLong, "NewBitap(len %d)", len(needle))
	}
	return s
}

// feedAll feeds h to m in chunks whose sizes come from next (0 feeds an
// empty chunk first) and returns every match reported.
func feedAll(m Matcher, h []byte, next func() int) []Match {
	var got []Match
	drain := func() {
		for match, ok := m.Next(); ok; match, ok = m.Next() {
			got = append(got, match)
		}
	}
	for len(h) > 0 {
		sz := next()
		if sz <= 0 {
			m.Feed(nil)
			drain()
			sz = 1
		}
		sz = min(sz, len(h))
		m.Feed(h[:sz])
		drain()
		h = h[sz:]
	}
	return got
}

// check compares every searcher for needle against the references.
func check(t *testing.T, h, needle []byte, rng *rand.Rand) {
	t.Helper()
	want := indexSlow(h, needle)
	b := bytes.Index(h, needle)
	require.Equal(t, want, b, "indexSlow = %d, bytes.Index = %d", want, b)
	wantAll := allSlow(h, needle)
	for _, s := range singles(t, needle) {
		got := s.index(h)
		assert.Equal(t, want, got, "%s.Index(len %d, needle %.40q…)", s.name, len(h), needle)
		m := s.matcher()
		for _, maxChunk := range []int{1, 3, 64, len(h) + 1} {
			m.Reset()
			got := feedAll(m, h, func() int { return rng.IntN(maxChunk + 1) })
			if !assert.Equal(t, len(wantAll), len(got), "%s matcher (chunks ≤ %d, needle %.40q…): matches", s.name, maxChunk, needle) {
				continue
			}
			assert.Equal(t, wantAll, got, "%s matcher (chunks ≤ %d, needle %.40q…)", s.name, maxChunk, needle)
		}
	}
}

// Haystacks and needles after Netty's SearchBenchmark inputs.
func nettyInputs(rng *rand.Rand) map[string][]byte {
	random := func(n int, alpha string) []byte {
		b := make([]byte, n)
		for i := range b {
			if alpha == "" {
				b[i] = byte(rng.UintN(256))
			} else {
				b[i] = alpha[rng.IntN(len(alpha))]
			}
		}
		return b
	}
	const text = "the quick brown fox jumps over the lazy dog; GET /index.html HTTP/1.1\r\nHost: example.com\r\n"
	return map[string][]byte{
		"RANDOM_256B":   random(256, "abcdefghijklmnopqrstuvwxyz"),
		"RANDOM_2KB":    random(2048, "abcdefghijklmnopqrstuvwxyz"),
		"PREDICTABLE":   []byte(strings.Repeat(text, 40)[:2048]),
		"UNPREDICTABLE": random(2048, ""),
		"BINARY_AB":     random(2048, "ab"),
	}
}

func TestIndexNetty(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for name, h := range nettyInputs(rng) {
		t.Run("haystack="+name, func(t *testing.T) {
			for range 60 {
				// A substring of the haystack (found), and a random needle
				// of the haystack's bytes (usually absent).
				l := rng.IntN(min(len(h), 300) + 1)
				at := rng.IntN(len(h) - l + 1)
				check(t, h, h[at:at+l], rng)
				r := make([]byte, rng.IntN(20))
				for i := range r {
					r[i] = h[rng.IntN(len(h))]
				}
				check(t, h, r, rng)
				// A substring of the haystack with its last byte changed.
				if l > 0 {
					n := bytes.Clone(h[at : at+l])
					n[l-1]++
					check(t, h, n, rng)
				}
			}
		})
	}
}

func worstCase() (needle, haystack, found []byte) {
	needle = append(bytes.Repeat([]byte{'a'}, 1023), 'b')
	haystack = bytes.Repeat([]byte{'a'}, 2048)
	found = append(bytes.Clone(haystack), needle...)
	return needle, haystack, found
}

func TestIndexWorstCase(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	needle, h, found := worstCase()
	check(t, h, needle, rng)
	check(t, found, needle, rng)
	// Needles whose rarest byte is frequent in the haystack, so Pattern's
	// prefilter fails and hands over to Two-Way.
	for _, n := range []string{"ab" + strings.Repeat("a", 500), strings.Repeat("ab", 100) + "b", "aab", "ba"} {
		h := bytes.Repeat([]byte("ab"), 2000)
		check(t, h, []byte(n), rng)
		check(t, append(h, n...), []byte(n), rng)
	}
}

func TestIndexTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct{ h, n string }{
		{"", ""},
		{"abc", ""},
		{"", "a"},
		{"a", "a"},
		{"a", "ab"},
		{"ab", "b"},
		{"aaaa", "aa"},
		{"abababab", "abab"},
		{"abacabadabacaba", "abacaba"},
		{"xxxxzxxzx", "zx"},
		{"qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq!", "q!"},
		{"GET /a HTTP/1.1\r\nHost: x\r\n\r\n", "\r\n\r\n"},
		{"\x00\xff\x00\xff\x00", "\xff\x00"},
		{strings.Repeat("a", 100), strings.Repeat("a", 64)},
		{strings.Repeat("a", 100), strings.Repeat("a", 65)},
		{strings.Repeat("abc", 50) + "abd", "abcabd"},
		{"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzza", "zzzza"},
	} {
		check(t, []byte(tc.h), []byte(tc.n), rng)
	}
}

// TestIndexExhaustive checks every needle up to length 5 over {a,b} against
// every haystack up to length 10.
func TestIndexExhaustive(t *testing.T) {
	words := func(n int) [][]byte {
		var w [][]byte
		for l := 0; l <= n; l++ {
			for bits := 0; bits < 1<<l; bits++ {
				b := make([]byte, l)
				for i := range b {
					b[i] = 'a' + byte(bits>>i&1)
				}
				w = append(w, b)
			}
		}
		return w
	}
	hays := words(10)
	for _, n := range words(5) {
		s := singles(t, n)
		for _, h := range hays {
			want := indexSlow(h, n)
			for _, x := range s {
				// Compared with == first: this runs for every pair of
				// words, and testify boxes its message arguments.
				if got := x.index(h); got != want {
					require.Equal(t, want, got, "%s.Index(%q, %q)", x.name, h, n)
				}
			}
		}
	}
}

func TestBitapTooLong(t *testing.T) {
	_, err := NewBitap(make([]byte, 65))
	require.ErrorIs(t, err, ErrTooLong, "NewBitap(65 bytes)")
	_, err = NewBitap(make([]byte, 64))
	require.NoError(t, err, "NewBitap(64 bytes)")
}

// TestMatcherReset checks that a drained matcher reports nothing more and
// that Reset starts again at offset 0.
func TestMatcherReset(t *testing.T) {
	for _, s := range singles(t, []byte("abab")) {
		m := s.matcher()
		m.Feed([]byte("xxab"))
		_, ok := m.Next()
		require.False(t, ok, "%s: match in xxab", s.name)
		m.Reset()
		m.Feed([]byte("ab"))
		_, ok = m.Next()
		require.False(t, ok, "%s: Reset kept state", s.name)
		m.Feed([]byte("abab"))
		var got []Match
		for match, ok := m.Next(); ok; match, ok = m.Next() {
			got = append(got, match)
		}
		want := []Match{{Start: 0, End: 4}, {Start: 2, End: 6}}
		require.Equal(t, want, got, "%s", s.name)
		_, ok = m.Next()
		require.False(t, ok, "%s: Next after false reported a match", s.name)
	}
}

func TestIndexNoAllocs(t *testing.T) {
	testenv.SkipRace(t, "the detector allocates, so allocation counts mean nothing")
	rng := rand.New(rand.NewPCG(7, 8))
	h := nettyInputs(rng)["RANDOM_2KB"]
	needle := bytes.Clone(h[1000:1020])
	for _, s := range singles(t, needle) {
		a := testing.AllocsPerRun(100, func() { sinkInt = s.index(h) })
		assert.Zero(t, a, "%s.Index: allocs", s.name)
		m := s.matcher()
		a = testing.AllocsPerRun(100, func() {
			for i := 0; i < len(h); i += 100 {
				m.Feed(h[i:min(i+100, len(h))])
				for match, ok := m.Next(); ok; match, ok = m.Next() {
					sinkInt = int(match.End)
				}
			}
		})
		assert.Zero(t, a, "%s Feed+Next: allocs", s.name)
	}
	wn, wh, _ := worstCase()
	p := NewPattern(wn)
	a := testing.AllocsPerRun(100, func() { sinkInt = p.Index(wh) })
	assert.Zero(t, a, "Pattern.Index worst case: allocs")
	// The one-shot Index prepares its Two-Way fallback on the stack: dense
	// candidates for a 16-byte needle over "ab" force that fallback.
	ab, abNeedle := make([]byte, 4096), make([]byte, 16)
	for i := range ab {
		ab[i] = "ab"[rng.IntN(2)]
	}
	for i := range abNeedle {
		abNeedle[i] = "ab"[rng.IntN(2)]
	}
	a = testing.AllocsPerRun(100, func() { sinkInt = Index(ab, abNeedle) })
	assert.Zero(t, a, "Index on dense candidates: allocs")
}

var sinkInt int

// shape turns fuzz input into a haystack and needle: mode picks the
// alphabet (2, 3 or 4 letters, or all bytes) and whether the needle is cut
// from the haystack at off.
func shape(mode byte, off uint16, h, n []byte) ([]byte, []byte) {
	h = h[:min(len(h), 8192)]
	n = n[:min(len(n), 300)]
	if k := int(mode % 5); k < 3 {
		h = bytes.Clone(h)
		n = bytes.Clone(n)
		for i := range h {
			h[i] = 'a' + h[i]%byte(k+2)
		}
		for i := range n {
			n[i] = 'a' + n[i]%byte(k+2)
		}
	}
	if mode&0x80 != 0 && len(h) > 0 {
		at := int(off) % len(h)
		l := min(len(n), len(h)-at)
		n = append(bytes.Clone(h[at:at+l]), n[l:]...)
		if mode&0x40 != 0 && len(n) > 0 {
			n = n[:len(n)-1]
		}
	}
	return h, n
}

func FuzzIndex(f *testing.F) {
	wn, wh, wf := worstCase()
	f.Add(byte(0), uint16(0), wh, wn)
	f.Add(byte(4), uint16(0), wf, wn)
	f.Add(byte(0x80), uint16(3), []byte("abababababbababaabab"), []byte("babaa"))
	f.Add(byte(0x81), uint16(7), []byte("abcabcabcabdabcabcab"), []byte("abcabd"))
	f.Add(byte(3), uint16(0), []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), []byte("\r\n\r\n"))
	f.Fuzz(func(t *testing.T, mode byte, off uint16, h, n []byte) {
		h, n = shape(mode, off, h, n)
		want := indexSlow(h, n)
		for _, s := range singles(t, n) {
			got := s.index(h)
			require.Equal(t, want, got, "%s.Index(%q, %q)", s.name, h, n)
		}
	})
}

func FuzzMatcher(f *testing.F) {
	wn, _, wf := worstCase()
	f.Add(byte(4), uint16(0), wf, wn, []byte{7, 100, 0, 1})
	f.Add(byte(0x80), uint16(3), []byte("abababababbababaabab"), []byte("abab"), []byte{1, 2, 3})
	f.Add(byte(0x81), uint16(7), []byte("abcabcabcabdabcabcab"), []byte("abcabd"), []byte{5})
	f.Fuzz(func(t *testing.T, mode byte, off uint16, h, n, cuts []byte) {
		h, n = shape(mode, off, h, n)
		want := allSlow(h, n)
		for _, s := range singles(t, n) {
			if s.name == "twoway" {
				continue // twoway's matcher is KMP's
			}
			i := 0
			next := func() int {
				if len(cuts) == 0 {
					return len(h)
				}
				i++
				return int(cuts[(i-1)%len(cuts)]) % 40
			}
			got := feedAll(s.matcher(), h, next)
			require.Equal(t, want, got, "%s matcher(%q, %q, cuts %v)", s.name, h, n, cuts)
		}
	})
}

func TestLen(t *testing.T) {
	n := []byte("hello")
	b, _ := NewBitap(n)
	for name, got := range map[string]int{
		"kmp": NewKMP(n).Len(), "bitap": b.Len(), "twoway": NewTwoWay(n).Len(), "pattern": NewPattern(n).Len(),
	} {
		assert.Equal(t, len(n), got, "%s.Len()", name)
	}
}
