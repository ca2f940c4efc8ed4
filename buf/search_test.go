package buf_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/buf/buftest"
)

func TestBufferIndex(t *testing.T) {
	buftest.CheckLeaks(t)
	a := buf.NewAllocator()
	for _, tc := range []struct {
		content, needle string
		want            int
	}{
		{"", "", 0}, {"", "a", -1}, {"abc", "", 0}, {"abc", "c", 2}, {"abcabc", "ca", 2},
		{"abc", "abcd", -1}, {"hello\r\n\r\nbody", "\r\n\r\n", 5},
	} {
		b := prepared(a, 4, tc.content)
		got := b.Index([]byte(tc.needle))
		assert.Equal(t, tc.want, got, "Index(%q) in %q", tc.needle, tc.content)
		b.Release()
	}
}

// TestBufferIndexDifferential checks Index against bytes.Index on the
// readable bytes, over small
// alphabets (dense candidates, so search's fallbacks run), with part of the
// buffer consumed and on views made by Slice. Needles are cut from the
// readable bytes, random, empty, or longer than Len.
func TestBufferIndexDifferential(t *testing.T) {
	buftest.CheckLeaks(t)
	rng := rand.New(rand.NewPCG(13, 14))
	a := buf.NewAllocator()
	random := func(n int, alphabet string) []byte {
		p := make([]byte, n)
		for i := range p {
			p[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return p
	}
	for trial := range 3000 {
		alphabet := []string{"ab", "abc", "abcdefgh\r\n"}[trial%3]
		content := random(rng.IntN(600), alphabet)
		b := a.Get(len(content))
		b.Write(content)
		b.Skip(rng.IntN(len(content) + 1)) // a reader index past zero
		target := b
		if rng.IntN(2) == 0 && b.Len() > 0 {
			off := rng.IntN(b.Len())
			target = b.Slice(off, rng.IntN(b.Len()-off+1))
		}
		h := target.Bytes()
		var needle []byte
		switch rng.IntN(4) {
		case 0:
			if len(h) > 0 {
				i := rng.IntN(len(h))
				needle = bytes.Clone(h[i:min(len(h), i+1+rng.IntN(20))])
			}
		case 1:
			needle = random(1+rng.IntN(20), alphabet)
		case 2:
			needle = random(len(h)+1+rng.IntN(3), alphabet) // longer than Len
		case 3: // empty
		}
		want := bytes.Index(h, needle)
		got := target.Index(needle)
		require.Equal(t, want, got, "trial %d: Index(%q) = %d, want %d (Len %d)", trial, needle, got, want, len(h))
		b.Release()
	}
}

func TestBufferIndexNoAllocs(t *testing.T) {
	skipIfNoPooling(t)
	a := buf.NewAllocator(buf.WithLeakLevel(buf.LeakOff))
	b := a.Get(4096)
	defer b.Release()
	for b.Len() < 4000 {
		b.WriteString("Host: example.com\r\nAccept: */*\r\n")
	}
	b.WriteString("X-Request-Id: 42\r\n\r\n")
	b.Skip(7)
	needle := []byte("X-Request-Id: 42")
	var sink int
	allocs := testing.AllocsPerRun(100, func() { sink += b.Index(needle) })
	require.Zero(t, allocs, "Index")
	require.Positive(t, sink)
}
