package http1peers

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// A wire is a request as lines, so that mutations can work on its parts:
// the request line and the field lines without their line ends, and the
// body section (everything after the empty line) as sent.
type wire struct {
	line   string
	fields []string
	body   string
	raw    string // when set, the request's bytes, which a mutation made whole
}

func (w *wire) bytes() []byte {
	if w.raw != "" {
		return []byte(w.raw)
	}
	var b strings.Builder
	b.WriteString(w.line)
	b.WriteString("\r\n")
	for _, f := range w.fields {
		b.WriteString(f)
		b.WriteString("\r\n")
	}
	b.WriteString("\r\n")
	b.WriteString(w.body)
	return []byte(b.String())
}

// A gen makes random requests from a seed: valid ones (valid) and ones
// that break one rule, most of them a rule that smuggling relies on
// (mutated).
type gen struct {
	r *rand.Rand
}

func newGen(seed uint64) *gen { return &gen{r: rand.New(rand.NewPCG(seed, 0x2545f4914f6cdd1d))} }

func (g *gen) pick(l []string) string { return l[g.r.IntN(len(l))] }

var methods = []string{"GET", "GET", "GET", "HEAD", "POST", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE",
	"PROPFIND", "MKCOL", "M-SEARCH", "PURGE", "LINK", "BREW", "QUERY"}

const (
	tchars    = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	pchars    = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@%"
	vchars    = "!\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"
	hexdigits = "0123456789abcdefABCDEF"
)

func (g *gen) from(set string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = set[g.r.IntN(len(set))]
	}
	return string(b)
}

func (g *gen) token(n int) string { return g.from(tchars, n) }

// pctEncoded keeps a target's '%' followed by two hex digits, as
// net/url requires.
func (g *gen) path() string {
	var b strings.Builder
	for range g.r.IntN(5) {
		b.WriteByte('/')
		seg := g.from(pchars, g.r.IntN(12))
		seg = strings.ReplaceAll(seg, "%", "%"+g.from(hexdigits, 2))
		b.WriteString(seg)
	}
	if b.Len() == 0 || g.r.IntN(4) == 0 {
		b.WriteByte('/')
	}
	if g.r.IntN(3) == 0 {
		q := g.from(pchars+"/?", g.r.IntN(40))
		b.WriteString("?" + strings.ReplaceAll(q, "%", "%"+g.from(hexdigits, 2)))
	}
	return b.String()
}

func (g *gen) hostname() string {
	h := g.pick([]string{"www.example.com", "example.org", "localhost", "127.0.0.1", "[::1]", "api.example.net",
		"a", g.from("abcdefghijklmnopqrstuvwxyz0123456789-", 1+g.r.IntN(20)) + ".test"})
	if g.r.IntN(3) == 0 {
		h += ":" + strconv.Itoa(g.r.IntN(65536))
	}
	return h
}

var namePool = []string{"Accept", "Accept-Encoding", "Accept-Language", "User-Agent", "Cookie", "Referer",
	"Cache-Control", "Content-Type", "Authorization", "If-None-Match", "If-Modified-Since", "X-Forwarded-For",
	"X-Request-Id", "Origin", "Sec-Fetch-Mode", "Upgrade-Insecure-Requests", "DNT", "Range", "Via", "TE",
	"Pragma", "traceparent", "x-lower-case", "X-MiXeD-CaSe"}

var valuePool = []string{"*/*", "gzip, deflate, br", "en-US,en;q=0.9", "Mozilla/5.0 (X11; Linux x86_64)",
	"no-cache", "max-age=0", "text/html; charset=utf-8", "application/json", "1", "0", "bytes=0-1023",
	"\"etag-1\"", "Mon, 21 Oct 2013 20:13:21 GMT", "sid=abc; theme=dark", "trailers", ""}

// value returns a field value as sent: visible ASCII, obs-text bytes,
// inner spaces and tabs, and sometimes whitespace around it, which both
// parsers strip.
func (g *gen) value() string {
	var v string
	switch g.r.IntN(6) {
	case 0, 1:
		v = g.pick(valuePool)
	case 2:
		v = g.from(vchars+" \t", g.r.IntN(60))
	case 3: // obs-text
		b := []byte(g.from(vchars+" ", g.r.IntN(30)))
		for range 1 + g.r.IntN(4) {
			b = append(b, byte(0x80+g.r.IntN(0x80)))
		}
		g.r.Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
		v = string(b)
	case 4:
		v = "héllo wörld ☃"
	default:
		v = g.from(vchars, 1+g.r.IntN(200))
	}
	v = strings.Trim(v, " \t")
	if g.r.IntN(5) == 0 {
		v = g.pick([]string{" ", "\t", "  ", " \t"}) + v
	}
	if g.r.IntN(5) == 0 {
		v += g.pick([]string{" ", "\t", " \t "})
	}
	return v
}

func (g *gen) name() string {
	if g.r.IntN(3) == 0 {
		return g.token(1 + g.r.IntN(20))
	}
	return g.pick(namePool)
}

// field returns "Name: value", with or without a space after the colon.
func (g *gen) field(name, value string) string {
	if value != "" && value[0] != ' ' && value[0] != '\t' && g.r.IntN(4) != 0 {
		return name + ": " + value
	}
	return name + ":" + value
}

// A req is a valid request before it is put on the wire, so that the
// mutations can change its parts.
type req struct {
	method, target string
	minor          int
	host           string // "" for none (HTTP/1.0 only)
	fields         []string
	body           []byte
	framing        int // noBody, withLength, withChunks
	chunks         string
	trailers       []string
}

const (
	noBody = iota
	withLength
	withChunks
)

// validReq returns a request that RFC 9112 allows and both parsers accept.
func (g *gen) validReq() *req {
	q := &req{method: g.pick(methods), minor: 1}
	switch g.r.IntN(8) {
	case 0:
		q.method = g.token(1 + g.r.IntN(10))
	}
	if g.r.IntN(5) == 0 {
		q.minor = 0
	}
	switch k := g.r.IntN(20); {
	case k < 15:
		q.target = g.path()
	case k < 18:
		q.target = g.pick([]string{"http", "https", "HTTP"}) + "://" + g.hostname() + g.path()
	case k < 19:
		q.method, q.target = "OPTIONS", "*"
	default:
		q.method, q.target = "CONNECT", g.hostname()
		if !strings.Contains(q.target, ":") || strings.HasSuffix(q.target, "]") {
			q.target += ":443"
		}
	}
	if q.minor == 1 || g.r.IntN(2) == 0 {
		q.host = g.hostname()
	}
	for range g.r.IntN(31) {
		q.fields = append(q.fields, g.field(g.name(), g.value()))
	}
	switch g.r.IntN(5) {
	case 0:
		q.fields = append(q.fields, "Connection: close")
	case 1:
		q.fields = append(q.fields, g.field("Connection", g.pick([]string{"keep-alive", "Keep-Alive", "close, TE", "TE, keep-alive", "upgrade"})))
	}
	if q.method == "CONNECT" {
		return q
	}
	switch g.r.IntN(4) {
	case 1:
		q.framing = withLength
		q.body = g.bodyBytes()
	case 2:
		if q.minor == 1 {
			q.framing = withChunks
			q.body = g.bodyBytes()
			q.chunks = g.chunk(q.body)
			for range g.r.IntN(3) {
				q.trailers = append(q.trailers, g.field(g.pick([]string{"X-Checksum", "Server-Timing", g.token(1 + g.r.IntN(10))}), g.value()))
			}
		}
	}
	return q
}

func (g *gen) bodyBytes() []byte {
	b := make([]byte, g.r.IntN(300))
	for i := range b {
		b[i] = byte(g.r.IntN(256))
	}
	return b
}

// chunk encodes body in random chunks, with random extensions and
// upper- or lowercase hex sizes, sometimes with leading zeros.
func (g *gen) chunk(body []byte) string {
	var b strings.Builder
	for len(body) > 0 {
		n := 1 + g.r.IntN(len(body))
		size := strconv.FormatInt(int64(n), 16)
		if g.r.IntN(2) == 0 {
			size = strings.ToUpper(size)
		}
		if g.r.IntN(8) == 0 {
			size = "00" + size
		}
		b.WriteString(size + g.ext() + "\r\n")
		b.Write(body[:n])
		b.WriteString("\r\n")
		body = body[n:]
	}
	b.WriteString("0" + g.ext() + "\r\n")
	return b.String()
}

func (g *gen) ext() string {
	switch g.r.IntN(6) {
	case 0:
		return ";" + g.token(1+g.r.IntN(8))
	case 1:
		return ";" + g.token(1+g.r.IntN(8)) + "=" + g.token(1+g.r.IntN(8))
	case 2:
		return ";a=\"quoted \\\" string\";b"
	}
	return ""
}

func (q *req) wire(g *gen) *wire {
	w := &wire{line: q.method + " " + q.target + " HTTP/1." + strconv.Itoa(q.minor)}
	fields := append([]string(nil), q.fields...)
	if q.host != "" {
		fields = append(fields, g.field(g.pick([]string{"Host", "host", "HOST"}), q.host))
	}
	switch q.framing {
	case withLength:
		fields = append(fields, g.field(g.pick([]string{"Content-Length", "content-length"}), strconv.Itoa(len(q.body))))
		w.body = string(q.body)
	case withChunks:
		fields = append(fields, g.field(g.pick([]string{"Transfer-Encoding", "transfer-encoding"}), "chunked"))
		var t strings.Builder
		for _, f := range q.trailers {
			t.WriteString(f + "\r\n")
		}
		w.body = q.chunks + t.String() + "\r\n"
	}
	g.r.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
	w.fields = fields
	return w
}

// valid returns a valid request's bytes.
func (g *gen) valid() []byte { return g.validReq().wire(g).bytes() }

// A mutation breaks one rule of a valid request; name says which.
type mutation struct {
	name string
	f    func(g *gen, q *req) *wire
}

// chunked makes q a chunked request of HTTP/1.1 with some body.
func (g *gen) chunked(q *req) {
	if q.method == "CONNECT" || q.method == "OPTIONS" && q.target == "*" {
		q.method, q.target = "POST", "/upload"
	}
	q.minor, q.framing = 1, withChunks
	if q.host == "" {
		q.host = "example.com"
	}
	if len(q.body) == 0 {
		q.body = []byte("hello, world")
	}
	q.chunks = g.chunk(q.body)
}

func (g *gen) withLength(q *req) {
	if q.method == "CONNECT" || q.method == "OPTIONS" && q.target == "*" {
		q.method, q.target = "POST", "/upload"
	}
	q.framing = withLength
	if len(q.body) == 0 {
		q.body = []byte("hello, world")
	}
}

// at returns i in [0, n] at random.
func (g *gen) at(n int) int { return g.r.IntN(n + 1) }

// insert puts s into a random field line's value (or a new field).
func (g *gen) intoValue(w *wire, s string) {
	if len(w.fields) == 0 || g.r.IntN(4) == 0 {
		w.fields = append(w.fields, "X-Mut: a"+s+"b")
		return
	}
	i := g.r.IntN(len(w.fields))
	f := w.fields[i]
	c := strings.IndexByte(f, ':')
	k := c + 1 + g.at(len(f)-c-1)
	w.fields[i] = f[:k] + s + f[k:]
}

func (g *gen) intoName(w *wire, s string) {
	if len(w.fields) == 0 || g.r.IntN(4) == 0 {
		w.fields = append(w.fields, "X"+s+"Mut: a")
		return
	}
	i := g.r.IntN(len(w.fields))
	f := w.fields[i]
	c := strings.IndexByte(f, ':')
	k := g.at(c)
	w.fields[i] = f[:k] + s + f[k:]
}

var ctls = []string{"\x00", "\x01", "\x07", "\x08", "\x0b", "\x0c", "\x1b", "\x1f", "\x7f", "\r", "\n"}

var mutations = []mutation{
	{"CL+TE", func(g *gen, q *req) *wire {
		g.chunked(q)
		w := q.wire(g)
		w.fields = append(w.fields, "Content-Length: "+strconv.Itoa(g.pick2(len(q.body), len(q.chunks)+2)))
		return w
	}},
	{"TE+CL", func(g *gen, q *req) *wire {
		g.withLength(q)
		w := q.wire(g)
		w.fields = append(w.fields, "Transfer-Encoding: chunked")
		return w
	}},
	{"duplicate CL, same", func(g *gen, q *req) *wire {
		g.withLength(q)
		w := q.wire(g)
		w.fields = append(w.fields, "Content-Length: "+strconv.Itoa(len(q.body)))
		return w
	}},
	{"duplicate CL, different", func(g *gen, q *req) *wire {
		g.withLength(q)
		w := q.wire(g)
		w.fields = append(w.fields, "Content-Length: "+strconv.Itoa(g.r.IntN(len(q.body))))
		return w
	}},
	{"CL list", func(g *gen, q *req) *wire {
		g.withLength(q)
		w := q.wire(g)
		n := strconv.Itoa(len(q.body))
		replaceField(w, "content-length", "Content-Length: "+g.pick([]string{n + ", " + n, n + "," + n, n + ", 0"}))
		return w
	}},
	{"CL malformed", func(g *gen, q *req) *wire {
		g.withLength(q)
		w := q.wire(g)
		n := strconv.Itoa(len(q.body))
		replaceField(w, "content-length", "Content-Length: "+g.pick([]string{"+" + n, "-" + n, "0x" + n, n + "a", "", " ",
			"00" + n, n + " " + n, "99999999999999999999", "9223372036854775808", "1e3", "١٢"}))
		return w
	}},
	{"TE variant", func(g *gen, q *req) *wire {
		g.chunked(q)
		w := q.wire(g)
		replaceField(w, "transfer-encoding", "Transfer-Encoding: "+g.pick([]string{
			"chunked, identity", "gzip, chunked", "identity, chunked", "identity", "gzip", " chunked",
			"Chunked", "CHUNKED", "chunked ", "chunked,", ",chunked", "chunked, chunked", "chunked;q=1",
			"\tchunked", "xchunked", "chunk", "chunked\x00", "\"chunked\"", ""}))
		return w
	}},
	{"TE twice", func(g *gen, q *req) *wire {
		g.chunked(q)
		w := q.wire(g)
		w.fields = append(w.fields, "Transfer-Encoding: "+g.pick([]string{"chunked", "identity", "gzip"}))
		return w
	}},
	{"TE in HTTP/1.0", func(g *gen, q *req) *wire {
		g.chunked(q)
		q.minor = 0
		w := q.wire(g)
		if g.r.IntN(2) == 0 {
			w.fields = append(w.fields, "Content-Length: "+strconv.Itoa(len(q.body)))
		}
		return w
	}},
	{"obs-fold", func(g *gen, q *req) *wire {
		w := q.wire(g)
		g.intoValue(w, g.pick([]string{"\r\n ", "\r\n\t", "\r\n  x"}))
		return w
	}},
	{"obs-fold first", func(g *gen, q *req) *wire {
		w := q.wire(g)
		w.fields = append([]string{g.pick([]string{" X: a", "\tX: a", " "})}, w.fields...)
		return w
	}},
	{"whitespace before colon", func(g *gen, q *req) *wire {
		w := q.wire(g)
		if len(w.fields) == 0 {
			w.fields = append(w.fields, "X-Mut: a")
		}
		i := g.r.IntN(len(w.fields))
		c := strings.IndexByte(w.fields[i], ':')
		w.fields[i] = w.fields[i][:c] + g.pick([]string{" ", "\t", "  ", " \t"}) + w.fields[i][c:]
		return w
	}},
	{"bare LF", func(g *gen, q *req) *wire {
		if g.r.IntN(3) == 0 {
			g.chunked(q)
		}
		return g.replaceEOL(q.wire(g), "\n")
	}},
	{"bare CR", func(g *gen, q *req) *wire {
		if g.r.IntN(3) == 0 {
			g.chunked(q)
		}
		w := q.wire(g)
		if g.r.IntN(2) == 0 {
			g.intoValue(w, "\r")
			return w
		}
		return g.replaceEOL(w, "\r")
	}},
	{"CTL in value", func(g *gen, q *req) *wire {
		w := q.wire(g)
		g.intoValue(w, g.pick(ctls))
		return w
	}},
	{"CTL or separator in name", func(g *gen, q *req) *wire {
		w := q.wire(g)
		g.intoName(w, g.pick(append([]string{" ", "\t", "(", ")", "/", "@", "\"", "{", "=", "\x80", "\xff", ";", ","}, ctls...)))
		return w
	}},
	{"empty name", func(g *gen, q *req) *wire {
		w := q.wire(g)
		w.fields = append(w.fields, g.pick([]string{": a", ":", "no colon here"}))
		return w
	}},
	{"chunk size", func(g *gen, q *req) *wire {
		g.chunked(q)
		q.chunks = g.pick([]string{"0x", "-", "+", " ", "", "g", "5 ", " 5", "5\t", "10000000000000000", "0000000000000000005",
			"ffffffffffffffff", "7fffffffffffffff", "8000000000000000", "fffffffffffffffff"}) + strings.TrimLeft(q.chunks, hexdigits)
		return q.wire(g)
	}},
	{"chunk size too big", func(g *gen, q *req) *wire {
		g.chunked(q)
		q.chunks = strconv.FormatInt(int64(len(q.body)+1+g.r.IntN(3)), 16) + "\r\n" + string(q.body) + "\r\n0\r\n"
		return q.wire(g)
	}},
	{"chunk data without CRLF", func(g *gen, q *req) *wire {
		g.chunked(q)
		i := strings.Index(q.chunks, "\r\n")
		n, _ := strconv.ParseInt(strings.SplitN(q.chunks[:i], ";", 2)[0], 16, 64)
		j := i + 2 + int(n)
		q.chunks = q.chunks[:j] + g.pick([]string{"", "\r", "\n", "x\r\n", "\r\r\n", "\n\r"}) + q.chunks[j+2:]
		return q.wire(g)
	}},
	{"chunk extension", func(g *gen, q *req) *wire {
		g.chunked(q)
		i := strings.Index(q.chunks, "\r\n")
		q.chunks = q.chunks[:i] + g.pick([]string{";", "; a", " ;a", "; a=b", ";a=", ";=b", ";a=\"x", ";a\x00",
			";a=\x01", ";a b", ";a=\"\x7f\"", ";a=\x80", ";a=b c", "\t;a"}) + q.chunks[i:]
		return q.wire(g)
	}},
	{"trailer", func(g *gen, q *req) *wire {
		g.chunked(q)
		q.trailers = append(q.trailers, g.pick([]string{"Content-Length: 5", "Transfer-Encoding: chunked", "Host: evil",
			"X: a\x00", " X: a", "X : a", "no colon", "X: a\r\n b", "Trailer: X", "Content-Type: text/plain"}))
		return q.wire(g)
	}},
	{"request line", func(g *gen, q *req) *wire {
		w := q.wire(g)
		m, t, v := q.method, q.target, "HTTP/1."+strconv.Itoa(q.minor)
		w.line = g.pick([]string{
			m + "  " + t + " " + v, m + " " + t + "  " + v, m + " " + t + " " + v + " ", " " + w.line,
			m + "\t" + t + " " + v, m + " " + t + "\t" + v, m + " " + t, m + " " + t + " " + strings.ToLower(v),
			m + " " + t + " HTTP/2.0", m + " " + t + " HTTP/1.2", m + " " + t + " HTTP/0.9", m + " " + t + " HTTP/1.10",
			m + " " + t + " HTTP/01.1", m + " " + t + " HTTP/3", m + " " + t + " HTTP/1", m + " " + t + " HTTP/1.1x",
			"\r\n" + w.line, "\n" + w.line, strings.ToLower(m) + " " + t + " " + v, m + "  " + v, m + " " + t + "x y " + v,
		})
		return w
	}},
	{"target", func(g *gen, q *req) *wire {
		w := q.wire(g)
		bad := g.pick([]string{"#frag", "\x80", "\xff", "\"", "<", ">", "\\", "^", "`", "{", "|", "}", "\x00", "\x7f", "%", "%zz", "%2"})
		t := q.target
		switch g.r.IntN(3) {
		case 0:
			t = "/" + bad
		case 1:
			t += bad
		default:
			t = g.pick([]string{"", "x", "example.com:80", "*", "//x", "http://", "http://a b/", "http:/x", "a:b", "?q"})
		}
		w.line = q.method + " " + t + " HTTP/1." + strconv.Itoa(q.minor)
		return w
	}},
	{"method", func(g *gen, q *req) *wire {
		w := q.wire(g)
		m := g.pick([]string{"G(T", "GE T", "G\x00T", "GET\x80", "", "G:T", "G/T", "G@T", "CONNECT"})
		w.line = m + " " + q.target + " HTTP/1." + strconv.Itoa(q.minor)
		return w
	}},
	{"host", func(g *gen, q *req) *wire {
		w := q.wire(g)
		switch g.r.IntN(3) {
		case 0:
			deleteField(w, "host")
		case 1:
			w.fields = append(w.fields, "Host: "+g.hostname())
		default:
			deleteField(w, "host")
			w.fields = append(w.fields, "Host: "+g.pick([]string{"a b", "a/b", "a@b", "[::1", "a:b:c", "", "ex ample.com", "a\x80"}))
		}
		return w
	}},
	{"expect", func(g *gen, q *req) *wire {
		g.withLength(q)
		w := q.wire(g)
		w.fields = append(w.fields, "Expect: "+g.pick([]string{"100-continue", "100-Continue", "foo", "100-continue, foo", ""}))
		return w
	}},
	{"long", func(g *gen, q *req) *wire {
		w := q.wire(g)
		switch g.r.IntN(4) {
		case 0:
			w.line = q.method + " /" + strings.Repeat("a", 8<<10+g.r.IntN(100)-100) + " HTTP/1." + strconv.Itoa(q.minor)
		case 1:
			w.fields = append(w.fields, "X-Long: "+strings.Repeat("b", 16<<10+g.r.IntN(100)-100))
		case 2:
			for i := range 95 + g.r.IntN(10) {
				w.fields = append(w.fields, "X-"+strconv.Itoa(i)+": v")
			}
		default:
			w.fields = append(w.fields, "Content-Length: "+g.pick([]string{"4194304", "4194305", "100000000"}))
		}
		return w
	}},
	{"truncated", func(g *gen, q *req) *wire {
		b := q.wire(g).bytes()
		return &wire{raw: string(b[:1+g.r.IntN(len(b)-1)])}
	}},
	{"byte flip", func(g *gen, q *req) *wire {
		b := q.wire(g).bytes()
		for range 1 + g.r.IntN(3) {
			b[g.r.IntN(len(b))] = byte(g.r.IntN(256))
		}
		return &wire{raw: string(b)}
	}},
}

func (g *gen) pick2(a, b int) int {
	if g.r.IntN(2) == 0 {
		return a
	}
	return b
}

// replaceEOL replaces one or all of the head's line ends, or one of the
// chunked body's, by eol.
func (g *gen) replaceEOL(w *wire, eol string) *wire {
	b := string(w.bytes())
	head := strings.Index(b, "\r\n\r\n") + 4
	switch g.r.IntN(4) {
	case 0:
		b = strings.ReplaceAll(b[:head], "\r\n", eol) + b[head:]
	case 1:
		if ends := strings.Count(b[head:], "\r\n"); ends > 0 {
			b = b[:head] + replaceNth(b[head:], g.r.IntN(ends), eol)
			break
		}
		fallthrough
	default:
		b = replaceNth(b, g.r.IntN(strings.Count(b[:head], "\r\n")), eol)
	}
	return &wire{raw: b}
}

// replaceNth replaces the nth "\r\n" of s by eol.
func replaceNth(s string, n int, eol string) string {
	i := 0
	for k := 0; ; k++ {
		j := strings.Index(s[i:], "\r\n")
		if j < 0 {
			return s
		}
		if k == n {
			return s[:i+j] + eol + s[i+j+2:]
		}
		i += j + 2
	}
}

func fieldName(f string) string {
	name, _, _ := strings.Cut(f, ":")
	return strings.ToLower(name)
}

func replaceField(w *wire, lower, with string) {
	for i, f := range w.fields {
		if fieldName(f) == lower {
			w.fields[i] = with
			return
		}
	}
	w.fields = append(w.fields, with)
}

func deleteField(w *wire, lower string) {
	out := w.fields[:0]
	for _, f := range w.fields {
		if fieldName(f) != lower {
			out = append(out, f)
		}
	}
	w.fields = out
}

// mutated returns a request that breaks one rule, and the mutation's name.
func (g *gen) mutated() ([]byte, string) {
	m := mutations[g.r.IntN(len(mutations))]
	w := m.f(g, g.validReq())
	return w.bytes(), m.name
}
