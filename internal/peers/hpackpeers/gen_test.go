package hpackpeers

import (
	"math/rand/v2"
	"strings"
)

// namePool holds realistic field names: pseudo-headers, the static
// table's names and common ones outside it.
var namePool = []string{
	":authority", ":method", ":path", ":scheme", ":status", ":protocol",
	"accept", "accept-charset", "accept-encoding", "accept-language", "accept-ranges",
	"access-control-allow-origin", "age", "allow", "authorization", "cache-control",
	"content-disposition", "content-encoding", "content-language", "content-length",
	"content-location", "content-range", "content-type", "cookie", "date", "etag",
	"expect", "expires", "from", "host", "if-match", "if-modified-since",
	"if-none-match", "if-range", "if-unmodified-since", "last-modified", "link",
	"location", "max-forwards", "proxy-authenticate", "proxy-authorization", "range",
	"referer", "refresh", "retry-after", "server", "set-cookie",
	"strict-transport-security", "transfer-encoding", "user-agent", "vary", "via",
	"www-authenticate", "x-request-id", "x-forwarded-for", "traceparent",
	"sec-fetch-mode", "sec-ch-ua", "grpc-status", "grpc-timeout", "te",
}

// valuePool holds values that meet the static table's and the names'
// usual ones, so that exact matches happen.
var valuePool = []string{
	"GET", "POST", "/", "/index.html", "http", "https", "200", "204", "206", "304",
	"400", "404", "500", "gzip, deflate", "gzip, deflate, br", "*/*", "text/html",
	"application/json", "en-US,en;q=0.9", "no-cache", "max-age=0", "www.example.com",
	"trailers", "bytes", "close", "0", "1",
}

// A gen makes random header lists for one connection: it remembers the
// fields it made so that later lists repeat some, as a real connection's
// do, and the dynamic tables hit.
type gen struct {
	r    *rand.Rand
	seen []Field
}

func newGen(seed uint64) *gen { return &gen{r: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))} }

// list returns a random header list of 0 to 24 fields (rarely empty).
func (g *gen) list() []Field {
	n := 1 + g.r.IntN(24)
	if g.r.IntN(40) == 0 {
		n = 0
	}
	l := make([]Field, n)
	for i := range l {
		l[i] = g.field()
	}
	return l
}

func (g *gen) field() Field {
	if len(g.seen) > 0 && g.r.IntN(3) == 0 {
		f := g.seen[g.r.IntN(len(g.seen))]
		switch g.r.IntN(8) {
		case 0:
			f.Sensitive = !f.Sensitive
		case 1:
			f.Value = g.value() // a known name with a new value
		}
		return f
	}
	f := Field{Name: g.name(), Value: g.value(), Sensitive: g.r.IntN(10) == 0}
	if len(g.seen) < 512 {
		g.seen = append(g.seen, f)
	} else {
		g.seen[g.r.IntN(len(g.seen))] = f
	}
	return f
}

func (g *gen) name() string {
	switch g.r.IntN(10) {
	case 0, 1, 2:
		return g.token(1 + g.r.IntN(24))
	case 3:
		return "" // empty names are not HTTP, but HPACK carries them
	default:
		return namePool[g.r.IntN(len(namePool))]
	}
}

func (g *gen) value() string {
	switch g.r.IntN(12) {
	case 0:
		return ""
	case 1: // long: sometimes larger than a small table, or any table
		return g.printable(100 + g.r.IntN(5000))
	case 2: // any bytes, including non-ASCII, NUL, CR, LF
		b := make([]byte, g.r.IntN(64))
		for i := range b {
			b[i] = byte(g.r.UintN(256))
		}
		return string(b)
	case 3: // UTF-8 text
		return strings.Repeat("héllo wörld ☃ ", 1+g.r.IntN(4))
	case 4, 5, 6:
		return valuePool[g.r.IntN(len(valuePool))]
	default:
		return g.printable(g.r.IntN(80))
	}
}

func (g *gen) token(n int) string {
	const alpha = "abcdefghijklmnopqrstuvwxyz0123456789-_"
	b := make([]byte, n)
	for i := range b {
		b[i] = alpha[g.r.IntN(len(alpha))]
	}
	return string(b)
}

func (g *gen) printable(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(0x20 + g.r.IntN(0x7f-0x20))
	}
	return string(b)
}

// tableSizes are the SETTINGS_HEADER_TABLE_SIZE values a connection
// switches between: none, too small for any entry, small, the default
// and larger.
var tableSizes = []int{0, 1, 31, 32, 33, 64, 100, 256, 1000, 4096, 4096, 4096, 8192, 16384, 65536}

func (g *gen) tableSize() int { return tableSizes[g.r.IntN(len(tableSizes))] }
