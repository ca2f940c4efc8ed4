package http1

import "github.com/netkit/netkit/buf"

// A Method is a request method. The methods of RFC 9110 §9 and PATCH
// (RFC 5789) have their own value, recognised without allocation; any
// other valid token is MethodOther, spelled out in Request.RawMethod.
type Method uint8

// The well-known methods.
const (
	MethodOther Method = iota
	MethodGet
	MethodHead
	MethodPost
	MethodPut
	MethodDelete
	MethodConnect
	MethodOptions
	MethodTrace
	MethodPatch
)

var methodNames = [...]string{
	MethodOther:   "",
	MethodGet:     "GET",
	MethodHead:    "HEAD",
	MethodPost:    "POST",
	MethodPut:     "PUT",
	MethodDelete:  "DELETE",
	MethodConnect: "CONNECT",
	MethodOptions: "OPTIONS",
	MethodTrace:   "TRACE",
	MethodPatch:   "PATCH",
}

// String returns the method's name, or "" for MethodOther.
func (m Method) String() string {
	if int(m) < len(methodNames) {
		return methodNames[m]
	}
	return ""
}

// A Header is one field of a header or trailer section, as received: Name
// keeps its case, Value has no leading or trailing whitespace. Both alias
// the request's memory (see Request).
type Header struct {
	Name, Value []byte
}

// A Request is a parsed HTTP/1.1 request, filled in place by DecodeBytes or
// Decode and reused for the next request so that its slices keep their
// capacity.
//
// Lifetime: every []byte field aliases the parsed input (for Decode, a
// view of the connection's read buffers, or a pooled copy when the request
// straddles reads) and stays valid until the Request is parsed into again
// or released with Release. Copy what must outlive it.
type Request struct {
	Method    Method
	RawMethod []byte // the method token as sent, for every method
	Target    []byte // the request-target as sent (RFC 9112 §3.2)
	Path      []byte // Target up to the first '?'; of an absolute-form target ("http://a/x"), the path after the authority ("/x", empty for "http://a")
	Query     []byte // Target after the first '?', without it; nil when there is none
	Minor     int    // the minor version: 1 for HTTP/1.1, 0 for HTTP/1.0

	// Headers holds the header fields in the order received.
	Headers []Header

	// What servers need, found while parsing (no second pass). Host is
	// the host the request is for (RFC 9112 §3.2.2): the authority of an
	// absolute-form target ("GET http://a/ …" gives "a", whatever the
	// Host field says), the target of a CONNECT, else the Host field's
	// value; nil when there is none (HTTP/1.0 without Host). The Host
	// field itself stays in Headers.
	Host          []byte
	ContentLength int64 // the body's length before decoding; -1 when chunked
	Chunked       bool  // Transfer-Encoding: chunked
	KeepAlive     bool  // the connection stays open after the response (version and Connection)
	Upgrade       bool  // Connection: upgrade with an Upgrade field
	Expect100     bool  // Expect: 100-continue

	// Body is the whole body, de-chunked; empty when there is none, or
	// when it follows (BodyFollows).
	Body []byte
	// BodyFollows says the body has not arrived with the head and
	// comes from Decoder.DecodeBody (Decoder.StreamBodies).
	BodyFollows bool
	// Trailers holds the trailer fields of a chunked body.
	Trailers []Header

	held *buf.Buffer // the memory the slices alias, for Decode
}

// Release drops the memory the request's slices alias (for a request
// filled by Decode) and clears it; it keeps the slices' capacity.
func (r *Request) Release() {
	if r.held != nil {
		r.held.Release()
		r.held = nil
	}
	r.reset()
}

func (r *Request) reset() {
	*r = Request{Headers: r.Headers[:0], Trailers: r.Trailers[:0], ContentLength: 0}
}
