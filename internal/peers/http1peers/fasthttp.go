package http1peers

import (
	"bufio"
	"bytes"
	"strings"

	"github.com/valyala/fasthttp"
)

// FastHTTPRead reads the request at the front of p as fasthttp's server
// does: Request.Read over a bufio.Reader, head and body (de-chunked). The
// fields are the head's as received (AllInOrder); fasthttp keeps no
// trailers of a request apart from its Trailer field, so Trailers is
// empty, and Host is the Host field's (it does not look at the target).
func FastHTTPRead(p []byte) (*Parsed, error) {
	src := bytes.NewReader(p)
	br := bufio.NewReader(src)
	var req fasthttp.Request
	if err := req.Read(br); err != nil {
		return nil, err
	}
	h := &req.Header
	out := &Parsed{
		Method:        string(h.Method()),
		Target:        string(h.RequestURI()),
		Major:         1,
		Host:          string(h.Host()),
		HostKnown:     true,
		ContentLength: int64(h.ContentLength()),
		KeepAlive:     !h.ConnectionClose(),
		Body:          string(req.Body()),
		N:             len(p) - src.Len() - br.Buffered(),
	}
	switch out.ContentLength {
	case -1:
		out.Chunked = true
	case -2: // fasthttp's "no Content-Length": a request without a body
		out.ContentLength = 0
	}
	if h.IsHTTP11() {
		out.Minor = 1
	}
	for name, value := range h.AllInOrder() {
		l := strings.ToLower(string(name))
		if skipped(l) {
			if l == "transfer-encoding" && strings.EqualFold(strings.TrimSpace(string(value)), "chunked") {
				out.Chunked = true
			}
			continue
		}
		out.Headers = append(out.Headers, Field{l, string(value)})
	}
	return out, nil
}
