// Package http1 parses HTTP/1.1 requests (RFC 9112) and writes responses,
// without allocating, and strictly: every framing ambiguity that lets
// requests be smuggled past a proxy is refused with a typed error that
// names the status to answer (see StatusOf).
//
// The package follows the conventions of package codec: no I/O, no panics
// on any input, ErrShort when more input is needed, errors of type
// *SyntaxError carrying the offset and one of the exported *Violation
// kinds, and limits on by default.
//
// # Parsing requests
//
// ParseRequest and Decoder.Parse parse one whole request from a []byte;
// Decoder.Decode parses the request at the front of a connection's
// *buf.Composite, whether it arrives over several reads or several arrive
// in one. Both fill a Request in place, whose slices alias the input.
//
// What is refused, each with its own *Violation: a request line, header
// section or header count over its limit; a method, target, field name or
// field value with a character its grammar does not allow (field values
// may hold obs-text, 0x80–0xFF); whitespace between a field name and its
// colon; obs-fold; a line ended by LF alone (unless WithAllowBareLF); a
// Content-Length that is not 1*DIGIT or overflows, or two that differ;
// Content-Length with Transfer-Encoding; a Transfer-Encoding whose last
// coding is not chunked, that names chunked twice, or in an HTTP/1.0
// request; a transfer coding other than chunked (501); a missing or
// repeated Host in HTTP/1.1; an Expect other than 100-continue (417); a
// chunk size that is not hex or has more than 15 digits, a malformed chunk
// extension (RFC 9112 §7.1.1 grammar) or chunk line longer than 4 KiB,
// chunk data not followed by CRLF, a malformed trailer field; a body over
// the limit (413). A request without Content-Length or Transfer-Encoding
// has no body (RFC 9112 §6.3).
//
// Decisions where the RFCs leave a choice: HTTP/1.2 to HTTP/1.9 are parsed
// as HTTP/1.1 (RFC 9110 §2.5); empty lines before the request line are
// refused rather than skipped; the request-target may hold only the
// characters RFC 3986 allows (so not '"', '<', '>', '\', '^', '`', '{',
// '|', '}', nor '#'); an absolute-form target's authority is not compared
// with the Host field, it replaces it in Request.Host (RFC 9112 §3.2.2),
// as a CONNECT's target does, and its path after the authority is
// Request.Path ("/x" for "http://a/x", as for the origin-form "/x"); an Expect: 100-continue in HTTP/1.0 is
// ignored (RFC 9110 §10.1.1).
package http1
