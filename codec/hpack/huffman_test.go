package hpack

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// huffmanUserAgent is the 97-byte user-agent of the browser request the
// benchmarks against x/net's hpack encode (internal/peers/hpackpeers).
const huffmanUserAgent = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"

// TestHuffmanCodes checks codes of RFC 7541 Appendix B, and that the code is
// complete (the Kraft sum of the lengths is 1), so every bit string decodes.
func TestHuffmanCodes(t *testing.T) {
	for _, c := range []struct {
		sym  int
		code uint32
		len  uint8
	}{
		{0, 0x1ff8, 13},
		{1, 0x7fffd8, 23},
		{'0', 0x0, 5},
		{'a', 0x3, 5},
		{' ', 0x14, 6},
		{'%', 0x15, 6},
		{'A', 0x21, 6},
		{'z', 0x7b, 7},
		{0xff, 0x3ffffee, 26},
		{huffmanEOS, 0x3fffffff, 30},
	} {
		assert.Equal(t, c.code, huffmanCodes[c.sym], "symbol %d: code", c.sym)
		assert.Equal(t, c.len, huffmanLens[c.sym], "symbol %d: length", c.sym)
	}
	// Kraft sum in units of 2^-30.
	var sum uint64
	for _, l := range huffmanLens {
		sum += 1 << (huffmanMaxLen - l)
	}
	assert.Equal(t, uint64(1<<huffmanMaxLen), sum, "Kraft sum %d/2^30, want 1", sum)
	for s := range huffmanCodes {
		c := slowCodes[s]
		assert.Equal(t, c.code, huffmanCodes[s], "symbol %d: code, the slow reference's", s)
		assert.Equal(t, c.len, huffmanLens[s], "symbol %d: length, the slow reference's", s)
	}
}

// TestHuffmanAppendixC encodes and decodes the Huffman-encoded strings of
// RFC 7541 Appendix C.4 and C.6.
func TestHuffmanAppendixC(t *testing.T) {
	for _, c := range []struct{ s, hex string }{
		{"www.example.com", "f1e3c2e5f23a6ba0ab90f4ff"},
		{"no-cache", "a8eb10649cbf"},
		{"custom-key", "25a849e95ba97d7f"},
		{"custom-value", "25a849e95bb8e8b4bf"},
		{"302", "6402"},
		{"307", "640eff"},
		{"private", "aec3771a4b"},
		{"Mon, 21 Oct 2013 20:13:21 GMT", "d07abe941054d444a8200595040b8166e082a62d1bff"},
		{"Mon, 21 Oct 2013 20:13:22 GMT", "d07abe941054d444a8200595040b8166e084a62d1bff"},
		{"https://www.example.com", "9d29ad171863c78f0b97c8e9ae82ae43d3"},
		{"gzip", "9bd9ab"},
		{"foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1",
			"94e7821dd7f2e6c7b335dfdfcd5b3960d5af27087f3672c1ab270fb5291f9587316065c003ed4ee5b1063d5007"},
	} {
		want, _ := hex.DecodeString(c.hex)
		assert.Equal(t, want, AppendHuffman(nil, c.s), "AppendHuffman(%q)", c.s)
		n := HuffmanLen(c.s)
		assert.Equal(t, len(want), n, "HuffmanLen(%q) = %d, want %d", c.s, n, len(want))
		got, err := AppendHuffmanDecode(nil, want)
		assert.False(t, err != nil || string(got) != c.s, "AppendHuffmanDecode(%x) = %q, %v, want %q", want, got, err, c.s)
	}
}

// TestHuffmanEveryByte encodes each byte alone and repeated 1 to 20 times,
// compares with the slow reference and decodes back.
func TestHuffmanEveryByte(t *testing.T) {
	for b := 0; b < 256; b++ {
		for k := 1; k <= 20; k++ {
			s := strings.Repeat(string([]byte{byte(b)}), k)
			enc := AppendHuffman(nil, s)
			want := slowHuffmanEncode(s)
			require.Equal(t, want, enc, "AppendHuffman(%q) = %x, want %x", s, enc, want)
			require.Equal(t, len(enc), HuffmanLen(s), "HuffmanLen(%q) = %d, want %d", s, HuffmanLen(s), len(enc))
			dec, err := AppendHuffmanDecode(nil, enc)
			require.NoError(t, err, "AppendHuffmanDecode(%x) = %q, %v, want %q", enc, dec, err, s)
			require.Equal(t, s, string(dec), "AppendHuffmanDecode(%x) = %q, %v, want %q", enc, dec, err, s)
		}
	}
}

// huffmanBits builds an input bit by bit: codes of symbols (EOS included)
// and raw bits.
type huffmanBits struct{ slowBits }

func (w *huffmanBits) sym(s ...int) *huffmanBits {
	for _, s := range s {
		w.write(slowCodes[s].code, slowCodes[s].len)
	}
	return w
}

func (w *huffmanBits) bits(s string) *huffmanBits {
	for _, c := range s {
		w.write(uint32(c-'0'), 1)
	}
	if len(s) > 0 && w.n%8 != 0 {
		panic("huffmanBits: input not a whole number of bytes")
	}
	return w
}

// pad ends the input with one bits.
func (w *huffmanBits) pad() *huffmanBits {
	w.slowBits.pad()
	return w
}

func bitsOf() *huffmanBits { return &huffmanBits{} }

// TestHuffmanDecodeErrors checks the rules of RFC 7541 §5.2: padding of at
// most 7 bits, all ones, and no EOS; near the end of the input (the careful
// loop) and far from it (the fast loop).
func TestHuffmanDecodeErrors(t *testing.T) {
	long := strings.Repeat("abc", 10) // 160 bits: the fast loop's ground
	syms := func(s string) []int {
		r := make([]int, len(s))
		for i := range len(s) {
			r[i] = int(s[i])
		}
		return r
	}
	for _, c := range []struct {
		name string
		in   []byte
		out  string
		err  error
	}{
		{"empty", nil, "", nil},
		{"pad-7-ones", bitsOf().sym('0', ' ', ' ').bits("1111111").b, "0  ", nil}, // 5+6+6 bits
		{"pad-1-one", bitsOf().sym('z').bits("1").b, "z", nil},                    // 7 bits
		{"pad-none", bitsOf().sym('0', 'a', 'A').b, "0aA", nil},                   // 5+5+6 bits
		{"pad-8-ones", []byte{0xff}, "", ErrHuffmanPadding},
		{"pad-8-ones-after-symbol", bitsOf().sym('0').bits("11111111111").b, "0", ErrHuffmanPadding},
		{"pad-with-0", bitsOf().sym('a').bits("011").b, "a", ErrHuffmanPadding},
		{"pad-0-last", bitsOf().sym('a').bits("110").b, "a", ErrHuffmanPadding},
		{"pad-single-0", bitsOf().sym('a', 'a', 'a').bits("0").b, "aaa", ErrHuffmanPadding},
		{"pad-cut-long-code", bitsOf().sym('a').bits("11111111110").b, "a", ErrHuffmanPadding},
		{"eos", bitsOf().sym(huffmanEOS).bits("11").b, "", ErrHuffmanEOS},
		{"eos-after-symbol", bitsOf().sym('a', huffmanEOS).bits("11111").b, "a", ErrHuffmanEOS},
		{"eos-inside", bitsOf().sym('a', huffmanEOS, 'a').b, "a", ErrHuffmanEOS},
		{"all-ones-32", []byte{0xff, 0xff, 0xff, 0xff}, "", ErrHuffmanEOS},
		{"long-eos-inside", bitsOf().sym(syms(long)...).sym(huffmanEOS).sym(syms(long)...).bits("11").b, long, ErrHuffmanEOS},
		{"long-eos-first", bitsOf().sym(huffmanEOS).sym(syms(long)...).bits("11").b, "", ErrHuffmanEOS},
		{"long-pad-8-ones", bitsOf().sym(syms(long)...).bits("11111111").b, long, ErrHuffmanPadding},
		{"long-pad-with-0", bitsOf().sym(syms(long)...).sym('a').bits("101").b, long + "a", ErrHuffmanPadding},
		{"long-codes", bitsOf().sym(0, 1, 2, 0xff, 0x80, 'a', 0, 0xfe, 1, 2, 3, 4).pad().b, "\x00\x01\x02\xff\x80a\x00\xfe\x01\x02\x03\x04", nil},
		{"long-codes-then-text", bitsOf().sym(0xfe, 0xff, 0xfe).sym(syms(long)...).pad().b, "\xfe\xff\xfe" + long, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, room := range []int{0, 1000} {
				got, err := AppendHuffmanDecode(make([]byte, 1, 1+room), c.in)
				assert.False(t, !errors.Is(err, c.err) || err != nil && c.err == nil, "room %d: error %v, want %v", room, err, c.err)
				assert.False(t, len(got) == 0 || got[0] != 0 || string(got[1:]) != c.out, "room %d: decoded %q, want %q after the 0 of dst", room, got, c.out)
				wantOut, wantErr := slowHuffmanDecode(c.in)
				assert.False(t, string(wantOut) != c.out || wantErr != c.err, "the slow reference decodes %q, %v", wantOut, wantErr)
			}
		})
	}
}

// huffmanAlphabets are the bytes of the random strings: header text, bytes
// with long codes, every byte.
var huffmanAlphabets = []string{
	"abcdefghijklmnopqrstuvwxyz0123456789-_./:;=, ()",
	"\x00\x01\x02\x80\xfe\xff\x7f\x10\x0a\x0dabc",
	"",
}

func randomHuffmanString(r *rand.Rand, n int) string {
	b := make([]byte, n)
	alpha := huffmanAlphabets[r.IntN(len(huffmanAlphabets))]
	for i := range b {
		if alpha == "" {
			b[i] = byte(r.Uint32())
		} else {
			b[i] = alpha[r.IntN(len(alpha))]
		}
	}
	return string(b)
}

// TestHuffmanRandom compares the encoder with the slow reference on random
// strings and decodes them back; then it compares the decoder with the slow
// reference on random inputs (mostly invalid) and on valid inputs with their
// last bytes changed.
func TestHuffmanRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		s := randomHuffmanString(r, r.IntN(120))
		enc := AppendHuffman(nil, s)
		want := slowHuffmanEncode(s)
		require.Equal(t, want, enc, "AppendHuffman(%q) = %x, want %x", s, enc, want)
		require.Equal(t, len(enc), HuffmanLen(s), "HuffmanLen(%q) = %d, want %d", s, HuffmanLen(s), len(enc))
		dec, err := AppendHuffmanDecode(nil, enc)
		require.NoError(t, err, "AppendHuffmanDecode(%x) = %q, %v, want %q", enc, dec, err, s)
		require.Equal(t, s, string(dec), "AppendHuffmanDecode(%x) = %q, %v, want %q", enc, dec, err, s)
		if len(enc) > 0 {
			enc[len(enc)-1-r.IntN(min(len(enc), 4))] ^= byte(1 << r.IntN(8))
			checkHuffmanDecode(t, enc)
		}
		in := make([]byte, r.IntN(40))
		for i := range in {
			in[i] = byte(r.Uint32())
			if r.IntN(2) == 0 {
				in[i] |= 0xf0 // more long codes and EOS
			}
		}
		checkHuffmanDecode(t, in)
	}
}

// checkHuffmanDecode compares AppendHuffmanDecode with the slow reference on
// in, with dst of every capacity up to a little past the output.
func checkHuffmanDecode(t *testing.T, in []byte) {
	t.Helper()
	want, wantErr := slowHuffmanDecode(in)
	for room := 0; room <= len(want)+10; room += 1 + room/4 {
		got, err := AppendHuffmanDecode(make([]byte, 0, room), in)
		require.True(t, bytes.Equal(got, want), "AppendHuffmanDecode(%x) with room %d = %q; the slow reference: %q", in, room, got, want)
		require.ErrorIs(t, err, wantErr, "AppendHuffmanDecode(%x) with room %d; the slow reference's error", in, room)
	}
}

// TestHuffmanAppends checks that both directions append to dst and keep its
// bytes.
func TestHuffmanAppends(t *testing.T) {
	enc := AppendHuffman([]byte("xy"), huffmanUserAgent)
	require.Equal(t, "xy", string(enc[:2]), "AppendHuffman changed dst")
	require.Equal(t, slowHuffmanEncode(huffmanUserAgent), enc[2:], "AppendHuffman appended")
	dec, err := AppendHuffmanDecode([]byte("xy"), enc[2:])
	require.NoError(t, err, "AppendHuffmanDecode = %q,", dec)
	require.Equal(t, "xy"+huffmanUserAgent, string(dec), "AppendHuffmanDecode = %q, %v", dec, err)
}

// TestHuffmanNoAllocs checks that encoding and decoding allocate nothing
// when dst has room.
func TestHuffmanNoAllocs(t *testing.T) {
	enc := AppendHuffman(nil, huffmanUserAgent)
	dst := make([]byte, 0, len(huffmanUserAgent))
	n := testing.AllocsPerRun(100, func() {
		dst = AppendHuffman(dst[:0], huffmanUserAgent)
	})
	assert.Zero(t, n, "AppendHuffman allocations")
	n = testing.AllocsPerRun(100, func() {
		var err error
		dst, err = AppendHuffmanDecode(dst[:0], enc)
		require.NoError(t, err)
	})
	assert.Zero(t, n, "AppendHuffmanDecode allocations")
	assert.Equal(t, huffmanUserAgent, string(dst), "decoded %q", dst)
	// Exactly the room needed.
	dst = make([]byte, 0, len(huffmanUserAgent))
	n = testing.AllocsPerRun(100, func() {
		dst, _ = AppendHuffmanDecode(dst[:0], enc)
	})
	assert.Zero(t, n, "AppendHuffmanDecode allocations into exactly %d bytes", cap(dst))
}

// FuzzHuffmanDecode compares the decoder with the slow reference: the same
// output and the same error.
func FuzzHuffmanDecode(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0xff})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Add(AppendHuffman(nil, huffmanUserAgent))
	f.Add(AppendHuffman(nil, "\x00\xff\x80www.example.com"))
	f.Fuzz(func(t *testing.T, in []byte) {
		want, wantErr := slowHuffmanDecode(in)
		got, err := AppendHuffmanDecode(nil, in)
		require.True(t, bytes.Equal(got, want), "AppendHuffmanDecode(%x) = %q; the slow reference: %q", in, got, want)
		require.ErrorIs(t, err, wantErr, "AppendHuffmanDecode(%x); the slow reference's error", in)
		got, err = AppendHuffmanDecode(make([]byte, 0, len(in)*2), in)
		require.True(t, bytes.Equal(got, want), "AppendHuffmanDecode(%x) with room = %q; the slow reference: %q", in, got, want)
		require.ErrorIs(t, err, wantErr, "AppendHuffmanDecode(%x) with room; the slow reference's error", in)
	})
}

// FuzzHuffmanRoundTrip encodes any string, compares with the slow reference
// and decodes it back.
func FuzzHuffmanRoundTrip(f *testing.F) {
	f.Add("")
	f.Add(huffmanUserAgent)
	f.Add("\x00\x01\xff custom-key")
	f.Fuzz(func(t *testing.T, s string) {
		enc := AppendHuffman(nil, s)
		want := slowHuffmanEncode(s)
		require.Equal(t, want, enc, "AppendHuffman(%q) = %x, want %x", s, enc, want)
		require.Equal(t, len(enc), HuffmanLen(s), "HuffmanLen(%q) = %d, want %d", s, HuffmanLen(s), len(enc))
		dec, err := AppendHuffmanDecode(nil, enc)
		require.NoError(t, err, "AppendHuffmanDecode(%x) = %q, %v, want %q", enc, dec, err, s)
		require.Equal(t, s, string(dec), "AppendHuffmanDecode(%x) = %q, %v, want %q", enc, dec, err, s)
	})
}

var sinkHuffman []byte

// BenchmarkHuffman decodes and encodes the 97-byte user-agent
// (huffmanUserAgent) into a slice with room. SetBytes counts the decoded
// bytes in both directions.
func BenchmarkHuffman(b *testing.B) {
	enc := AppendHuffman(nil, huffmanUserAgent)
	b.Run("op=decode", func(b *testing.B) {
		dst := make([]byte, 0, 256)
		b.SetBytes(int64(len(huffmanUserAgent)))
		b.ReportAllocs()
		for b.Loop() {
			dst, _ = AppendHuffmanDecode(dst[:0], enc)
		}
		sinkHuffman = dst
	})
	b.Run("op=encode", func(b *testing.B) {
		dst := make([]byte, 0, 256)
		b.SetBytes(int64(len(huffmanUserAgent)))
		b.ReportAllocs()
		for b.Loop() {
			dst = AppendHuffman(dst[:0], huffmanUserAgent)
		}
		sinkHuffman = dst
	})
}
