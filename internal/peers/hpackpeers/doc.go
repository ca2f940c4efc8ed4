// Package hpackpeers compares netkit's codec/hpack with
// golang.org/x/net/http2/hpack, the HPACK codec of every Go HTTP/2 stack.
package hpackpeers
