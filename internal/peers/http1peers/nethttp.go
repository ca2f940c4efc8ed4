package http1peers

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strings"
)

// NetHTTPRead reads the request at the front of p as net/http's server
// does: http.ReadRequest over a bufio.Reader, then the whole body with
// io.ReadAll, then the trailers. An error from the body counts as the
// request's: the server could not have read it.
//
// net/http takes Host out of the Header (and for an absolute-form target
// takes the host from the target instead), keeps one Content-Length of
// identical duplicates and drops it for a chunked body, drops
// Transfer-Encoding, and adds "Cache-Control: no-cache" to a request that
// has "Pragma: no-cache" and no Cache-Control; Parsed leaves those fields
// out of Headers, and NetHTTPRead takes the added one out again.
func NetHTTPRead(p []byte) (*Parsed, error) {
	src := bytes.NewReader(p)
	br := bufio.NewReader(src)
	req, err := http.ReadRequest(br)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	out := &Parsed{
		Method:        req.Method,
		Target:        req.RequestURI,
		Major:         req.ProtoMajor,
		Minor:         req.ProtoMinor,
		ContentLength: req.ContentLength,
		Chunked:       len(req.TransferEncoding) > 0 && req.TransferEncoding[0] == "chunked",
		KeepAlive:     !req.Close,
		Body:          string(body),
		N:             len(p) - src.Len() - br.Buffered(),
	}
	if req.URL.Host == "" {
		out.Host, out.HostKnown = req.Host, true
	}
	addedCC := len(req.Header["Cache-Control"]) == 1 && req.Header.Get("Cache-Control") == "no-cache" &&
		req.Header.Get("Pragma") == "no-cache" && !sentCacheControl(p)
	for name, values := range req.Header {
		l := strings.ToLower(name)
		if skipped(l) || (addedCC && l == "cache-control") {
			continue
		}
		for _, v := range values {
			out.Headers = append(out.Headers, Field{l, v})
		}
	}
	for name, values := range req.Trailer {
		for _, v := range values {
			out.Trailers = append(out.Trailers, Field{strings.ToLower(name), v})
		}
	}
	return out, nil
}

// sentCacheControl reports whether the head at the front of p (up to its
// first empty line, ended by CRLF or LF as net/http reads it) has a field
// named Cache-Control.
func sentCacheControl(p []byte) bool {
	for len(p) > 0 {
		line, rest, _ := bytes.Cut(p, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			return false
		}
		if name, _, ok := bytes.Cut(line, []byte(":")); ok && strings.EqualFold(string(name), "cache-control") {
			return true
		}
		p = rest
	}
	return false
}
