package http1_test

import (
	"fmt"

	"github.com/netkit/netkit/codec/http1"
)

func ExampleAppendStatusLine() {
	fmt.Printf("%q\n", http1.AppendStatusLine(nil, 404))
	fmt.Printf("%q\n", http1.AppendStatusLine(nil, 299))
	// Output:
	// "HTTP/1.1 404 Not Found\r\n"
	// "HTTP/1.1 299 \r\n"
}
