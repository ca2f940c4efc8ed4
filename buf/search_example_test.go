package buf_test

import (
	"fmt"

	"github.com/netkit/netkit/buf"
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
