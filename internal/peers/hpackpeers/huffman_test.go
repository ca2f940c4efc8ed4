package hpackpeers

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	xhpack "golang.org/x/net/http2/hpack"

	"github.com/netkit/netkit/codec/hpack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// huffmanUserAgent is the 97-byte user-agent of BenchRequest, the
// benchmarks' request.
const huffmanUserAgent = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"

// checkHuffmanEncode checks that netkit encodes s as x/net does, byte for
// byte, with the same length, and decodes x/net's encoding back to s.
func checkHuffmanEncode(t *testing.T, s string) {
	t.Helper()
	want := xhpack.AppendHuffmanString(nil, s)
	got := hpack.AppendHuffman(nil, s)
	require.Equal(t, want, got, "AppendHuffman(%q) = %x, x/net: %x", s, got, want)
	n := hpack.HuffmanLen(s)
	require.Equal(t, xhpack.HuffmanEncodeLength(s), uint64(n), "HuffmanLen(%q) = %d, x/net: %d", s, n, xhpack.HuffmanEncodeLength(s))
	dec, err := hpack.AppendHuffmanDecode(nil, want)
	require.NoError(t, err, "AppendHuffmanDecode(%x)", want)
	require.Equal(t, s, string(dec), "AppendHuffmanDecode(%x)", want)
}

// TestHuffmanAgainstXNet compares netkit's Huffman code with x/net's: the
// encoding of every byte (repeated 1 to 9 times) and of random strings, and
// the decoders' accept/reject and output on random inputs.
func TestHuffmanAgainstXNet(t *testing.T) {
	for b := 0; b < 256; b++ {
		for k := 1; k < 10; k++ {
			checkHuffmanEncode(t, strings.Repeat(string([]byte{byte(b)}), k))
		}
	}
	checkHuffmanEncode(t, huffmanUserAgent)

	r := rand.New(rand.NewPCG(3, 4))
	text := "abcdefghijklmnopqrstuvwxyzABCXYZ0123456789-_./:;=, ()\"'"
	var xbuf bytes.Buffer
	accepted, rejected := 0, 0
	for range 20000 {
		s := make([]byte, r.IntN(100))
		for i := range s {
			if r.IntN(2) == 0 {
				s[i] = text[r.IntN(len(text))]
			} else {
				s[i] = byte(r.Uint32())
			}
		}
		checkHuffmanEncode(t, string(s))

		// Random inputs: one in four with a flipped bit in a valid
		// encoding, the others random bytes, half of them with high nibbles
		// of ones (long codes, EOS, padding).
		var in []byte
		if r.IntN(4) == 0 {
			in = xhpack.AppendHuffmanString(nil, string(s))
			if len(in) > 0 {
				in[r.IntN(len(in))] ^= byte(1 << r.IntN(8))
			}
		} else {
			in = make([]byte, r.IntN(40))
			for i := range in {
				in[i] = byte(r.Uint32())
				if r.IntN(2) == 0 {
					in[i] |= 0xf0
				}
			}
		}
		xbuf.Reset()
		_, xerr := xhpack.HuffmanDecode(&xbuf, in)
		got, err := hpack.AppendHuffmanDecode(nil, in)
		require.Equal(t, xerr == nil, err == nil, "AppendHuffmanDecode(%x): error %v, x/net: %v", in, err, xerr)
		if err == nil {
			accepted++
			require.Equal(t, xbuf.String(), string(got), "AppendHuffmanDecode(%x), against x/net", in)
		} else {
			rejected++
		}
	}
	t.Logf("random inputs: %d accepted, %d rejected by both", accepted, rejected)
	assert.GreaterOrEqual(t, accepted, 1000, "random inputs: %d accepted, %d rejected: too few of one kind to compare", accepted, rejected)
	assert.GreaterOrEqual(t, rejected, 1000, "random inputs: %d accepted, %d rejected: too few of one kind to compare", accepted, rejected)
}

var (
	sinkHuffman []byte
	sinkN       int
)

// BenchmarkHuffman decodes and encodes the 97-byte user-agent, netkit
// (AppendHuffmanDecode and AppendHuffman into a slice with room) against
// x/net (HuffmanDecode into a reused bytes.Buffer, reset each iteration, and
// AppendHuffmanString into a slice with room). SetBytes counts the decoded
// bytes in both directions.
func BenchmarkHuffman(b *testing.B) {
	enc := xhpack.AppendHuffmanString(nil, huffmanUserAgent)
	b.Run("op=decode/impl=netkit", func(b *testing.B) {
		dst := make([]byte, 0, 256)
		b.SetBytes(int64(len(huffmanUserAgent)))
		b.ReportAllocs()
		for b.Loop() {
			dst, _ = hpack.AppendHuffmanDecode(dst[:0], enc)
		}
		sinkHuffman = dst
	})
	b.Run("op=decode/impl=xnet", func(b *testing.B) {
		var buf bytes.Buffer
		buf.Grow(256)
		b.SetBytes(int64(len(huffmanUserAgent)))
		b.ReportAllocs()
		for b.Loop() {
			buf.Reset()
			sinkN, _ = xhpack.HuffmanDecode(&buf, enc)
		}
	})
	b.Run("op=encode/impl=netkit", func(b *testing.B) {
		dst := make([]byte, 0, 256)
		b.SetBytes(int64(len(huffmanUserAgent)))
		b.ReportAllocs()
		for b.Loop() {
			dst = hpack.AppendHuffman(dst[:0], huffmanUserAgent)
		}
		sinkHuffman = dst
	})
	b.Run("op=encode/impl=xnet", func(b *testing.B) {
		dst := make([]byte, 0, 256)
		b.SetBytes(int64(len(huffmanUserAgent)))
		b.ReportAllocs()
		for b.Loop() {
			dst = xhpack.AppendHuffmanString(dst[:0], huffmanUserAgent)
		}
		sinkHuffman = dst
	})
}
