// Package hpack implements HPACK, the header compression of HTTP/2 (RFC
// 7541), with the limits and the header-list validation (RFC 9113 §8) an
// HTTP/2 server needs.
package hpack
