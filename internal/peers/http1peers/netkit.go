package http1peers

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/netkit/netkit/codec/http1"
)

// NetkitParse parses the request at the front of p with netkit's
// http1.Decoder.DecodeBytes: the zero Decoder (the default limits and
// rules), changed by the set functions when there are any. It parses a copy of p, since a
// chunked body is de-chunked in place.
//
// It also checks what Parsed cannot hold: that Method agrees with
// RawMethod, Path and Query with Target (Path being the path after the
// authority for an absolute-form target), and that the consumed length is
// within p; a disagreement is returned as an error that is no
// *http1.SyntaxError, which the tests report.
func NetkitParse(p []byte, set ...func(*http1.Decoder)) (*Parsed, error) {
	in := bytes.Clone(p)
	var req http1.Request
	var d http1.Decoder
	for _, f := range set {
		f(&d)
	}
	n, err := d.DecodeBytes(in, &req)
	if err != nil {
		return nil, err
	}
	if n <= 0 || n > len(p) {
		return nil, fmt.Errorf("netkit consumed %d bytes of %d", n, len(p))
	}
	if m := req.Method.String(); m != "" && m != string(req.RawMethod) || m == "" && req.Method != http1.MethodOther {
		return nil, fmt.Errorf("netkit's Method %d (%q) and RawMethod %q differ", req.Method, m, req.RawMethod)
	}
	path, query, hasQuery := strings.Cut(string(req.Target), "?")
	// The scheme ends at the first ':' ("A:://" has the scheme "A" and no
	// authority, so its Path is the whole target, as for "urn:x").
	if c := strings.IndexByte(path, ':'); c > 0 && strings.HasPrefix(path[c+1:], "//") && req.Method != http1.MethodConnect && !strings.ContainsAny(path[:c], "/*") {
		rest := path[c+3:]
		// An absolute-form target's Path is its path after the authority.
		_, p, _ := strings.Cut(rest, "/")
		path = ""
		if strings.Contains(rest, "/") {
			path = "/" + p
		}
	}
	if string(req.Path) != path || string(req.Query) != query || (req.Query != nil) != hasQuery {
		return nil, fmt.Errorf("netkit's Path %q and Query %q (nil: %v) do not split Target %q", req.Path, req.Query, req.Query == nil, req.Target)
	}
	out := &Parsed{
		Method:        string(req.RawMethod),
		Target:        string(req.Target),
		Major:         1,
		Minor:         req.Minor,
		Host:          string(req.Host),
		HostKnown:     true,
		ContentLength: req.ContentLength,
		Chunked:       req.Chunked,
		KeepAlive:     req.KeepAlive,
		Body:          string(req.Body),
		N:             n,
	}
	for _, h := range req.Headers {
		if l := strings.ToLower(string(h.Name)); !skipped(l) {
			out.Headers = append(out.Headers, Field{l, string(h.Value)})
		}
	}
	for _, h := range req.Trailers {
		out.Trailers = append(out.Trailers, Field{strings.ToLower(string(h.Name)), string(h.Value)})
	}
	return out, nil
}
