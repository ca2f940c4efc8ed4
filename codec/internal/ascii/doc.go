// Package ascii holds the byte-class rules the codecs share, in one copy:
// the character classes of HTTP and URIs (RFC 9110 tchar, qdtext and
// VCHAR; RFC 3986 request-target, host, scheme and unreserved bytes) in
// one 256-entry table, the field-value check (RFC 9110 §5.5), ASCII case
// folding and hex digits, and the SWAR ("SIMD within a register") word
// tests that let a scanner look at eight bytes per step.
//
// Everything here is a pure function of its arguments or a read-only
// table: safe for concurrent use, allocation-free, and small enough that
// the one-byte helpers inline into the codecs' loops.
package ascii
