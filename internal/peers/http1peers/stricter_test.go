package http1peers

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/netkit/netkit/codec/http1"
	"github.com/netkit/netkit/internal/peers/readmetable"
	"github.com/stretchr/testify/assert"
)

// A stricter is a rule netkit enforces and net/http.ReadRequest does not:
// netkit refuses the example with err, net/http reads it (head and body)
// without error. server is the status net/http's server answers the
// example with (its Server checks a few rules after ReadRequest: Host,
// version, Expect); shown, when set, is how README.md shows an example too
// long to print.
type stricter struct {
	rule    string
	err     *http1.Violation
	when    func(in string) bool // nil: the error alone identifies the row
	example string
	shown   string
	server  int
	why     string
}

// stricterRules lists every rule on which netkit rejects what net/http
// accepts. compare (and so TestDifferentialNetHTTP and FuzzParseRequest)
// fails on a netkit rejection that matches no row's error; TestStricter
// checks every row on its example, against ReadRequest and a running
// net/http server.
var stricterRules = []stricter{
	{rule: "Content-Length with Transfer-Encoding", err: http1.ErrLengthAndChunked,
		example: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
		server:  200,
		why:     "net/http drops the Content-Length and reads the chunks; RFC 9112 §6.3 lets a server do so but says the request \"ought to be handled as an error\": a proxy in front that went by the Content-Length sees another request boundary, the classic CL.TE smuggling"},
	{rule: "Transfer-Encoding in HTTP/1.0", err: http1.ErrTransferEncoding,
		example: "POST / HTTP/1.0\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
		server:  200,
		why:     "net/http ignores Transfer-Encoding in HTTP/1.0 and reads no body (or the Content-Length's): the chunks become the next request's bytes; RFC 9112 §6.1 says to treat the framing as faulty and close"},
	{rule: "bare LF", err: http1.ErrBareLF,
		example: "GET / HTTP/1.1\nHost: a\n\n",
		server:  200,
		why:     "net/http's textproto ends lines at LF with or without CR in the request line, the fields and the trailer fields (not in chunk framing); RFC 9112 §2.2 allows it, but a proxy that does not is how a field hidden behind a bare LF gets through; WithAllowBareLF(true) accepts it"},
	{rule: "obs-fold", err: http1.ErrObsFold,
		example: "GET / HTTP/1.1\r\nHost: a\r\nX-A: b\r\n c\r\n\r\n",
		server:  200,
		why:     "net/http joins a continuation line to the field with a space (\"b c\"); RFC 9112 §5.2 lets a server reject it with 400 or replace it, and a proxy that keeps the lines apart reads another field"},
	{rule: "whitespace between field name and colon", err: http1.ErrSpaceBeforeColon,
		example: "GET / HTTP/1.1\r\nHost: a\r\nX-A : b\r\n\r\n",
		server:  400,
		why:     "ReadRequest keeps the field under the name \"X-A \" (with the space; a tab it refuses); its server then refuses the invalid name. RFC 9112 §5.1: a server MUST reject it with 400, since a proxy may strip the space and forward \"Transfer-Encoding\" where the server saw another name"},
	{rule: "space inside a field name", err: http1.ErrHeaderName, when: spaceInName,
		example: "GET / HTTP/1.1\r\nHost: a\r\nX -A: b\r\n\r\n",
		server:  400,
		why:     "ReadRequest keeps the name \"X -A\" (textproto accepts spaces in names, go.dev/issue/34540); its server then refuses the invalid name"},
	{rule: "obs-fold read as an empty Content-Length", err: http1.ErrContentLength, when: hasObsFold,
		example: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length:\r\n 1\r\n\r\nx",
		server:  200,
		why:     "net/http joins the continuation line (Content-Length: 1); netkit refuses the empty value before it sees the fold (ErrObsFold would name it better)"},
	{rule: "CONNECT without Host in HTTP/1.1", err: http1.ErrHost, when: func(in string) bool { return methodIs("CONNECT")(in) && noHost(in) },
		example: "CONNECT a:443 HTTP/1.1\r\n\r\n",
		server:  200,
		why:     "net/http's server requires Host in HTTP/1.1 but for CONNECT; RFC 9112 §3.2's MUST has no exception (RFC 9110 §9.3.6's CONNECT example carries Host)"},
	{rule: "missing Host in HTTP/1.1", err: http1.ErrHost, when: noHost,
		example: "GET / HTTP/1.1\r\n\r\n",
		server:  400,
		why:     "ReadRequest leaves it to the server, which answers 400 (RFC 9112 §3.2 MUST); netkit refuses while parsing"},
	{rule: "invalid Host", err: http1.ErrHost,
		example: "GET / HTTP/1.1\r\nHost: a b\r\n\r\n",
		server:  400,
		why:     "ReadRequest leaves it to the server, which refuses a Host with bytes outside its set (httpguts.ValidHostHeader); netkit's set is RFC 3986's host and port"},
	{rule: "version other than HTTP/1.x", err: http1.ErrVersionNotSupported,
		example: "GET / HTTP/2.0\r\nHost: a\r\n\r\n",
		server:  505,
		why:     "ReadRequest reads any HTTP/d.d (HTTP/0.9, HTTP/2.0); the server answers 505 (it reads \"PRI * HTTP/2.0\" as the HTTP/2 preface when HTTP/2 without TLS is on)"},
	{rule: "Expect that is empty or a list holding 100-continue", err: http1.ErrExpect, when: laxExpect,
		example: "POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue, foo\r\nContent-Length: 1\r\n\r\nx",
		server:  200,
		why:     "net/http's server answers 100 Continue to any Expect holding the token 100-continue and ignores an empty one; netkit takes only 100-continue alone (RFC 9110 §10.1.1 lets a server answer 417 to any other expectation)"},
	{rule: "expectation other than 100-continue", err: http1.ErrExpect,
		example: "POST / HTTP/1.1\r\nHost: a\r\nExpect: foo\r\nContent-Length: 1\r\n\r\nx",
		server:  417,
		why:     "ReadRequest leaves it to the server, which answers 417 (RFC 9110 §10.1.1)"},
	{rule: "fragment in the request-target", err: http1.ErrTarget, when: targetHas("#"),
		example: "GET /a#b HTTP/1.1\r\nHost: a\r\n\r\n",
		server:  200,
		why:     "net/http keeps \"#b\" in the path; RFC 9112 §3.2's request-target has no fragment"},
	{rule: "byte outside RFC 3986 in the request-target", err: http1.ErrTarget, when: targetHas("\"<>\\^`{|}" + nonASCII),
		example: "GET /a\"b HTTP/1.1\r\nHost: a\r\n\r\n",
		server:  200,
		why:     "net/url takes these bytes (and non-ASCII ones) in a path and query; RFC 3986 has them only percent-encoded"},
	{rule: "userinfo, an empty host or a malformed one in an absolute-form target", err: http1.ErrTarget, when: absoluteWithoutHost,
		example: "GET http://u@a/ HTTP/1.1\r\nHost: a\r\n\r\n",
		server:  200,
		why:     "net/url takes \"http://u@a/\", \"http://\" and some hosts outside RFC 3986's grammar (\"a://]\"); RFC 9110 §4.2.4 tells a recipient to treat userinfo as an error (it is how a link hides its real host), and §4.2.1 to reject an http URI with an empty host"},
	{rule: "CONNECT without an authority-form target", err: http1.ErrTarget, when: methodIs("CONNECT"),
		example: "CONNECT /x HTTP/1.1\r\nHost: a\r\n\r\n",
		server:  200,
		why:     "net/http reads a CONNECT with an origin-form target as an ordinary request (its server hands it to the handler); RFC 9112 §3.2.3: CONNECT takes host:port only"},
	{rule: "asterisk-form other than OPTIONS", err: http1.ErrTarget, when: targetIs("*"),
		example: "GET * HTTP/1.1\r\nHost: a\r\n\r\n",
		server:  200,
		why:     "net/http takes \"*\" with any method (its server hands it to the handler); RFC 9112 §3.2.4 has it for OPTIONS only"},
	{rule: "malformed chunk extension", err: http1.ErrChunkExtension,
		example: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3;a b\r\nabc\r\n0\r\n\r\n",
		server:  200,
		why:     "net/http cuts the chunk line at the first ';' and does not look at the rest (a control character, a space in a name, an unclosed quote…); RFC 9112 §7.1.1's chunk-ext is tokens and quoted strings"},
	{rule: "obs-fold or whitespace before the colon in a trailer field", err: http1.ErrTrailer,
		example: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nX-A: b\r\n c\r\n\r\n",
		server:  200,
		why:     "net/http reads trailers with the textproto code of the header section: it joins the continuation line (\"b c\") and keeps \"X-A : b\" under the name \"X-A \", and its server does not look at trailer names; netkit holds a trailer section to the rules of the header section"},
	{rule: "request line over 8 KiB", err: http1.ErrURITooLong,
		example: "GET /" + strings.Repeat("a", 8<<10) + " HTTP/1.1\r\nHost: a\r\n\r\n",
		shown:   "GET /aaa…(8,192 a)… HTTP/1.1",
		server:  200,
		why:     "ReadRequest has no limit; the server's is MaxHeaderBytes, 1 MiB by default, for the request line and fields together; netkit's is WithMaxRequestLine (8 KiB by default)"},
	{rule: "header section over 16 KiB", err: http1.ErrHeaderTooLarge,
		example: "GET / HTTP/1.1\r\nHost: a\r\nX-A: " + strings.Repeat("b", 16<<10) + "\r\n\r\n",
		shown:   "a 16,384-byte field value",
		server:  200,
		why:     "as above: netkit's limit is WithMaxHeaderBytes (16 KiB by default)"},
	{rule: "more than 100 fields", err: http1.ErrTooManyHeaders,
		example: "GET / HTTP/1.1\r\nHost: a\r\n" + strings.Repeat("X-A: b\r\n", 100) + "\r\n",
		shown:   "101 fields",
		server:  200,
		why:     "net/http has no count limit (only MaxHeaderBytes); netkit's is WithMaxHeaders (100 by default)"},
	{rule: "body over 4 MiB", err: http1.ErrBodyTooLarge,
		example: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4194305\r\n\r\n" + strings.Repeat("c", 4<<20+1),
		shown:   "Content-Length: 4194305",
		server:  200,
		why:     "net/http reads any body the handler reads (http.MaxBytesReader is the handler's to add); netkit's limit is WithMaxBodySize (4 MiB by default)"},
}

// documented returns the first row of stricterRules whose error is err's
// kind and whose condition in meets, or nil.
func documented(err error, in []byte) *stricter {
	for i := range stricterRules {
		r := &stricterRules[i]
		if errors.Is(err, r.err) && (r.when == nil || r.when(string(in))) {
			return r
		}
	}
	return nil
}

// head returns the request's head: in up to its first empty line (ended
// by CRLF or LF, as net/http reads it), or all of in.
func head(in string) string {
	for i := 0; i < len(in); {
		j := strings.IndexByte(in[i:], '\n')
		if j < 0 {
			break
		}
		if line := in[i : i+j]; line == "" || line == "\r" {
			return in[:i]
		}
		i += j + 1
	}
	return in
}

// hasObsFold reports whether a line of in's head after the first starts
// with a space or a tab.
func hasObsFold(in string) bool {
	h := head(in)
	return strings.Contains(h, "\n ") || strings.Contains(h, "\n\t")
}

// fieldLines returns the field lines of in's head as net/http reads them:
// line ends CRLF or LF, a line that starts with a space or a tab joined to
// the one before (obs-fold).
func fieldLines(in string) []string {
	var out []string
	for i, l := range strings.Split(head(in), "\n") {
		l = strings.TrimSuffix(l, "\r")
		switch {
		case i == 0 || l == "":
		case (l[0] == ' ' || l[0] == '\t') && len(out) > 0:
			out[len(out)-1] += " " + strings.TrimLeft(l, " \t")
		default:
			out = append(out, l)
		}
	}
	return out
}

// requestLine returns the method and the target of in's request line.
func requestLine(in string) (method, target string) {
	line, _, _ := strings.Cut(in, "\n")
	method, rest, _ := strings.Cut(strings.TrimSuffix(line, "\r"), " ")
	target, _, _ = strings.Cut(rest, " ")
	return method, target
}

const nonASCII = "\x80\x81\x82\x83\x84\x85\x86\x87\x88\x89\x8a\x8b\x8c\x8d\x8e\x8f" +
	"\x90\x91\x92\x93\x94\x95\x96\x97\x98\x99\x9a\x9b\x9c\x9d\x9e\x9f" +
	"\xa0\xa1\xa2\xa3\xa4\xa5\xa6\xa7\xa8\xa9\xaa\xab\xac\xad\xae\xaf" +
	"\xb0\xb1\xb2\xb3\xb4\xb5\xb6\xb7\xb8\xb9\xba\xbb\xbc\xbd\xbe\xbf" +
	"\xc0\xc1\xc2\xc3\xc4\xc5\xc6\xc7\xc8\xc9\xca\xcb\xcc\xcd\xce\xcf" +
	"\xd0\xd1\xd2\xd3\xd4\xd5\xd6\xd7\xd8\xd9\xda\xdb\xdc\xdd\xde\xdf" +
	"\xe0\xe1\xe2\xe3\xe4\xe5\xe6\xe7\xe8\xe9\xea\xeb\xec\xed\xee\xef" +
	"\xf0\xf1\xf2\xf3\xf4\xf5\xf6\xf7\xf8\xf9\xfa\xfb\xfc\xfd\xfe\xff"

// targetHas returns a condition: the request-target holds a byte of set.
func targetHas(set string) func(string) bool {
	return func(in string) bool {
		_, t := requestLine(in)
		for i := 0; i < len(t); i++ {
			if strings.IndexByte(set, t[i]) >= 0 {
				return true
			}
		}
		return false
	}
}

// absoluteWithoutHost is a condition: the request-target is in absolute
// form with an authority ("//") that is not host [":" port] by RFC 3986:
// empty, with userinfo, with a byte outside a reg-name, with a bracket
// that does not enclose an IPv6 literal, or with a port that is not digits.
func absoluteWithoutHost(in string) bool {
	_, t := requestLine(in)
	if strings.HasPrefix(t, "/") {
		return false
	}
	_, rest, ok := strings.Cut(t, "://")
	if !ok {
		return false
	}
	a := rest
	if i := strings.IndexAny(a, "/?"); i >= 0 {
		a = a[:i]
	}
	host, port := a, ""
	if strings.HasPrefix(a, "[") {
		lit, after, ok := strings.Cut(a[1:], "]")
		if !ok || strings.Count(lit, ":") < 2 || strings.Trim(lit, "0123456789abcdefABCDEF:.") != "" {
			return true
		}
		host, port = "x", after
	} else if i := strings.IndexByte(a, ':'); i >= 0 {
		host, port = a[:i], a[i:]
	}
	const regName = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=%"
	if host == "" || strings.Trim(host, regName) != "" {
		return true
	}
	return port != "" && (port[0] != ':' || strings.Trim(port[1:], "0123456789") != "")
}

// targetIs returns a condition: the request-target is t.
func targetIs(t string) func(string) bool {
	return func(in string) bool { _, got := requestLine(in); return got == t }
}

// methodIs returns a condition: the method is m.
func methodIs(m string) func(string) bool {
	return func(in string) bool { got, _ := requestLine(in); return got == m }
}

// noHost reports whether in's head has no Host field.
func noHost(in string) bool {
	for _, l := range fieldLines(in) {
		if name, _, ok := strings.Cut(l, ":"); ok && strings.EqualFold(name, "host") {
			return false
		}
	}
	return true
}

// laxExpect reports whether an Expect field of in's head is empty or
// holds 100-continue among other elements (after unfolding, as net/http
// reads it).
func laxExpect(in string) bool {
	for _, l := range fieldLines(in) {
		name, v, ok := strings.Cut(l, ":")
		if !ok || !strings.EqualFold(name, "expect") {
			continue
		}
		v = strings.ToLower(strings.Trim(v, " \t\r"))
		if v == "" || strings.Contains(v, "100-continue") {
			return true
		}
	}
	return false
}

// spaceInName reports whether a field line of in's head has a space in
// its name.
func spaceInName(in string) bool {
	for _, l := range fieldLines(in) {
		if name, _, ok := strings.Cut(l, ":"); ok && strings.Contains(name, " ") {
			return true
		}
	}
	return false
}

// TestStricter checks every row on its example: netkit refuses it with the
// row's error, ReadRequest reads it and its body, and net/http's server
// answers it with the row's status.
func TestStricter(t *testing.T) {
	for i := range stricterRules {
		r := &stricterRules[i]
		t.Run(r.rule, func(t *testing.T) {
			in := []byte(r.example)
			_, nkErr := NetkitParse(in)
			var se *http1.SyntaxError
			assert.ErrorIs(t, nkErr, r.err, "netkit")
			assert.ErrorAs(t, nkErr, &se, "netkit: want a *SyntaxError")
			_, err := NetHTTPRead(in)
			assert.NoError(t, err, "net/http, want it to accept the example")
			got := documented(nkErr, in)
			assert.Same(t, r, got, "documented finds another row for the example: %v", got)
			status, err := ServerStatus(in)
			if assert.NoError(t, err, "net/http's server") {
				assert.Equal(t, r.server, status, "net/http's server answers another status than the row says")
			}
		})
	}
}

var update = flag.Bool("update", false, "rewrite the tables of README.md from the tests' tables")

// TestReadme checks that README.md holds the stricter and looser tables as
// the tests state them; -update rewrites them.
func TestReadme(t *testing.T) {
	readmetable.Check(t, "README.md", *update,
		readmetable.Table{Name: "stricter", Body: stricterMarkdown()},
		readmetable.Table{Name: "looser", Body: looserMarkdown()})
}

// stricterMarkdown renders stricterRules as README.md's table.
func stricterMarkdown() string {
	var b strings.Builder
	b.WriteString("| rule | example | netkit's error (status) | net/http's server | why |\n|---|---|---|---|---|\n")
	for _, r := range stricterRules {
		ex := r.shown
		if ex == "" {
			ex = fmt.Sprintf("%q", r.example)
		}
		ex = "`" + strings.ReplaceAll(ex, "|", "\\|") + "`"
		fmt.Fprintf(&b, "| %s | %s | `%s` (%d) | %d | %s |\n", r.rule, ex, errName(r.err), r.err.Status, r.server, r.why)
	}
	return b.String()
}

// errName returns the name of a sentinel of codec/http1.
func errName(v *http1.Violation) string {
	for name, e := range map[string]*http1.Violation{
		"ErrRequestLine": http1.ErrRequestLine, "ErrMethod": http1.ErrMethod, "ErrTarget": http1.ErrTarget,
		"ErrVersion": http1.ErrVersion, "ErrVersionNotSupported": http1.ErrVersionNotSupported,
		"ErrURITooLong": http1.ErrURITooLong, "ErrHeaderName": http1.ErrHeaderName,
		"ErrHeaderValue": http1.ErrHeaderValue, "ErrSpaceBeforeColon": http1.ErrSpaceBeforeColon,
		"ErrObsFold": http1.ErrObsFold, "ErrBareLF": http1.ErrBareLF, "ErrHeaderTooLarge": http1.ErrHeaderTooLarge,
		"ErrTooManyHeaders": http1.ErrTooManyHeaders, "ErrHost": http1.ErrHost, "ErrExpect": http1.ErrExpect,
		"ErrContentLength": http1.ErrContentLength, "ErrDuplicateContentLength": http1.ErrDuplicateContentLength,
		"ErrLengthAndChunked": http1.ErrLengthAndChunked, "ErrTransferEncoding": http1.ErrTransferEncoding,
		"ErrUnsupportedCoding": http1.ErrUnsupportedCoding, "ErrBodyTooLarge": http1.ErrBodyTooLarge,
		"ErrChunkSize": http1.ErrChunkSize, "ErrChunkSizeOverflow": http1.ErrChunkSizeOverflow,
		"ErrChunkExtension": http1.ErrChunkExtension, "ErrChunkData": http1.ErrChunkData, "ErrTrailer": http1.ErrTrailer,
	} {
		if e == v {
			return name
		}
	}
	panic("http1peers: unnamed error " + v.Error())
}
