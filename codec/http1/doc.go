// Package http1 parses HTTP/1.1 requests (RFC 9112) and writes responses,
// without allocating, and strictly: every framing ambiguity that lets
// requests be smuggled past a proxy is refused with a typed error that
// names the status to answer (see StatusOf).
//
// The package follows the conventions of package codec: no I/O, no panics
// on any input, ErrShort when more input is needed, errors of type
// *SyntaxError carrying the offset and one of the exported *Violation
// kinds, and limits on by default.
package http1
