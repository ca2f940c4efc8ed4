package buf_test

import (
	"fmt"
	"io"
	"log"
	"net"

	"github.com/netkit/netkit/buf"
)

// Reads arrive in pieces; a Composite accumulates them without copying and
// parses a length-prefixed frame whose header and body straddle the pieces.
func ExampleComposite() {
	c := buf.NewComposite()
	defer c.Release()

	// Three reads: the 4-byte length prefix itself is split across two.
	for _, piece := range []string{"\x00\x00", "\x00\x0bhello", ", world!"} {
		b := buf.Get(len(piece))
		b.WriteString(piece)
		c.Append(b) // the composite now holds b's reference
	}

	for {
		if c.Len() < 4 {
			break
		}
		n := int(c.GetUint32(0)) // peek at the length, across the seam
		if c.Len() < 4+n {
			break // wait for more reads
		}
		c.Skip(4)
		body, _ := c.Next(n) // aliases one component, or a scratch copy
		fmt.Printf("frame of %d bytes: %s\n", n, body)
		c.Discard(0) // release the buffers that have been read to the end
	}
	fmt.Println("left over:", c.Len(), "bytes in", c.NumComponents(), "component(s)")
	// Output:
	// frame of 11 bytes: hello, worl
	// left over: 2 bytes in 1 component(s)
}

// WriteTo sends every component with writev and releases each buffer once
// it has been written.
func ExampleComposite_WriteTo() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	defer ln.Close()
	got := make(chan string)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			log.Fatal(err)
		}
		defer conn.Close()
		b, _ := io.ReadAll(conn)
		got <- string(b)
	}()

	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		log.Fatal(err)
	}
	c := buf.NewComposite()
	for _, part := range []string{"HTTP/1.1 200 OK\r\n", "Content-Length: 5\r\n\r\n", "hello"} {
		b := buf.Get(len(part))
		b.WriteString(part)
		c.Append(b)
	}
	n, err := c.WriteTo(conn) // one writev; the buffers go back to the pool
	if err != nil {
		log.Fatal(err)
	}
	conn.Close()
	fmt.Printf("wrote %d bytes, %d left\n", n, c.Len())
	fmt.Printf("%q\n", <-got)
	c.Release()
	// Output:
	// wrote 43 bytes, 0 left
	// "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
}

// Index finds a needle even when it straddles the buffers that make up
// the composite.
func ExampleComposite_Index() {
	c := buf.NewComposite()
	defer c.Release()
	for _, piece := range []string{"GET /index.html HTTP/1.1\r\nHo", "st: a\r", "\n\r\n"} {
		b := buf.Get(len(piece))
		b.WriteString(piece)
		c.Append(b)
	}
	fmt.Println(c.Index([]byte("\r\n\r\n")))
	fmt.Println(c.Index([]byte("Host:")))
	// Output:
	// 33
	// 26
}

// ReaderIndex and SetReaderIndex let a parser back out of a message that
// has not fully arrived: save the index, read, and restore it when the
// message is short. Nothing is released in between.
func ExampleComposite_ReaderIndex() {
	c := buf.NewComposite()
	defer c.Release()
	parse := func() {
		mark := c.ReaderIndex()
		n, err := c.ReadUint16()
		if err == nil {
			var body []byte
			if body, err = c.Next(int(n)); err == nil {
				fmt.Printf("frame %q\n", body)
				return
			}
		}
		c.SetReaderIndex(mark) // incomplete: back out and wait for more
		fmt.Printf("short: %d bytes held\n", c.Len())
	}
	for _, piece := range []string{"\x00\x05he", "llo"} {
		b := buf.Get(len(piece))
		b.WriteString(piece)
		c.Append(b)
		parse()
	}
	// Output:
	// short: 4 bytes held
	// frame "hello"
}

// NextRetained hands out the next bytes as a buffer the caller keeps after
// the composite has moved on: a view (no copy) when they lie in one read,
// a copy when they straddle two.
func ExampleComposite_NextRetained() {
	c := buf.NewComposite()
	defer c.Release()
	for _, read := range []string{"GET /a\n", "GET ", "/b\n"} {
		b := buf.Get(len(read))
		b.WriteString(read)
		c.Append(b)
	}
	first, _ := c.NextRetained(7)  // within the first read: a view
	second, _ := c.NextRetained(7) // across the second and third: a copy
	c.Discard(0)                   // the composite lets go of what was read
	fmt.Printf("%q %q\n", first.Bytes(), second.Bytes())
	first.Release()
	second.Release()
	// Output: "GET /a\n" "GET /b\n"
}
