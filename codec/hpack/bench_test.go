package hpack

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// requestFields is the 10-field request of the benchmarks: a browser's
// GET, with a 97-character user-agent and a 60-character cookie.
var requestFields = []Field{
	{Name: ":method", Value: "GET"},
	{Name: ":scheme", Value: "https"},
	{Name: ":path", Value: "/static/app/main.js?v=3"},
	{Name: ":authority", Value: "www.example.com"},
	{Name: "user-agent", Value: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"},
	{Name: "accept", Value: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"},
	{Name: "accept-encoding", Value: "gzip, deflate, br"},
	{Name: "accept-language", Value: "en-US,en;q=0.9"},
	{Name: "cookie", Value: "session=8f2a9c1e7b3d4f60a5e9c2b7d1f3a8e4; theme=dark; lang=en-U"},
	{Name: "cache-control", Value: "no-cache"},
}

// requestBlocks returns the request encoded the first time (literals,
// Huffman-coded) and the second time (indexed fields) by one encoder.
func requestBlocks() (cold, warm []byte) {
	e := new(Encoder)
	cold = e.AppendFields(nil, requestFields)
	warm = e.AppendFields(nil, requestFields)
	return cold, warm
}

var sinkLen int

func countEmit(name, value []byte, _ bool) error {
	sinkLen += len(name) + len(value)
	return nil
}

// BenchmarkDecode decodes the 10-field request: cold is a new Decoder per
// block (the first block, all literals); warm is one Decoder and the block
// the second request encodes to (all indexed). The reference, x/net's
// hpack, runs beside it in internal/peers/hpackpeers.
func BenchmarkDecode(b *testing.B) {
	cold, warm := requestBlocks()
	b.Run("state=cold/mode=none", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(cold)))
		for b.Loop() {
			// A plain check in the timed loop: require calls b.Helper,
			// which costs as much as a warm decode.
			if err := new(Decoder).DecodeBlock(cold, countEmit); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, m := range []struct {
		name string
		mode Mode
	}{{"none", NoValidation}, {"request", Request}} {
		b.Run("state=warm/mode="+m.name, func(b *testing.B) {
			d := &Decoder{Validate: m.mode}
			require.NoError(b, d.DecodeBlock(cold, countEmit))
			b.ReportAllocs()
			b.SetBytes(int64(len(warm)))
			for b.Loop() {
				if err := d.DecodeBlock(warm, countEmit); err != nil {
					b.Fatal(err) // not require: see state=cold
				}
			}
		})
	}
}

// BenchmarkEncode encodes the 10-field request: cold with a new Encoder,
// warm with one Encoder whose table holds every field.
func BenchmarkEncode(b *testing.B) {
	buf := make([]byte, 0, 1024)
	b.Run("state=cold", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf = new(Encoder).AppendFields(buf[:0], requestFields)
		}
		b.SetBytes(int64(len(buf)))
	})
	b.Run("state=warm", func(b *testing.B) {
		e := new(Encoder)
		e.AppendFields(buf[:0], requestFields)
		b.ReportAllocs()
		for b.Loop() {
			buf = e.AppendFields(buf[:0], requestFields)
		}
		b.SetBytes(int64(len(buf)))
	})
}

// BenchmarkBomb decodes the HPACK bomb (one 4,000-byte entry referenced
// 16,000 times, 64 MB of headers from a 20 KB block) with the default
// limits, which refuse it.
func BenchmarkBomb(b *testing.B) {
	block := bombBlock()
	d := new(Decoder)
	b.ReportAllocs()
	b.SetBytes(int64(len(block)))
	for b.Loop() {
		d.Reset()
		if err := d.DecodeBlock(block, countEmit); err == nil {
			b.Fatal("bomb accepted") // not require: see BenchmarkDecode
		}
	}
}
