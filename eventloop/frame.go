package eventloop

import (
	"errors"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec"
)

// A DecoderHandler is a handler that turns the bytes read into messages:
// it runs a codec's stream decoder (the codec contract's
// codec.StreamDecoder) over the connection's inbound composite and fires
// each message it decodes onward to the next ReadHandler, as a T. What
// the message owns, and how long it stays valid, is the codec's to say: a
// codec/frame decoder's *buf.Buffer is the next handler's to Release; a
// message that borrows the input is valid until that handler returns. A
// partial message stays in the composite for the next read, and counts as
// no progress for WithIdleTimeout.
//
// Errors go to OnError. After a *codec.SyntaxError for which the decoder
// consumed input (a frame it dropped as too long, say) decoding goes on;
// any other error, or a syntax error that consumed nothing, closes the
// connection, so that a stream the decoder cannot get past is never
// retried for ever.
//
// Decoders keep state between reads, so each connection needs its own:
// add it from an Initializer.
//
//	eventloop.Listen(g, "tcp", addr, eventloop.Initializer(func(c *eventloop.Conn) {
//		c.Pipeline().AddLast("frames", eventloop.NewDecoderHandler(&frame.Line{}))
//		c.Pipeline().AddLast("app", app)
//	}))
type DecoderHandler[T any] struct {
	d   codec.StreamDecoder[T]
	msg T // Decode's destination: a field, so that &msg costs no allocation
}

// NewDecoderHandler returns a handler decoding messages with d.
func NewDecoderHandler[T any](d codec.StreamDecoder[T]) *DecoderHandler[T] {
	return &DecoderHandler[T]{d: d}
}

// A FrameDecoder is the DecoderHandler of frame decoders (codec/frame),
// which fire each frame as a *buf.Buffer the next ReadHandler owns.
type FrameDecoder = DecoderHandler[*buf.Buffer]

// NewFrameDecoder returns a handler decoding frames with d, a codec/frame
// decoder: NewDecoderHandler for messages that are buffers.
func NewFrameDecoder(d codec.StreamDecoder[*buf.Buffer]) *FrameDecoder {
	return NewDecoderHandler(d)
}

// OnRead implements ReadHandler. Messages other than a *buf.Composite pass
// through.
func (h *DecoderHandler[T]) OnRead(x *Context, msg any) {
	in, ok := msg.(*buf.Composite)
	if !ok {
		x.FireRead(msg)
		return
	}
	c := x.Conn()
	var zero T
	for c.state&csClosed == 0 {
		n := in.Len()
		err := h.d.Decode(in, &h.msg)
		switch {
		case err == nil:
			m := h.msg
			h.msg = zero // the handler keeps no reference to what it fired
			x.FireRead(m)
		case err == codec.ErrShort, errors.Is(err, codec.ErrShort):
			return
		default:
			x.FireError(err)
			var se *codec.SyntaxError
			if !errors.As(err, &se) || in.Len() == n {
				x.Close()
				return
			}
		}
	}
}
