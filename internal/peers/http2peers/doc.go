// Package http2peers compares netkit's codec/http2 with
// golang.org/x/net/http2's Framer, the frame layer of every Go HTTP/2
// stack. FuzzFramer feeds one byte stream to both (netkit's Decoder with
// a Block for the header-block order, x/net's Framer.ReadFrame) and
// requires the same frames and the same verdict: the same error code, for
// a stream or for the connection, at the same frame. The differences that
// are netkit's choice are listed in differences and explained there.
package http2peers
