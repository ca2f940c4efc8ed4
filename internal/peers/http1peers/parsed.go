package http1peers

import (
	"fmt"
	"slices"
	"strings"
)

// A Field is one header or trailer field: Name lowercased (net/http
// canonicalises names, netkit keeps them as sent), Value as the parser
// gives it (leading and trailing whitespace removed by both).
type Field struct{ Name, Value string }

// A Parsed is one parser's reading of a request, in the terms every parser
// of the comparisons can give.
//
// Headers holds the fields but Host, Content-Length and Transfer-Encoding,
// which net/http takes out of its Header or rewrites: they are compared
// through Host, ContentLength and Chunked instead.
type Parsed struct {
	Method        string
	Target        string // the request-target as sent
	Major, Minor  int
	Headers       []Field
	Host          string // the Host field's value; "" when absent or not known
	HostKnown     bool   // false when the parser does not say (net/http, absolute-form)
	ContentLength int64  // -1 when chunked
	Chunked       bool
	KeepAlive     bool
	Body          string
	Trailers      []Field
	N             int // bytes of the input the request took
}

// skipped reports whether a field is compared outside Headers.
func skipped(lowerName string) bool {
	switch lowerName {
	case "host", "content-length", "transfer-encoding":
		return true
	}
	return false
}

// sorted returns l sorted by name then value: net/http groups a name's
// values and loses the order of different names, so fields compare as
// multisets.
func sorted(l []Field) []Field {
	out := slices.Clone(l)
	slices.SortStableFunc(out, func(a, b Field) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Value, b.Value)
	})
	return out
}

// Diff returns "" when a and b read the same request, or what differs.
func Diff(a, b *Parsed) string {
	var d []string
	add := func(what string, x, y any) {
		d = append(d, fmt.Sprintf("%s: %q vs %q", what, x, y))
	}
	if a.Method != b.Method {
		add("method", a.Method, b.Method)
	}
	if a.Target != b.Target {
		add("target", a.Target, b.Target)
	}
	if a.Major != b.Major || a.Minor != b.Minor {
		add("version", fmt.Sprint(a.Major, ".", a.Minor), fmt.Sprint(b.Major, ".", b.Minor))
	}
	if !slices.Equal(sorted(a.Headers), sorted(b.Headers)) {
		add("headers", sorted(a.Headers), sorted(b.Headers))
	}
	if a.HostKnown && b.HostKnown && a.Host != b.Host {
		add("host", a.Host, b.Host)
	}
	if a.ContentLength != b.ContentLength {
		add("content-length", fmt.Sprint(a.ContentLength), fmt.Sprint(b.ContentLength))
	}
	if a.Chunked != b.Chunked {
		add("chunked", fmt.Sprint(a.Chunked), fmt.Sprint(b.Chunked))
	}
	if a.KeepAlive != b.KeepAlive {
		add("keep-alive", fmt.Sprint(a.KeepAlive), fmt.Sprint(b.KeepAlive))
	}
	if a.Body != b.Body {
		add("body", a.Body, b.Body)
	}
	if !slices.Equal(sorted(a.Trailers), sorted(b.Trailers)) {
		add("trailers", sorted(a.Trailers), sorted(b.Trailers))
	}
	if a.N != b.N {
		add("bytes read", fmt.Sprint(a.N), fmt.Sprint(b.N))
	}
	return strings.Join(d, "; ")
}
