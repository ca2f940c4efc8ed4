package http1

import (
	"bytes"
	"math"

	"github.com/netkit/netkit/codec/internal/ascii"
)

// A Decoder parses requests with its limits and rules. The zero value is
// ready to use, with the default limits; set the fields before the first
// call. A limit of 0 (or less) means its default.
//
// DecodeBytes keeps no state in the Decoder: it is safe for concurrent
// use. Decode keeps the progress of the request at the front of one
// connection's input: use one Decoder per connection for it.
type Decoder struct {
	// MaxRequestLine is the longest request line accepted, in bytes with
	// its CRLF (0: DefaultMaxRequestLine); a longer one is ErrURITooLong.
	MaxRequestLine int

	// MaxHeaderBytes is the largest header section accepted, in bytes
	// from after the request line to the empty line included (0:
	// DefaultMaxHeaderBytes); a larger one is ErrHeaderTooLarge.
	MaxHeaderBytes int

	// MaxTrailerBytes is the largest trailer section of a chunked body
	// accepted, in bytes from after the last chunk's line to the empty
	// line included (0: DefaultMaxTrailerBytes, 4 KiB, which is what
	// net/http's server reads); a larger one is ErrHeaderTooLarge. A
	// proxy in front of a net/http backend must not pass what the backend
	// refuses.
	MaxTrailerBytes int

	// MaxHeaders is the most header fields accepted (0:
	// DefaultMaxHeaders); more is ErrTooManyHeaders. It bounds trailer
	// fields too.
	MaxHeaders int

	// MaxBodySize is the largest body accepted (0: DefaultMaxBodySize);
	// a larger one is ErrBodyTooLarge, refused from the Content-Length or
	// as soon as the chunks pass it.
	MaxBodySize int64

	// AllowBareLF accepts lines ended by LF alone (RFC 9112 §2.2 lets a
	// recipient do so) in the request line, header and trailer sections
	// and chunk framing. Off by default: a bare LF is ErrBareLF, since
	// parsers that disagree on line ends are how requests are smuggled.
	AllowBareLF bool

	// StreamBodies makes Decode return a request whose body has not all
	// arrived as soon as its head has: Body is then empty and
	// BodyFollows set, and the body comes next, a piece at a time, from
	// DecodeBody, so that a large upload is never held whole. A body that
	// arrived with its head is still returned in Body. The limits hold
	// the same (MaxBodySize too).
	StreamBodies bool

	bs      bodyState   // DecodeBody's progress, see body.go
	cfg     config      // Decode's limits, from the fields above
	st      decodeState // Decode's progress, see decode.go
	scan    Request     // what Decode's line-by-line check of a head fills, then drops
	scratch []byte      // Decode's copy of a head or line that straddles reads
}

// NewDecoder returns a Decoder with the default limits changed by opts.
//
// Deprecated: use a Decoder value (the zero value is ready) with its
// fields set.
func NewDecoder(opts ...Option) *Decoder {
	d := new(Decoder)
	for _, o := range opts {
		o(d)
	}
	return d
}

// ParseRequest is DecodeBytes with the default limits and rules, with its
// arguments in the old order.
//
// Deprecated: use (*Decoder).DecodeBytes; the zero Decoder has the
// default limits and rules.
func ParseRequest(req *Request, p []byte) (int, error) {
	return parse(&defaultCfg, req, p)
}

// Parse is DecodeBytes with its arguments in the old order.
//
// Deprecated: use DecodeBytes.
func (d *Decoder) Parse(req *Request, p []byte) (n int, err error) {
	return d.DecodeBytes(p, req)
}

// DecodeBytes parses the request at the front of p (request line, header
// section and body) into req and returns the number of bytes it took. It
// returns ErrShort, with n = 0, when p ends before the request does and no
// limit is passed yet, and a *SyntaxError naming one of the package's
// *Violation kinds for a request it refuses (StatusOf tells what to
// answer). p may hold more bytes after the request, such as the next
// pipelined request.
//
// req's []byte fields alias p (see Request). A chunked body is de-chunked
// in place: once the whole request is known to be in p and valid, DecodeBytes
// moves the chunks' data together at the start of the body's bytes in p,
// overwriting the chunk framing, and Body is that data. p is not written
// to otherwise, and not at all when DecodeBytes returns an error.
//
// Cost: one pass over the head with bytes.IndexByte for line ends, table
// lookups for names and eight bytes at a time for values; a Content-Length
// body is not read; a chunked body costs one pass over its chunk lines and
// one copy of its data. DecodeBytes allocates nothing once req.Headers (and
// req.Trailers) have grown to the number of fields.
//
// HTTP/1.0 and HTTP/1.1 are accepted; HTTP/1.2 to HTTP/1.9 are parsed as
// HTTP/1.1 (RFC 9110 §2.5) and give Minor = 1; another major version is
// ErrVersionNotSupported. Empty lines before the request line, which RFC
// 9112 §2.2 lets a server ignore, are refused (ErrRequestLine).
func (d *Decoder) DecodeBytes(p []byte, req *Request) (n int, err error) {
	c := d.config()
	return parse(&c, req, p)
}

func parse(c *config, req *Request, p []byte) (int, error) {
	req.Release()
	h, err := parseHead(c, req, p)
	if err != nil {
		req.reset()
		return 0, err
	}
	if !req.Chunked {
		if req.ContentLength > int64(len(p)-h) {
			req.reset()
			return 0, ErrShort
		}
		end := h + int(req.ContentLength)
		if end > h {
			req.Body = p[h:end:end]
		}
		return end, nil
	}
	var sp chunkSpans
	end, size, err := chunks(c, req, p, h, false, &sp)
	if err != nil {
		req.reset()
		return 0, err
	}
	if !sp.compact(p, h) {
		chunks(c, req, p, h, true, nil)
	}
	req.Body = p[h : h+int(size) : h+int(size)]
	if size == 0 {
		req.Body = nil
	}
	return end, nil
}

func serr(off int, kind *Violation) error { return &SyntaxError{Offset: off, Kind: kind} }

// headState is what the header fields tell, gathered while they are
// parsed and checked once the section ends.
type headState struct {
	hosts    int
	hostOff  int // offset of the second Host field
	clSeen   bool
	teOff    int // offset of the first Transfer-Encoding field, -1 when none
	teLast   bool
	teChunks int
	teOther  bool
	close    bool
	keep     bool
	upgrade  bool // Connection: upgrade
	upField  bool // an Upgrade field
	expect   bool
}

// parseHead parses the request line and the header section at the front
// of p and returns their length.
func parseHead(c *config, req *Request, p []byte) (int, error) {
	lim := min(len(p), c.maxRequestLine)
	lf := bytes.IndexByte(p[:lim], '\n')
	if lf < 0 {
		if len(p) >= c.maxRequestLine {
			return 0, serr(max(c.maxRequestLine, 0), ErrURITooLong)
		}
		return 0, ErrShort
	}
	end := lf
	if end > 0 && p[end-1] == '\r' {
		end--
	} else if !c.allowBareLF {
		return 0, serr(lf, ErrBareLF)
	}
	if err := requestLine(req, p[:end]); err != nil {
		return 0, err
	}
	var hs headState
	hs.teOff = -1
	pos := lf + 1
	hlim := pos + c.maxHeaderBytes
	if c.maxHeaderBytes < 0 {
		hlim = pos
	}
	for {
		if name, value, next, ok := quickField(p[pos:min(len(p), hlim)]); ok {
			if err := note(c, req, &hs, name, value, pos, len(req.Headers)); err != nil {
				return 0, err
			}
			pos += next
			continue
		}
		lf, end, err := sectionLine(c, p, pos, hlim)
		if err != nil {
			return 0, err
		}
		if end == pos {
			pos = lf + 1
			break
		}
		if err := field(c, req, &hs, p, pos, end, len(req.Headers)); err != nil {
			return 0, err
		}
		pos = lf + 1
	}
	return pos, finishHead(c, req, &hs, pos)
}

// sectionLine finds the line of a header or trailer section that starts
// at p[pos] and must end before limit, the section's: it returns the
// offset of its LF and its end without the line end. It returns ErrShort
// when p ends first, ErrHeaderTooLarge when the line runs past limit, and
// ErrBareLF for a line ended by LF alone unless the config allows it.
func sectionLine(c *config, p []byte, pos, limit int) (lf, end int, err error) {
	i := bytes.IndexByte(p[pos:min(len(p), limit)], '\n')
	if i < 0 {
		if len(p) >= limit {
			return 0, 0, serr(limit, ErrHeaderTooLarge)
		}
		return 0, 0, ErrShort
	}
	lf = pos + i
	end = lf
	if end > pos && p[end-1] == '\r' {
		end--
	} else if !c.allowBareLF {
		return 0, 0, serr(lf, ErrBareLF)
	}
	return lf, end, nil
}

// requestLine parses method SP request-target SP HTTP-version (RFC 9112
// §3), without its line end.
func requestLine(req *Request, line []byte) error {
	i := 0
	for i < len(line) && ascii.IsTokenByte(line[i]) {
		i++
	}
	if i == len(line) {
		return serr(i, ErrRequestLine)
	}
	if i == 0 || line[i] != ' ' {
		return serr(i, ErrMethod)
	}
	m := line[:i]
	req.RawMethod = m
	req.Method = methodOf(m)
	t0 := i + 1
	j := t0
	for j < len(line) && ascii.Is(line[j], ascii.Target) {
		j++
	}
	if j == len(line) {
		return serr(j, ErrRequestLine)
	}
	if j == t0 || line[j] != ' ' {
		return serr(j, ErrTarget)
	}
	t := line[t0:j]
	if err := targetForm(req.Method, t); err != nil {
		return serr(t0, err.(*Violation))
	}
	req.Target = t
	req.Path = t
	if q := bytes.IndexByte(t, '?'); q >= 0 {
		req.Path = t[:q]
		req.Query = t[q+1:]
	}
	// A '%' in the path must start a pct-encoded byte (RFC 3986 §2.1), as
	// net/url requires too; the query is left as sent, where clients put
	// a bare '%' often enough ("?off=10%") and net/url does not look.
	// (An opaque absolute-form target, scheme ":" without '/', is left
	// as sent too, as net/url leaves it.)
	if k := bytes.IndexByte(req.Path, '%'); k >= 0 && hierarchical(t) {
		if k = badEscape(req.Path, k); k >= 0 {
			return serr(t0+k, ErrTarget)
		}
	}
	// An absolute-form target names its path after the authority
	// ("http://a/x?q" has the path "/x"): Path is that, as the origin-form
	// target of the same request would give, so that a router does not
	// depend on the form the client chose (RFC 9112 §3.2.2); Target keeps
	// the whole.
	if k := absolutePath(req.Path); k > 0 {
		req.Path = req.Path[k:]
	}
	v := line[j+1:]
	if len(v) != 8 || string(v[:5]) != "HTTP/" || v[6] != '.' || !isDigit(v[5]) || !isDigit(v[7]) {
		return serr(j+1, ErrVersion)
	}
	if v[5] != '1' {
		return serr(j+1, ErrVersionNotSupported)
	}
	req.Minor = 1
	if v[7] == '0' {
		req.Minor = 0
	}
	return nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// ipv6 reports whether s is an IPv6 address in the text form of RFC 4291
// §2.2: eight groups of one to four hex digits separated by ':', one run
// of zero groups written "::", and the last two groups possibly written
// as a dotted IPv4 address. Zones are not accepted.
func ipv6(s []byte) bool {
	groups, gap, afterGroup := 0, false, false
	for i := 0; i < len(s); {
		if s[i] == ':' {
			if i+1 < len(s) && s[i+1] == ':' {
				if gap {
					return false
				}
				gap, afterGroup = true, false
				i += 2
				continue
			}
			// a single ':' separates two groups
			if !afterGroup || i+1 == len(s) {
				return false
			}
			i++
		}
		j := i
		for j < len(s) && j-i < 5 && ascii.Unhex[s[j]] < 16 {
			j++
		}
		if j < len(s) && s[j] == '.' {
			if !ipv4(s[i:]) {
				return false
			}
			groups += 2
			break
		}
		if j == i || j-i > 4 || (j < len(s) && s[j] != ':') {
			return false
		}
		groups++
		afterGroup = true
		i = j
	}
	if gap {
		return groups <= 7
	}
	return groups == 8
}

// ipv4 reports whether s is a dotted-decimal IPv4 address: four numbers
// of 0 to 255 without leading zeros.
func ipv4(s []byte) bool {
	for k := 0; k < 4; k++ {
		if k > 0 {
			if len(s) == 0 || s[0] != '.' {
				return false
			}
			s = s[1:]
		}
		n, d := 0, 0
		for d < len(s) && isDigit(s[d]) && d < 3 {
			n = n*10 + int(s[d]-'0')
			d++
		}
		if d == 0 || n > 255 || (d > 1 && s[0] == '0') {
			return false
		}
		s = s[d:]
	}
	return len(s) == 0
}

// absolutePath returns where the path of an absolute-form target with an
// authority ("scheme://authority/path") starts in p, the target up to its
// '?': the index of the '/' after the authority, or len(p) when there is
// no path ("http://a"). It returns 0 for every other form (origin-form,
// asterisk-form, authority-form, and an absolute-form target without an
// authority such as "urn:x"), whose Path is p itself.
func absolutePath(p []byte) int {
	if len(p) == 0 || p[0] == '/' || p[0] == '*' {
		return 0
	}
	c := bytes.IndexByte(p, ':')
	if c < 0 || len(p) < c+3 || p[c+1] != '/' || p[c+2] != '/' {
		return 0
	}
	if i := bytes.IndexByte(p[c+3:], '/'); i >= 0 {
		return c + 3 + i
	}
	return len(p)
}

// hierarchical reports whether the target t, of a valid form, has a path
// that starts with '/': origin-form, or absolute-form with '/' after the
// scheme's colon (net/url calls the rest "opaque" and does not unescape
// it).
func hierarchical(t []byte) bool {
	if t[0] == '/' {
		return true
	}
	c := bytes.IndexByte(t, ':')
	return c > 0 && len(t) >= c+2 && t[c+1] == '/'
}

// badEscape returns the offset of the first '%' in t, from the one at k,
// that is not followed by two hex digits (RFC 3986 §2.1), or -1.
func badEscape(t []byte, k int) int {
	for k >= 0 {
		if k+2 >= len(t) || ascii.Unhex[t[k+1]] > 15 || ascii.Unhex[t[k+2]] > 15 {
			return k
		}
		n := bytes.IndexByte(t[k+3:], '%')
		if n < 0 {
			return -1
		}
		k += 3 + n
	}
	return -1
}

// methodOf recognises the methods with a value of their own; method names
// are case-sensitive (RFC 9110 §9.1).
func methodOf(m []byte) Method {
	switch len(m) {
	case 3:
		switch string(m) {
		case "GET":
			return MethodGet
		case "PUT":
			return MethodPut
		}
	case 4:
		switch string(m) {
		case "POST":
			return MethodPost
		case "HEAD":
			return MethodHead
		}
	case 5:
		switch string(m) {
		case "PATCH":
			return MethodPatch
		case "TRACE":
			return MethodTrace
		}
	case 6:
		if string(m) == "DELETE" {
			return MethodDelete
		}
	case 7:
		switch string(m) {
		case "OPTIONS":
			return MethodOptions
		case "CONNECT":
			return MethodConnect
		}
	}
	return MethodOther
}

// targetForm checks the form of the request-target t, whose characters are
// already known to be allowed (RFC 9112 §3.2): origin-form for every
// method but CONNECT, authority-form (host:port) for CONNECT only,
// asterisk-form for OPTIONS only, absolute-form (scheme ":" …) for every
// method but CONNECT.
func targetForm(m Method, t []byte) error {
	if m == MethodConnect {
		// authority-form: host ":" port, no userinfo.
		return hostPort(t, true)
	}
	switch t[0] {
	case '/':
		return nil
	case '*':
		if len(t) == 1 && m == MethodOptions {
			return nil
		}
		return ErrTarget
	}
	// absolute-form: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
	if !('a' <= t[0]|0x20 && t[0]|0x20 <= 'z') {
		return ErrTarget
	}
	for i := 1; i < len(t); i++ {
		if t[i] == ':' {
			return authority(t[i+1:])
		}
		if !ascii.Is(t[i], ascii.Scheme) {
			return ErrTarget
		}
	}
	return ErrTarget
}

// authority checks the authority of an absolute-form target, given what
// follows its scheme's colon: when it starts with "//", the authority up to
// the next '/', '?' or the end must be a host — a non-empty reg-name or
// IPv4 address, or an IPv6 literal in brackets — with an optional port of
// digits. Userinfo ('@') is refused, as RFC 9110 §4.2.4 tells a recipient
// to treat it as an error, and so is an empty host (RFC 9110 §4.2.1 for
// "http").
func authority(rest []byte) error {
	if len(rest) < 2 || rest[0] != '/' || rest[1] != '/' {
		return nil
	}
	a := rest[2:]
	for i, b := range a {
		if b == '/' || b == '?' {
			a = a[:i]
			break
		}
	}
	return hostPort(a, false)
}

// hostPort checks host [":" port] (RFC 3986 §3.2.2, §3.2.3): a non-empty
// reg-name or IPv4 address, or an IPv6 literal in brackets, then a port of
// digits, which needPort requires (and requires not empty).
// hostEscape reports whether p, which starts with '%', starts with an
// escape a host may hold: "%25" (a '%') or a byte of 0x80 or more (a part
// of a UTF-8 name). An escaped ASCII byte ("%00", "%2F", "%41") is
// refused, as net/url refuses it in a host: it would hide a NUL, a
// delimiter or a letter from whoever compares hosts.
func hostEscape(p []byte) bool {
	if len(p) < 3 || ascii.Unhex[p[2]] > 15 {
		return false
	}
	hi := ascii.Unhex[p[1]]
	return 8 <= hi && hi < 16 || hi == 2 && p[2] == '5'
}

func hostPort(a []byte, needPort bool) error {
	if len(a) > 0 && a[0] == '[' {
		e := bytes.IndexByte(a, ']')
		if e < 2 {
			return ErrTarget
		}
		if !ipv6(a[1:e]) {
			return ErrTarget
		}
		a = a[e+1:]
		if len(a) > 0 && a[0] != ':' {
			return ErrTarget
		}
	} else {
		host := a
		if c := bytes.IndexByte(a, ':'); c >= 0 {
			host, a = a[:c], a[c:]
		} else {
			a = nil
		}
		if len(host) == 0 {
			return ErrTarget
		}
		for k, b := range host {
			if !ascii.Is(b, ascii.Host) || b == ':' || b == '[' || b == ']' || b == '@' {
				return ErrTarget
			}
			if b == '%' && !hostEscape(host[k:]) {
				return ErrTarget
			}
		}
	}
	if needPort && len(a) < 2 {
		return ErrTarget
	}
	if len(a) > 0 { // ":" port
		for _, b := range a[1:] {
			if !isDigit(b) {
				return ErrTarget
			}
		}
	}
	return nil
}

// field parses the header field line p[pos:end] (its line end removed),
// the count-th of the section, into req.Headers and notes what it tells in
// hs.
func field(c *config, req *Request, hs *headState, p []byte, pos, end, count int) error {
	name, value, err := fieldLine(p, pos, end)
	if err != nil {
		return err
	}
	return note(c, req, hs, name, value, pos, count)
}

// quickField parses the field line at the front of l, the bytes up to the
// header section's limit, when it is well formed and ends with CRLF, in
// one pass: the name through the token table, then the value eight bytes
// at a time up to its first control character, which must be the CR of
// the CRLF. It returns the length of the line with its CRLF. When it
// reports false (an empty line, a bare LF, a line not ended yet, an error)
// the line is parsed again by the path that checks it rule by rule; it
// accepts exactly the lines that path accepts, with the same result.
func quickField(l []byte) (name, value []byte, n int, ok bool) {
	j := bytes.IndexByte(l, ':')
	if j <= 0 || !ascii.AllIn(l[:j], ascii.Token) {
		return nil, nil, 0, false
	}
	v := j + 1
	for v < len(l) && (l[v] == ' ' || l[v] == '\t') {
		v++
	}
	k := ascii.IndexCTL(l[v:])
	if k < 0 {
		return nil, nil, 0, false
	}
	k += v
	if k+1 >= len(l) || l[k] != '\r' || l[k+1] != '\n' {
		return nil, nil, 0, false
	}
	e := k
	for e > v && (l[e-1] == ' ' || l[e-1] == '\t') {
		e--
	}
	return l[:j:j], l[v:e:e], k + 2, true
}

// note checks the field name: value, at offset pos and the count-th of
// the section, appends it to req.Headers and notes what it tells in hs.
func note(c *config, req *Request, hs *headState, name, value []byte, pos, count int) error {
	if count >= c.maxHeaders {
		return serr(pos, ErrTooManyHeaders)
	}
	req.Headers = append(req.Headers, Header{Name: name, Value: value})
	switch len(name) {
	case 4:
		if ascii.EqualLower(name, "host") {
			hs.hosts++
			if hs.hosts == 2 {
				hs.hostOff = pos
			}
			for _, b := range value {
				if !ascii.Is(b, ascii.Host) {
					return serr(pos, ErrHost)
				}
			}
			req.Host = value
		}
	case 6:
		if ascii.EqualLower(name, "expect") {
			if !ascii.EqualLower(value, "100-continue") {
				return serr(pos, ErrExpect)
			}
			hs.expect = true
		}
	case 7:
		if ascii.EqualLower(name, "upgrade") {
			hs.upField = true
		}
	case 10:
		if ascii.EqualLower(name, "connection") {
			connection(hs, value)
		}
	case 14:
		if ascii.EqualLower(name, "content-length") {
			n, ok := contentLength(value)
			if !ok {
				return serr(pos, ErrContentLength)
			}
			if hs.clSeen && n != req.ContentLength {
				return serr(pos, ErrDuplicateContentLength)
			}
			hs.clSeen = true
			req.ContentLength = n
		}
	case 17:
		if ascii.EqualLower(name, "transfer-encoding") {
			if hs.teOff < 0 {
				hs.teOff = pos
			}
			if !transferEncoding(hs, value) {
				return serr(pos, ErrTransferEncoding)
			}
		}
	}
	return nil
}

// fieldLine splits the field line p[pos:end] into its name and its value
// without surrounding whitespace, checking both (RFC 9112 §5, RFC 9110
// §5.1, §5.5).
func fieldLine(p []byte, pos, end int) (name, value []byte, err error) {
	l := p[pos:end]
	j := 0
	for j < len(l) && ascii.IsTokenByte(l[j]) {
		j++
	}
	if j == 0 || j == len(l) || l[j] != ':' {
		return nil, nil, badName(l, j, pos)
	}
	v := j + 1
	for v < len(l) && (l[v] == ' ' || l[v] == '\t') {
		v++
	}
	e := len(l)
	for e > v && (l[e-1] == ' ' || l[e-1] == '\t') {
		e--
	}
	if k := ascii.IndexCTL(l[v:e]); k >= 0 {
		return nil, nil, serr(pos+v+k, ErrHeaderValue)
	}
	return l[:j:j], l[v:e:e], nil
}

// badName returns the error for the field line l, at offset pos, whose
// name ends at l[j] with something other than a colon.
func badName(l []byte, j, pos int) error {
	if l[0] == ' ' || l[0] == '\t' {
		return serr(pos, ErrObsFold)
	}
	if j > 0 && j < len(l) && (l[j] == ' ' || l[j] == '\t') {
		k := j
		for k < len(l) && (l[k] == ' ' || l[k] == '\t') {
			k++
		}
		if k < len(l) && l[k] == ':' {
			return serr(pos+j, ErrSpaceBeforeColon)
		}
	}
	return serr(pos+j, ErrHeaderName)
}

// contentLength parses 1*DIGIT (RFC 9110 §8.6): no sign, no whitespace
// inside, no list.
func contentLength(v []byte) (int64, bool) {
	if len(v) == 0 {
		return 0, false
	}
	var n int64
	for _, b := range v {
		if !isDigit(b) {
			return 0, false
		}
		d := int64(b - '0')
		if n > (math.MaxInt64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// nextElement returns the first element of the comma-separated list v
// (RFC 9110 §5.6.1) without surrounding whitespace, and the rest of the
// list after its comma.
func nextElement(v []byte) (elem, rest []byte) {
	if i := bytes.IndexByte(v, ','); i >= 0 {
		return ascii.TrimOWS(v[:i]), v[i+1:]
	}
	return ascii.TrimOWS(v), nil
}

// connection notes the close, keep-alive and upgrade options of a
// Connection field (RFC 9110 §7.6.1).
func connection(hs *headState, v []byte) {
	for len(v) > 0 {
		var e []byte
		e, v = nextElement(v)
		switch len(e) {
		case 5:
			hs.close = hs.close || ascii.EqualLower(e, "close")
		case 7:
			hs.upgrade = hs.upgrade || ascii.EqualLower(e, "upgrade")
		case 10:
			hs.keep = hs.keep || ascii.EqualLower(e, "keep-alive")
		}
	}
}

// transferEncoding notes the codings of a Transfer-Encoding field (RFC
// 9112 §6.1): each element is a token, with parameters for codings other
// than chunked, which has none. It reports false for a malformed list.
func transferEncoding(hs *headState, v []byte) bool {
	if len(v) == 0 || v[len(v)-1] == ',' { // no coding, or an empty last element
		return false
	}
	for len(v) > 0 {
		var e []byte
		e, v = nextElement(v)
		if len(e) == 0 {
			// RFC 9110 §5.6.1 lets a recipient skip empty list
			// elements; net/http refuses them here, and so do we:
			// parsers that disagree on framing fields are how requests
			// are smuggled.
			return false
		}
		i := 0
		for i < len(e) && ascii.IsTokenByte(e[i]) {
			i++
		}
		if i == 0 {
			return false
		}
		name, params := e[:i], ascii.TrimOWS(e[i:])
		if len(params) > 0 && params[0] != ';' {
			return false
		}
		if ascii.EqualLower(name, "chunked") {
			if len(params) > 0 {
				return false
			}
			hs.teChunks++
			hs.teLast = true
			continue
		}
		hs.teOther = true
		hs.teLast = false
	}
	return true
}

// finishHead checks what needs the whole header section and fills the
// fields of req it decides. end is the section's end.
func finishHead(c *config, req *Request, hs *headState, end int) error {
	switch {
	case hs.hosts > 1:
		return serr(hs.hostOff, ErrHost)
	case hs.hosts == 0 && req.Minor == 1:
		return serr(end, ErrHost)
	}
	if hs.teOff >= 0 {
		switch {
		case req.Minor == 0:
			return serr(hs.teOff, ErrTransferEncoding)
		case hs.clSeen:
			return serr(hs.teOff, ErrLengthAndChunked)
		case hs.teChunks != 1 || !hs.teLast:
			return serr(hs.teOff, ErrTransferEncoding)
		case hs.teOther:
			return serr(hs.teOff, ErrUnsupportedCoding)
		}
		req.Chunked = true
		req.ContentLength = -1
	} else if req.ContentLength > c.maxBodySize {
		return serr(end, ErrBodyTooLarge)
	}
	if req.Minor == 1 {
		req.KeepAlive = !hs.close
		req.Expect100 = hs.expect
	} else {
		req.KeepAlive = hs.keep && !hs.close
	}
	req.Upgrade = hs.upgrade && hs.upField
	if a := targetHost(req.Method, req.Target); a != nil {
		req.Host = a
	}
	return nil
}

// targetHost returns the host a request-target of a valid form names
// itself, which takes the place of the Host field's (RFC 9112 §3.2.2):
// for CONNECT the whole target (authority-form), for an absolute-form
// target with an authority ("scheme://authority…") that authority; nil
// for origin-form, asterisk-form and an absolute-form target without an
// authority ("urn:x"). The authority has no userinfo (targetForm refuses
// it) and is a valid host[:port].
func targetHost(m Method, t []byte) []byte {
	if m == MethodConnect {
		return t
	}
	if len(t) == 0 || t[0] == '/' || t[0] == '*' {
		return nil
	}
	c := bytes.IndexByte(t, ':')
	if c < 0 || len(t) < c+3 || t[c+1] != '/' || t[c+2] != '/' {
		return nil
	}
	a := t[c+3:]
	for i, b := range a {
		if b == '/' || b == '?' {
			return a[:i:i]
		}
	}
	return a[:len(a):len(a)]
}

// Header returns the value of the first header field named name, compared
// without regard to ASCII case, or nil when there is none. The value
// aliases the request's memory (see Request). It allocates nothing and
// costs a walk over req.Headers; for a field that may repeat, range over
// req.Headers.
func (r *Request) Header(name string) []byte {
	for i := range r.Headers {
		if ascii.EqualFold(r.Headers[i].Name, name) {
			return r.Headers[i].Value
		}
	}
	return nil
}
