package http1_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec/http1"
)

func ExampleAppendResponseHeader() {
	h := http1.ResponseHeader{
		Status:        200,
		ContentLength: 13,
		ContentType:   "text/plain",
		Server:        "netkit",
		Headers:       []http1.Header{{Name: []byte("Cache-Control"), Value: []byte("no-store")}},
	}
	date := []byte("Sun, 06 Nov 1994 08:49:37 GMT")
	out, err := http1.AppendResponseHeader(nil, &h, date)
	fmt.Printf("%q %v\n", out, err)

	// A value that would split the response is refused; nothing is written.
	h.Headers[0].Value = []byte("x\r\nSet-Cookie: admin=1")
	out, err = http1.AppendResponseHeader(nil, &h, date)
	fmt.Printf("%q %v %d\n", out, err, http1.StatusOf(err))
	// Output:
	// "HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nServer: netkit\r\nContent-Type: text/plain\r\nContent-Length: 13\r\nCache-Control: no-store\r\n\r\n" <nil>
	// "" http1: response field value with a control character (CR, LF, NUL…) or leading or trailing whitespace (RFC 9110 §5.5): Headers[0] 500
}

func ExampleAppendChunk() {
	h := http1.ResponseHeader{ContentLength: -1, Headers: []http1.Header{{Name: []byte("Trailer"), Value: []byte("X-Count")}}}
	out, _ := http1.AppendResponseHeader(nil, &h, nil)
	out = http1.AppendChunk(out, []byte("Hello, "))
	out = http1.AppendChunk(out, nil) // nothing: a zero-size chunk would end the body
	out = http1.AppendChunk(out, []byte("World!"))
	out, err := http1.AppendLastChunk(out, []http1.Header{{Name: []byte("X-Count"), Value: []byte("2")}})
	fmt.Printf("%q %v\n", out, err)

	// Trailers cannot carry framing.
	_, err = http1.AppendLastChunk(nil, []http1.Header{{Name: []byte("Content-Length"), Value: []byte("13")}})
	fmt.Println(errors.Is(err, http1.ErrResponseFraming))
	// Output:
	// "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Count\r\n\r\n7\r\nHello, \r\n6\r\nWorld!\r\n0\r\nX-Count: 2\r\n\r\n" <nil>
	// true
}

func ExampleResponseWriter() {
	var dates http1.DateCache // one per loop, updated every second
	dates.Update(time.Date(2026, 11, 25, 18, 0, 0, 0, time.UTC))
	w := &http1.ResponseWriter{Dates: &dates}

	// Two pipelined requests for the plaintext endpoint: the responses
	// go into one buffer, for one writev.
	plaintext := http1.ResponseHeader{ContentType: "text/plain", Server: "netkit"}
	hello := []byte("Hello, World!")
	for range 2 {
		if err := w.Respond(&plaintext, hello); err != nil {
			panic(err)
		}
	}
	// A server hands each buffer to eventloop's Conn.Write, which takes
	// over the reference; here they are printed and released.
	for b := w.Take(); b != nil; b = w.Take() {
		fmt.Printf("%q\n", b.Bytes())
		b.Release()
	}

	// A chunked response streamed: copied bytes, then a pooled buffer
	// that goes out without a copy.
	w.WriteHeader(&http1.ResponseHeader{ContentLength: -1})
	w.Write([]byte("Hello, "))
	b := buf.Get(64)
	b.WriteString("World!")
	w.WriteBuffer(b) // w takes over b
	w.End(nil)
	for b := w.Take(); b != nil; b = w.Take() {
		fmt.Printf("%q\n", b.Bytes())
		b.Release()
	}
	// Output:
	// "HTTP/1.1 200 OK\r\nDate: Wed, 25 Nov 2026 18:00:00 GMT\r\nServer: netkit\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, World!HTTP/1.1 200 OK\r\nDate: Wed, 25 Nov 2026 18:00:00 GMT\r\nServer: netkit\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, World!"
	// "HTTP/1.1 200 OK\r\nDate: Wed, 25 Nov 2026 18:00:00 GMT\r\nTransfer-Encoding: chunked\r\n\r\n7\r\nHello, \r\n6\r\n"
	// "World!"
	// "\r\n0\r\n\r\n"
}
