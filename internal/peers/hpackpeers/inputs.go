package hpackpeers

import (
	"bytes"
	"strings"

	"golang.org/x/net/http2/hpack"
)

// BenchRequest is the 10-field request of the HPACK benchmarks: a
// browser's GET with a 97-byte user-agent and a 60-byte cookie.
var BenchRequest = []Field{
	{Name: ":method", Value: "GET"},
	{Name: ":scheme", Value: "https"},
	{Name: ":path", Value: "/static/app.js?v=4f2c"},
	{Name: ":authority", Value: "www.example.com"},
	{Name: "user-agent", Value: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36"},
	{Name: "accept", Value: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"},
	{Name: "accept-encoding", Value: "gzip, deflate, br"},
	{Name: "accept-language", Value: "en-US,en;q=0.9"},
	{Name: "cookie", Value: "sid=7f3a9c2e41b86d05; theme=dark; lang=en-US; _ga=GA1.2.1234"},
	{Name: "cache-control", Value: "max-age=0"},
}

// BenchBlocks returns the two blocks x/net's encoder writes for
// BenchRequest on a fresh connection, as a browser's encoder would (with
// Huffman where shorter): cold, the first, all literals with incremental
// indexing but for the static table's exact matches; warm, the second,
// the same list again, all indexed.
func BenchBlocks() (cold, warm []byte) {
	var buf bytes.Buffer
	e := hpack.NewEncoder(&buf)
	cold = bytes.Clone(XNetEncode(e, &buf, BenchRequest))
	warm = bytes.Clone(XNetEncode(e, &buf, BenchRequest))
	return cold, warm
}

// Bomb sizes: one entry that fills the default 4096-byte table, and 16 KiB
// of 1-byte references to it, which expand to a 64 MiB header list.
const (
	BombValueLen = 4096 - 32 - 1
	BombRefs     = 16 << 10
)

// BombBlock returns the HPACK bomb (CVE-2016-6581): a literal with
// incremental indexing of name "x" and a BombValueLen-byte value, then
// BombRefs indexed fields of dynamic index 62, the entry just added.
func BombBlock() []byte {
	b := []byte{0x40, 0x01, 'x'}
	b = appendInt(b, 7, 0, BombValueLen)
	b = append(b, strings.Repeat("A", BombValueLen)...)
	return append(b, bytes.Repeat([]byte{0x80 | 62}, BombRefs)...)
}

// appendInt appends i as an HPACK integer with an n-bit prefix (RFC 7541
// §5.1), the high bits of the first byte set to flags.
func appendInt(dst []byte, n uint, flags byte, i uint64) []byte {
	max := uint64(1)<<n - 1
	if i < max {
		return append(dst, flags|byte(i))
	}
	dst = append(dst, flags|byte(max))
	i -= max
	for ; i >= 128; i >>= 7 {
		dst = append(dst, byte(0x80|i&0x7f))
	}
	return append(dst, byte(i))
}
