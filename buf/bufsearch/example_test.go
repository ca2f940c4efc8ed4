package bufsearch_test

import (
	"fmt"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/buf/bufsearch"
	"github.com/netkit/netkit/search"
)

// A Searcher finds the first of several patterns even when it straddles the
// buffers that make up the composite; kept, it searches again without
// allocating.
func ExampleSearcher_IndexSet() {
	c := buf.NewComposite()
	defer c.Release()
	for _, piece := range []string{"GET /index.html HTTP/1.1\r\nHo", "st: a\r", "\n\r\n"} {
		b := buf.Get(len(piece))
		b.WriteString(piece)
		c.Append(b)
	}
	var s bufsearch.Searcher
	ends := search.NewSet([][]byte{[]byte("\r\n\r\n"), []byte("\n\n")})
	if m, ok := s.IndexSet(c, ends); ok {
		fmt.Printf("headers end at %d..%d\n", m.Start, m.End)
	}
	fmt.Println(s.Index(c, search.NewPattern([]byte("Host:"))))
	// Output:
	// headers end at 33..37
	// 26
}
