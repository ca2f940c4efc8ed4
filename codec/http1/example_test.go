package http1_test

import (
	"fmt"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec/http1"
)

func ExampleDecoder_DecodeBytes() {
	p := []byte("GET /search?q=netkit HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n")
	var d http1.Decoder // the zero Decoder has the default limits
	var req http1.Request
	n, err := d.DecodeBytes(p, &req)
	if err != nil {
		fmt.Println(err, http1.StatusOf(err))
		return
	}
	fmt.Println(n == len(p), req.Method, string(req.Path), string(req.Query), string(req.Host), req.KeepAlive)
	fmt.Printf("%s\n", req.Header("accept"))

	// A request that could be smuggled is refused with the status to answer.
	_, err = d.DecodeBytes([]byte("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"), &req)
	fmt.Println(err, http1.StatusOf(err))
	// Output:
	// true GET /search q=netkit example.com true
	// */*
	// http1: both Content-Length and Transfer-Encoding (RFC 9112 §6.3) at offset 45 400
}

func ExampleDecoder_Decode() {
	d := &http1.Decoder{MaxHeaders: 20}
	in := buf.NewComposite()
	defer in.Release()
	read := func(s string) { // what a connection's reads would append
		b := buf.Get(len(s))
		b.Write([]byte(s))
		in.Append(b)
	}
	// Two pipelined requests in one read, the second chunked and cut short.
	read("GET /a HTTP/1.1\r\nHost: x\r\n\r\n" +
		"POST /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel")
	var req http1.Request
	defer req.Release()
	for {
		err := d.Decode(in, &req)
		if err == http1.ErrShort {
			if in.Len() == 0 {
				break
			}
			fmt.Println("waiting for more bytes")
			read("lo\r\n0\r\n\r\n") // the next read
			continue
		}
		if err != nil {
			fmt.Println(err, http1.StatusOf(err))
			return
		}
		fmt.Printf("%v %s body %q\n", req.Method, req.Path, req.Body)
	}
	// Output:
	// GET /a body ""
	// waiting for more bytes
	// POST /b body "hello"
}
