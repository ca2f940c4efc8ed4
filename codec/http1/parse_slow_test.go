package http1

import (
	"net/netip"
	"strconv"
	"strings"
)

// slowParse is the reference the fuzz target checks DecodeBytes against: the
// rules of the package's documentation written out one at a time on
// strings, with character sets spelled as strings, no tables and no
// tricks. It returns what DecodeBytes would fill, the length taken, and nil,
// ErrShort or the *Violation refused.
func slowParse(c config, in []byte) (r slowReq, n int, kind error) {
	defer func() {
		if kind != nil {
			r, n = slowReq{}, 0
		}
	}()
	p := string(in)

	// readLine returns the line from start (its line end removed) and
	// the offset after its LF, looking for the LF before limitEnd only.
	readLine := func(start, limitEnd int, tooLong *Violation) (string, int, error) {
		end := min(len(p), limitEnd)
		i := strings.IndexByte(p[start:end], '\n')
		if i < 0 {
			if len(p) >= limitEnd {
				return "", 0, tooLong
			}
			return "", 0, ErrShort
		}
		line := p[start : start+i]
		if strings.HasSuffix(line, "\r") {
			line = line[:len(line)-1]
		} else if !c.allowBareLF {
			return "", 0, ErrBareLF
		}
		return line, start + i + 1, nil
	}

	line, pos, err := readLine(0, c.maxRequestLine, ErrURITooLong)
	if err != nil {
		return r, 0, err
	}
	if err := slowRequestLine(&r, line); err != nil {
		return r, 0, err
	}

	// The header section.
	hdrStart := pos
	var hosts, teFields int
	var clSeen bool
	var teCodings []string
	var connOpts []string
	var upgradeField, expect bool
	for {
		line, next, err := readLine(pos, hdrStart+max(c.maxHeaderBytes, 0), ErrHeaderTooLarge)
		if err != nil {
			return r, 0, err
		}
		pos = next
		if line == "" {
			break
		}
		name, value, err := slowField(line)
		if err != nil {
			return r, 0, err
		}
		if len(r.headers) >= c.maxHeaders {
			return r, 0, ErrTooManyHeaders
		}
		r.headers = append(r.headers, [2]string{name, value})
		switch strings.ToLower(name) {
		case "host":
			hosts++
			if strings.Trim(value, slowHostChars) != "" {
				return r, 0, ErrHost
			}
			v := value
			r.host = &v
		case "expect":
			if strings.ToLower(value) != "100-continue" {
				return r, 0, ErrExpect
			}
			expect = true
		case "upgrade":
			upgradeField = true
		case "connection":
			for _, e := range strings.Split(value, ",") {
				connOpts = append(connOpts, strings.ToLower(strings.Trim(e, " \t")))
			}
		case "content-length":
			if value == "" || strings.Trim(value, "0123456789") != "" {
				return r, 0, ErrContentLength
			}
			v, err := strconv.ParseInt(value, 10, 64)
			if err != nil {
				return r, 0, ErrContentLength
			}
			if clSeen && v != r.cl {
				return r, 0, ErrDuplicateContentLength
			}
			clSeen, r.cl = true, v
		case "transfer-encoding":
			teFields++
			for _, e := range strings.Split(value, ",") {
				e = strings.Trim(e, " \t")
				if e == "" {
					return r, 0, ErrTransferEncoding
				}
				name, params, _ := strings.Cut(e, ";")
				if strings.ContainsAny(name, " \t") {
					// Whitespace is allowed only before ';'.
					if strings.Trim(name, " \t") != strings.TrimRight(name, " \t") || strings.TrimRight(name, " \t") == "" || !strings.Contains(e, ";") {
						return r, 0, ErrTransferEncoding
					}
					name = strings.TrimRight(name, " \t")
				}
				if name == "" || strings.Trim(name, slowTokenChars) != "" {
					return r, 0, ErrTransferEncoding
				}
				if strings.ToLower(name) == "chunked" {
					if strings.Contains(e, ";") {
						return r, 0, ErrTransferEncoding
					}
					teCodings = append(teCodings, "chunked")
				} else {
					_ = params
					teCodings = append(teCodings, "other")
				}
			}
		}
	}
	// Checks of the whole section.
	if hosts > 1 || hosts == 0 && r.minor == 1 {
		return r, 0, ErrHost
	}
	if teFields > 0 {
		chunkedCount := 0
		other := false
		for _, e := range teCodings {
			if e == "chunked" {
				chunkedCount++
			} else {
				other = true
			}
		}
		switch {
		case r.minor == 0:
			return r, 0, ErrTransferEncoding
		case clSeen:
			return r, 0, ErrLengthAndChunked
		case chunkedCount != 1 || teCodings[len(teCodings)-1] != "chunked":
			return r, 0, ErrTransferEncoding
		case other:
			return r, 0, ErrUnsupportedCoding
		}
		r.chunked = true
		r.cl = -1
	} else if r.cl > c.maxBodySize {
		return r, 0, ErrBodyTooLarge
	}
	has := func(opt string) bool {
		for _, o := range connOpts {
			if o == opt {
				return true
			}
		}
		return false
	}
	if r.minor == 1 {
		r.keepAlive = !has("close")
		r.expect100 = expect
	} else {
		r.keepAlive = has("keep-alive") && !has("close")
	}
	r.upgrade = has("upgrade") && upgradeField
	// The target's own host wins over the Host field (RFC 9112 §3.2.2).
	if r.method == MethodConnect {
		t := r.target
		r.host = &t
	} else if _, rest, _ := strings.Cut(r.target, ":"); r.target[0] != '/' && strings.HasPrefix(rest, "//") {
		a, _, _ := strings.Cut(rest[2:], "/")
		a, _, _ = strings.Cut(a, "?")
		r.host = &a
	}

	if !r.chunked {
		if int64(len(p)-pos) < r.cl {
			return r, 0, ErrShort
		}
		r.body = p[pos : pos+int(r.cl)]
		return r, pos + int(r.cl), nil
	}

	// The chunked body.
	bodyStart := pos
	var body strings.Builder
	for {
		// A size of 16 digits is refused as soon as they are in, whatever
		// follows.
		partial := p[pos:min(len(p), pos+maxChunkLine)]
		if len(partial)-len(strings.TrimLeft(partial, "0123456789abcdefABCDEF")) > 15 {
			return r, 0, ErrChunkSizeOverflow
		}
		line, next, err := readLine(pos, pos+maxChunkLine, ErrChunkExtension)
		if err != nil {
			return r, 0, err
		}
		size, err := slowChunkLine(line)
		if err != nil {
			return r, 0, err
		}
		if size == 0 {
			pos = next
			break
		}
		// Framing so far, the data and its CRLF count against the limit.
		if int64(next-bodyStart)+size+2 > c.maxBodySize {
			return r, 0, ErrBodyTooLarge
		}
		if int64(len(p)-next) < size {
			return r, 0, ErrShort
		}
		de := next + int(size)
		body.WriteString(p[next:de])
		rest := p[de:]
		switch {
		case strings.HasPrefix(rest, "\r\n"):
			pos = de + 2
		case rest == "" || rest == "\r":
			return r, 0, ErrShort
		case rest[0] == '\n' && c.allowBareLF:
			pos = de + 1
		case rest[0] == '\n':
			return r, 0, ErrBareLF
		default:
			return r, 0, ErrChunkData
		}
	}
	trStart := pos
	for {
		line, next, err := readLine(pos, trStart+max(c.maxTrailer, 0), ErrHeaderTooLarge)
		if err != nil {
			return r, 0, err
		}
		pos = next
		if line == "" {
			break
		}
		name, value, err := slowField(line)
		if err != nil {
			return r, 0, ErrTrailer
		}
		if len(r.trailers) >= c.maxHeaders {
			return r, 0, ErrTooManyHeaders
		}
		r.trailers = append(r.trailers, [2]string{name, value})
	}
	r.body = body.String()
	return r, pos, nil
}

type slowReq struct {
	method                                 Method
	rawMethod, target, path                string
	query                                  *string
	minor                                  int
	headers, trailers                      [][2]string
	host                                   *string
	cl                                     int64
	chunked, keepAlive, upgrade, expect100 bool
	body                                   string
}

const (
	slowAlnum      = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	slowTokenChars = slowAlnum + "!#$%&'*+-.^_`|~"
	slowHostChars  = slowAlnum + "-._~!$&'()*+,;=:[]%"
	// RFC 3986: unreserved, gen-delims but '#', sub-delims, '%'.
	slowTargetChars = slowAlnum + "-._~:/?[]@!$&'()*+,;=%"
)

func slowRequestLine(r *slowReq, line string) error {
	// The method: the longest run of token characters, then one SP.
	i := 0
	for i < len(line) && strings.IndexByte(slowTokenChars, line[i]) >= 0 {
		i++
	}
	if i == len(line) {
		return ErrRequestLine
	}
	if i == 0 || line[i] != ' ' {
		return ErrMethod
	}
	r.rawMethod = line[:i]
	r.method = MethodOther
	for m := MethodGet; m <= MethodPatch; m++ {
		if m.String() == r.rawMethod {
			r.method = m
		}
	}
	rest := line[i+1:]
	j := 0
	for j < len(rest) && strings.IndexByte(slowTargetChars, rest[j]) >= 0 {
		j++
	}
	if j == len(rest) {
		return ErrRequestLine
	}
	if j == 0 || rest[j] != ' ' {
		return ErrTarget
	}
	t := rest[:j]
	path, _, _ := strings.Cut(t, "?")
	if scheme, rest, ok := strings.Cut(path, ":"); ok && !strings.HasPrefix(path, "/") && !strings.HasPrefix(rest, "/") && scheme != "" {
		path = "" // an opaque absolute-form target is not checked
	}
	for k := 0; k < len(path); k++ {
		if path[k] == '%' && (k+2 >= len(path) || !isHexString(path[k+1:k+3])) {
			return ErrTarget
		}
	}
	switch {
	case r.method == MethodConnect:
		if _, port, ok := cutLast(t, ":"); !ok || port == "" || strings.ContainsAny(t, "/?") || !slowAuthority("//"+t) {
			return ErrTarget
		}
	case t == "*":
		if r.method != MethodOptions {
			return ErrTarget
		}
	case t[0] == '/':
	default:
		scheme, _, ok := strings.Cut(t, ":")
		if !ok || scheme == "" || !strings.Contains("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", scheme[:1]) ||
			strings.Trim(scheme, slowAlnum+"+-.") != "" {
			return ErrTarget
		}
		if !slowAuthority(t[len(scheme)+1:]) {
			return ErrTarget
		}
	}
	r.target = t
	r.path = t
	if a, b, ok := strings.Cut(t, "?"); ok {
		r.path = a
		r.query = &b
	}
	// The path of "scheme://authority/path" starts at the authority's end.
	if scheme, rest, ok := strings.Cut(r.path, "://"); ok && r.method != MethodConnect && scheme != "" && !strings.ContainsAny(scheme, "/*") {
		r.path = ""
		if k := strings.Index(rest, "/"); k >= 0 {
			r.path = rest[k:]
		}
	}
	v := rest[j+1:]
	if len(v) != 8 || !strings.HasPrefix(v, "HTTP/") || v[6] != '.' ||
		!strings.Contains("0123456789", v[5:6]) || !strings.Contains("0123456789", v[7:8]) {
		return ErrVersion
	}
	if v[5] != '1' {
		return ErrVersionNotSupported
	}
	r.minor = 1
	if v[7] == '0' {
		r.minor = 0
	}
	return nil
}

func cutLast(s, sep string) (string, string, bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// slowField splits a field line into name and value (RFC 9112 §5).
func slowField(line string) (name, value string, err error) {
	if line[0] == ' ' || line[0] == '\t' {
		return "", "", ErrObsFold
	}
	colon := strings.IndexByte(line, ':')
	if colon < 0 {
		return "", "", ErrHeaderName
	}
	name = line[:colon]
	if trimmed := strings.TrimRight(name, " \t"); trimmed != name && trimmed != "" &&
		strings.Trim(trimmed, slowTokenChars) == "" {
		return "", "", ErrSpaceBeforeColon
	}
	if name == "" || strings.Trim(name, slowTokenChars) != "" {
		return "", "", ErrHeaderName
	}
	value = strings.Trim(line[colon+1:], " \t")
	for i := 0; i < len(value); i++ {
		if c := value[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return "", "", ErrHeaderValue
		}
	}
	return name, value, nil
}

// slowChunkLine parses chunk-size and chunk extensions (RFC 9112 §7.1).
func slowChunkLine(line string) (int64, error) {
	digits := 0
	for digits < len(line) && strings.IndexByte("0123456789abcdefABCDEF", line[digits]) >= 0 {
		digits++
	}
	if digits == 0 {
		return 0, ErrChunkSize
	}
	if digits > 15 {
		return 0, ErrChunkSizeOverflow
	}
	size, err := strconv.ParseInt(line[:digits], 16, 64)
	if err != nil {
		return 0, ErrChunkSizeOverflow
	}
	ext := line[digits:]
	if ext != "" && ext[0] != ';' {
		if strings.Trim(ext, " \t") == "" {
			return size, nil // whitespace ending the line
		}
		return 0, ErrChunkSize
	}
	ws := func() {
		ext = strings.TrimLeft(ext, " \t")
	}
	token := func() string {
		i := 0
		for i < len(ext) && strings.IndexByte(slowTokenChars, ext[i]) >= 0 {
			i++
		}
		t := ext[:i]
		ext = ext[i:]
		return t
	}
	for ext != "" {
		ws()
		if ext == "" || ext[0] != ';' {
			return 0, ErrChunkExtension
		}
		ext = ext[1:]
		ws()
		if token() == "" {
			return 0, ErrChunkExtension
		}
		if after := strings.TrimLeft(ext, " \t"); strings.HasPrefix(after, "=") {
			ext = after[1:]
			ws()
			if strings.HasPrefix(ext, `"`) {
				// quoted-string: qdtext or a backslash and any of HTAB, SP,
				// VCHAR, obs-text.
				i, closed := 1, false
				for i < len(ext) && !closed {
					ch := ext[i]
					switch {
					case ch == '"':
						closed = true
					case ch == '\\':
						i++
						if i == len(ext) || ext[i] < 0x20 && ext[i] != '\t' || ext[i] == 0x7f {
							return 0, ErrChunkExtension
						}
					case ch < 0x20 && ch != '\t' || ch == 0x7f:
						return 0, ErrChunkExtension
					}
					i++
				}
				if !closed {
					return 0, ErrChunkExtension
				}
				ext = ext[i:]
			} else if token() == "" {
				return 0, ErrChunkExtension
			}
		}
	}
	return size, nil
}

func isHexString(s string) bool {
	return s != "" && strings.Trim(s, "0123456789abcdefABCDEF") == ""
}

// slowAuthority is the authority rule of an absolute-form target, written
// out with strings: after "//", up to '/', '?' or the end, a host (a
// non-empty reg-name, or an IPv6 literal in brackets holding hex digits,
// '.' and at least two ':') and an optional ":" port of digits; no
// userinfo.
func slowAuthority(rest string) bool {
	a, ok := strings.CutPrefix(rest, "//")
	if !ok {
		return true
	}
	if i := strings.IndexAny(a, "/?"); i >= 0 {
		a = a[:i]
	}
	var port string
	if strings.HasPrefix(a, "[") {
		lit, after, ok := strings.Cut(a[1:], "]")
		if ip, err := netip.ParseAddr(lit); !ok || err != nil || !ip.Is6() || ip.Zone() != "" {
			return false
		}
		if after != "" && after[0] != ':' {
			return false
		}
		port = after
	} else {
		host, p, found := strings.Cut(a, ":")
		if host == "" || strings.Trim(host, slowAlnum+"-._~!$&'()*+,;=%") != "" {
			return false
		}
		// Escapes in a host: "%25", or a byte of 0x80 or more.
		for _, part := range strings.Split(host, "%")[1:] {
			if len(part) < 2 || !isHexString(part[:2]) {
				return false
			}
			if v, _ := strconv.ParseUint(part[:2], 16, 8); v < 0x80 && v != 0x25 {
				return false
			}
		}
		if found {
			port = ":" + p
		}
	}
	return port == "" || strings.Trim(port[1:], "0123456789") == ""
}
