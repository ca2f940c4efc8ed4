package buf_test

import (
	"errors"
	"fmt"
	"io"
	"log"
	"net"

	"github.com/netkit/netkit/buf"
)

// maxFrame bounds the length prefix serveFrames accepts.
const maxFrame = 1 << 20

var errFrameTooLarge = errors.New("frame too large")

// serveFrames reads frames of a 4-byte big-endian length and a body from
// conn and answers each with a frame holding "ok " and the body. Reads
// accumulate in a Composite without being copied together; frames are
// parsed across the seams between reads; replies leave with writev.
func serveFrames(conn net.Conn) error {
	in, out := buf.NewComposite(), buf.NewComposite()
	defer in.Release()
	defer out.Release()
	for {
		// Accumulate: each read lands in its own pooled buffer.
		b := buf.Get(4096)
		p := b.AvailableBuffer()
		n, rerr := conn.Read(p[:cap(p)])
		b.Write(p[:n])
		in.Append(b) // in takes b's reference (and releases it if empty)

		// Parse every complete frame; prefix and body may straddle reads.
		for in.Len() >= 4 {
			size := int(in.GetUint32(0))
			if size > maxFrame {
				return errFrameTooLarge
			}
			if in.Len() < 4+size {
				break // the rest of the frame has not arrived yet
			}
			in.Skip(4)
			body := in.RetainedSlice(0, size) // a view with its own references: no copy
			in.Skip(size)
			in.Discard(0) // release the buffers read to their end

			reply := buf.Get(7)
			reply.WriteUint32(uint32(3 + size))
			reply.WriteString("ok ")
			out.Append(reply)
			if size > 0 {
				// One buffer of the body (copied only if it straddled),
				// with a reference of our own that out takes over.
				out.Append(body.Consolidate())
			}
			body.Release()
		}

		// Respond: one writev for all the replies; written buffers go
		// back to the pool.
		if _, err := out.WriteTo(conn); err != nil {
			return err
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return rerr
		}
	}
}

// A server loop built on two composites: one accumulates reads and parses
// length-prefixed frames that straddle them, the other gathers the replies
// for writev. The client sends two frames cut at awkward places.
func ExampleComposite_frames() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	defer ln.Close()
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			log.Fatal(err)
		}
		defer conn.Close()
		if err := serveFrames(conn); err != nil {
			log.Fatal(err)
		}
	}()

	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	// Frames "hello" and "netkit", sent in pieces that split both the
	// prefixes and the bodies.
	for _, piece := range []string{"\x00\x00", "\x00\x05hel", "lo\x00\x00\x00", "\x06net", "kit"} {
		if _, err := conn.Write([]byte(piece)); err != nil {
			log.Fatal(err)
		}
	}
	conn.(*net.TCPConn).CloseWrite()
	replies, err := io.ReadAll(conn)
	if err != nil {
		log.Fatal(err)
	}
	for len(replies) >= 4 {
		n := int(replies[3]) // short frames: the low byte is the length
		fmt.Printf("%q\n", replies[4:4+n])
		replies = replies[4+n:]
	}
	// Output:
	// "ok hello"
	// "ok netkit"
}
