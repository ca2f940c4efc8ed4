// Package http1peers compares netkit's codec/http1 request parser with
// net/http's (http.ReadRequest, then the body) and fasthttp's.
package http1peers
