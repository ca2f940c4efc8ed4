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

// A FrameSource is what a codec/frame decoder offers for batches: Each
// lends every complete frame of a composite in turn, and Retained, called
// while a frame is lent, returns it as a buffer to keep.
type FrameSource interface {
	Each(in *buf.Composite, f func(frame []byte) error) error
	Retained() *buf.Buffer
}

// A FrameDecoder is the handler of codec/frame decoders: it fires each
// frame onward to the next ReadHandler as a *Frame, lent: nothing is
// counted, pooled or copied for a frame the handler only looks at, and a
// handler that keeps one calls Frame.Retain. Errors are handled as
// DecoderHandler handles them. Decoders keep state between reads, so each
// connection needs its own: add it from an Initializer.
//
//	eventloop.Listen(g, "tcp", addr, eventloop.Initializer(func(c *eventloop.Conn) {
//		c.Pipeline().AddLast("frames", eventloop.NewFrameDecoder(&frame.Line{}))
//		c.Pipeline().AddLast("app", app)
//	}))
type FrameDecoder struct {
	d     FrameSource
	x     *Context // during OnRead
	frame Frame
	fire  func(frame []byte) error // h.lend, bound once
}

// NewFrameDecoder returns a handler lending the frames d decodes.
func NewFrameDecoder(d FrameSource) *FrameDecoder {
	h := &FrameDecoder{d: d}
	h.fire = h.lend
	return h
}

// A Frame is a frame lent to a ReadHandler by a FrameDecoder: Bytes is
// valid until the handler's OnRead returns (the frame aliases the bytes
// read, or for a frame that straddled reads, the decoder's scratch). A
// handler that keeps the frame past that calls Retain once.
type Frame struct {
	p []byte
	h *FrameDecoder // nil once OnRead has returned
}

// Bytes returns the frame's bytes, valid until the handler's OnRead
// returns.
func (f *Frame) Bytes() []byte { return f.p }

// Len returns the frame's length.
func (f *Frame) Len() int { return len(f.p) }

// Retain returns the frame as a buffer the caller owns and must Release: a
// view of the read holding it (nothing copied), or a copy when the frame
// straddled reads. It panics after the handler's OnRead has returned.
func (f *Frame) Retain() *buf.Buffer {
	if f.h == nil {
		panic("eventloop: Frame.Retain after OnRead returned")
	}
	return f.h.d.Retained()
}

// errStopFrames ends a FrameDecoder's Each when a handler closed the
// connection.
var errStopFrames = errors.New("eventloop: connection closed")

func (h *FrameDecoder) lend(p []byte) error {
	h.frame.p, h.frame.h = p, h
	h.x.FireRead(&h.frame)
	h.frame.p, h.frame.h = nil, nil
	if h.x.Conn().state&csClosed != 0 {
		return errStopFrames
	}
	return nil
}

// OnRead implements ReadHandler. Messages other than a *buf.Composite pass
// through.
func (h *FrameDecoder) OnRead(x *Context, msg any) {
	in, ok := msg.(*buf.Composite)
	if !ok {
		x.FireRead(msg)
		return
	}
	c := x.Conn()
	h.x = x
	for c.state&csClosed == 0 {
		n := in.Len()
		err := h.d.Each(in, h.fire)
		if err == nil || err == errStopFrames {
			break
		}
		x.FireError(err)
		var se *codec.SyntaxError
		if !errors.As(err, &se) || in.Len() == n {
			x.Close()
			break
		}
	}
	h.x = nil
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
