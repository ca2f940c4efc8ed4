package buf_test

import (
	"fmt"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/search"
)

// Index finds a needle in the readable bytes; offsets count from the
// reader index, so consumed bytes do not shift the answer.
func ExampleBuffer_Index() {
	b := buf.Get(64)
	defer b.Release()
	b.WriteString("GET / HTTP/1.1\r\nHost: a\r\n\r\nbody")
	line, _ := b.Next(16) // the request line, consumed
	fmt.Printf("%q\n", line)
	fmt.Println(b.Index([]byte("\r\n\r\n")))
	// Output:
	// "GET / HTTP/1.1\r\n"
	// 7
}

// A Pattern built once serves every buffer: IndexPattern allocates nothing.
func ExampleBuffer_IndexPattern() {
	end := search.NewPattern([]byte("\r\n\r\n"))
	for _, msg := range []string{"Host: a\r\n\r\n", "Host: a\r\n"} {
		b := buf.Get(64)
		b.WriteString(msg)
		fmt.Println(b.IndexPattern(end))
		b.Release()
	}
	// Output:
	// 7
	// -1
}

// IndexSet reports the first of several patterns and which one it was.
func ExampleBuffer_IndexSet() {
	ends := search.NewSet([][]byte{[]byte("\r\n"), []byte("\n")})
	b := buf.Get(64)
	defer b.Release()
	b.WriteString("first line\nsecond\r\n")
	if m, ok := b.IndexSet(ends); ok {
		fmt.Println(m.Start, m.End, m.Pattern)
	}
	// Output: 10 11 1
}
