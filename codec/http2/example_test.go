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
