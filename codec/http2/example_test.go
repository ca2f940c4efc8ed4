package http2_test

import (
	"errors"
	"fmt"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec/http2"
)

// A connection's read side: frames off the input as they are whole, the
// header block's fragments in order, errors sorted into stream errors
// (reset the stream, go on) and connection errors (GOAWAY, close).
func ExampleDecoder() {
	var wire []byte
	wire, _ = http2.AppendHeaders(wire, 1, false, false, []byte("first half|"))
	wire, _ = http2.AppendContinuation(wire, 1, true, []byte("second half"))
	wire, _ = http2.AppendData(wire, 1, true, []byte("hello"))
	wire, _ = http2.AppendWindowUpdate(wire, 3, 0)                                         // refused: an increment of 0
	wire = append(wire, 0, 0, 4, byte(http2.FrameWindowUpdate), 0, 0, 0, 0, 3, 0, 0, 0, 0) // sent anyway

	in := buf.NewComposite()
	defer in.Release()
	in.Append(buf.Wrap(wire))
	var d http2.Decoder
	var b http2.Block
	var f http2.Frame
	for {
		err := d.Decode(in, &f)
		if errors.Is(err, http2.ErrShort) {
			break
		}
		if v := http2.ViolationOf(err); v != nil {
			if !v.Stream {
				fmt.Println("GOAWAY", v.Code)
				return
			}
			if _, _, err := b.Next(&f); err != nil { // its place in a block still counts
				fmt.Println("GOAWAY", http2.ViolationOf(err).Code)
				return
			}
			fmt.Println("RST_STREAM", f.StreamID, v.Code)
			continue
		}
		fragment, end, err := b.Next(&f)
		if err != nil {
			fmt.Println("GOAWAY", http2.ViolationOf(err).Code)
			return
		}
		switch {
		case fragment != nil:
			fmt.Printf("stream %d block fragment %q, end %v\n", f.StreamID, fragment, end)
		case f.Type == http2.FrameData:
			fmt.Printf("stream %d data %q, end of stream %v\n", f.StreamID, f.Data, f.EndStream())
		}
	}
	// Output:
	// stream 1 block fragment "first half|", end false
	// stream 1 block fragment "second half", end true
	// stream 1 data "hello", end of stream true
	// RST_STREAM 3 PROTOCOL_ERROR
}

// A server's connection state: the client's frames go through Recv, the
// events drive the application, and what the Conn owes the client
// (SETTINGS, their ACK, WINDOW_UPDATE) goes out with the response.
func ExampleConn() {
	c := http2.NewConn(http2.Config{StreamWindow: 64 << 10})
	out := c.Pending(nil) // the server's SETTINGS and connection window

	var wire []byte // what a client sends after its preface
	wire = http2.AppendSettings(wire)
	wire, _ = http2.AppendHeaders(wire, 1, false, true, []byte{0x82, 0x86, 0x84}) // an HPACK block
	wire, _ = http2.AppendData(wire, 1, false, make([]byte, 16000))
	wire, _ = http2.AppendData(wire, 1, true, make([]byte, 16000))

	var d http2.Decoder
	var f http2.Frame
	for len(wire) > 0 {
		n, err := d.DecodeBytes(wire, &f)
		if err != nil {
			fmt.Println(err)
			return
		}
		wire = wire[n:]
		ev, err := c.Recv(&f)
		if err != nil {
			fmt.Println(err)
			return
		}
		switch ev {
		case http2.EventStream:
			fmt.Println("request on stream", f.StreamID)
		case http2.EventData:
			fmt.Println("body bytes:", len(f.Data), "end:", f.EndStream())
			c.Consumed(f.StreamID, len(f.Data)) // the application took them
		case http2.EventSettings:
			fmt.Println("client settings applied")
		}
	}
	out = c.Pending(out[:0])
	out, _ = c.AppendHeaders(out, 1, []byte{0x88}, false) // ":status: 200"
	out, sent, _ := c.AppendData(out, 1, []byte("hello"), true)
	fmt.Println("sent", sent, "body bytes; stream 1 is", c.State(1))
	for len(out) > 0 {
		n, _ := d.DecodeBytes(out, &f)
		out = out[n:]
		fmt.Println(" ", f.Type, f.StreamID)
	}
	// Output:
	// client settings applied
	// request on stream 1
	// body bytes: 16000 end: false
	// body bytes: 16000 end: true
	// sent 5 body bytes; stream 1 is closed
	//   SETTINGS 0
	//   HEADERS 1
	//   DATA 1
}
