package eventloop

import (
	"errors"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec/frame"
)

// A FrameDecoder is a handler that turns the bytes read into whole frames:
// it runs a codec/frame Decoder over the connection's inbound composite and
// fires each frame onward as a *buf.Buffer the next ReadHandler owns
// (Release it once). A partial frame stays in the composite for the next
// read, and counts as no progress for WithIdleTimeout. A frame the decoder
// drops (a *frame.SyntaxError: too long, a bad length) is reported to
// OnError and decoding goes on; any other decoder error closes the
// connection.
//
// Decoders keep state between reads, so each connection needs its own:
// add it from an Initializer.
//
//	eventloop.Listen(g, "tcp", addr, eventloop.Initializer(func(c *eventloop.Conn) {
//		c.Pipeline().AddLast("frames", eventloop.NewFrameDecoder(&frame.Line{}))
//		c.Pipeline().AddLast("app", app)
//	}))
type FrameDecoder struct {
	d frame.Decoder
}

// NewFrameDecoder returns a handler decoding frames with d.
func NewFrameDecoder(d frame.Decoder) *FrameDecoder { return &FrameDecoder{d: d} }

// OnRead implements ReadHandler. Messages other than a *buf.Composite pass
// through.
func (f *FrameDecoder) OnRead(x *Context, msg any) {
	in, ok := msg.(*buf.Composite)
	if !ok {
		x.FireRead(msg)
		return
	}
	c := x.Conn()
	for c.state&csClosed == 0 {
		fr, err := f.d.Decode(in)
		switch {
		case err == nil:
			x.FireRead(fr)
		case errors.Is(err, frame.ErrShort):
			return
		default:
			x.FireError(err)
			var se *frame.SyntaxError
			if !errors.As(err, &se) {
				x.Close()
				return
			}
		}
	}
}
