package query_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/netkit/netkit/codec/query"
)

const (
	shortQuery  = "foo=bar&baz=qux"
	eightParams = "q=golang+generics&lang=en-US&page=2&per_page=50&sort=updated&order=desc&filter=is%3Aopen+label%3Abug&utm_source=news%20letter"
	// unescapeInput mixes plain runs, '+' and %XX as a form field does.
	unescapeInput = "Caf%C3%A9+au+lait%2C+s%27il+vous+pla%C3%AEt%21+%E2%80%94+deux+croissants+%26+un+jus+d%27orange%2C+merci"
)

// escapeInput is 1000 bytes whose first byte needs escaping.
func escapeInput() string {
	return " " + strings.Repeat("abcdefghij", 100)[:999]
}

var sinkErr error

func BenchmarkParse(b *testing.B) {
	for _, q := range []struct{ name, in string }{{"short", shortQuery}, {"8params", eightParams}} {
		b.Run("query="+q.name+"/impl=netkit", func(b *testing.B) {
			var vs query.Values
			in := []byte(q.in)
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				sinkErr = vs.Parse(in)
			}
		})
		b.Run("query="+q.name+"/impl=neturl", func(b *testing.B) {
			b.SetBytes(int64(len(q.in)))
			b.ReportAllocs()
			for b.Loop() {
				_, sinkErr = url.ParseQuery(q.in)
			}
		})
	}
}

func BenchmarkEscape(b *testing.B) {
	in := escapeInput()
	b.Run("impl=netkit", func(b *testing.B) {
		src := []byte(in)
		dst := make([]byte, 0, 2*len(in))
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		for b.Loop() {
			dst = query.AppendEscape(dst[:0], src)
		}
	})
	b.Run("impl=neturl", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		for b.Loop() {
			_ = url.QueryEscape(in)
		}
	})
}

func BenchmarkUnescape(b *testing.B) {
	b.Run("impl=netkit", func(b *testing.B) {
		src := []byte(unescapeInput)
		dst := make([]byte, 0, len(src))
		b.SetBytes(int64(len(src)))
		b.ReportAllocs()
		for b.Loop() {
			dst, sinkErr = query.AppendUnescape(dst[:0], src)
		}
	})
	b.Run("impl=neturl", func(b *testing.B) {
		b.SetBytes(int64(len(unescapeInput)))
		b.ReportAllocs()
		for b.Loop() {
			_, sinkErr = url.QueryUnescape(unescapeInput)
		}
	})
}
