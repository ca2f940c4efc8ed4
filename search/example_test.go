package search_test

import (
	"fmt"

	"github.com/netkit/netkit/search"
)

func ExamplePattern_Index() {
	p := search.NewPattern([]byte("\r\n\r\n"))
	req := []byte("GET / HTTP/1.1\r\nHost: example.com\r\n\r\nbody")
	fmt.Println(p.Index(req))
	fmt.Println(p.Index([]byte("GET / HTTP/1.1\r\n")))
	// Output:
	// 33
	// -1
}

func ExampleIndex() {
	// A needle searched once needs no Pattern.
	req := []byte("GET / HTTP/1.1\r\nHost: example.com\r\n\r\nbody")
	fmt.Println(search.Index(req, []byte("Host: ")))
	// Output: 16
}

func ExampleKMP_Matcher() {
	m := search.NewKMP([]byte("needle")).Matcher()
	// The second match straddles the two chunks.
	for _, chunk := range []string{"a needle in a hay", "stack, a nee", "dle"} {
		m.Feed([]byte(chunk))
		for match, ok := m.Next(); ok; match, ok = m.Next() {
			fmt.Println(match.Start, match.End)
		}
	}
	// Output:
	// 2 8
	// 26 32
}

func ExamplePattern_Matcher() {
	// A header terminator split across two reads is still found, at its
	// offset in the stream.
	m := search.NewPattern([]byte("\r\n\r\n")).Matcher()
	for _, read := range []string{"GET / HTTP/1.1\r\nHost: a\r\n\r", "\nGET /2 HTTP/1.1\r\n\r\n"} {
		m.Feed([]byte(read))
		for match, ok := m.Next(); ok; match, ok = m.Next() {
			fmt.Println("headers end at", match.End)
		}
	}
	// Output:
	// headers end at 27
	// headers end at 46
}
