package httpserver

import (
	"context"
	"io"
	"runtime/debug"
	"time"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec/http1"
	"github.com/netkit/netkit/eventloop"
)

// takeAt is how many response bytes the loop's writer may hold before
// they move to the connection's queue in the middle of a read's requests,
// so that the connection's water marks see them (backpressure) and the
// writer's buffers stay small. Below it, one read's responses go out as
// one buffer.
const takeAt = 16 << 10

// pauseHook, when set (by tests), is called each time a connection stops
// reading for backpressure.
var pauseHook func()

// Responses the server writes itself.
var (
	continueHeader = http1.ResponseHeader{Status: 100}
	noResponse     = http1.ResponseHeader{Status: 500, ContentType: "text/plain; charset=utf-8"}
	noResponseBody = []byte("the handler wrote no response\n")
)

// conn is one connection's pipeline handler: its parser state, its
// request, and the input kept while it is paused.
type conn struct {
	s   *Server
	cn  *eventloop.Conn
	x   *eventloop.Context // the handler's place in cn's pipeline
	dec *http1.Decoder
	req http1.Request
	w   http1.ResponseWriter // holds no buffer between reads

	// Detached responses (detach.go).
	inHandler bool      // the Handler is running: Detach may be called
	current   *Detached // what the running Handler detached
	held      []held    // output held back behind a detached response, in order
	waiting   int       // detached responses not yet sent
	heldBytes int       // bytes of the responses in held

	// Timeouts (timeout.go).
	phase    uint8           // what the connection waits for of the client
	since    int64           // when that wait began (for a body: the last read)
	lastRead int64           // when bytes last arrived
	clock    int64           // the time read at the start of this event, else 0
	reqs     uint32          // requests handled, in all
	reqsMark uint32          // reqs at the last settle
	inLen    int             // input left unparsed after the last serve
	sentAt   int64           // when the client last took bytes of queued responses; 0: nothing queued
	sentMark int64           // sent() then
	handed   int64           // response bytes handed to the connection, in all
	timer    eventloop.Timer // the pending check, due at timerAt (0: none)
	timerAt  int64
	heldBack bool // reading paused at the detached bound
	dead     bool // the connection has closed
	ctx      context.Context
	cancel   context.CancelFunc

	bodyNext bool           // a streamed body follows the last request (body.go)
	pipe     *bodyPipe      // its reader, when the Handler asked for it
	trailers *http1.Request // scratch for a streamed body's trailer fields

	remote   string                    // the client's address, for Adapt (remoteAddr)
	upgrade  func(*eventloop.Pipeline) // Upgrade's install, for after the Handler
	upgraded bool                      // the connection left HTTP

	pending *buf.Composite // input not yet parsed while reading is paused
	closing bool           // the last response answered a request after which the connection closes
	refused bool           // the request was refused: close after the peer stops sending (linger)
	paused  bool           // reading paused until the connection is writable again

	closeSent bool // close has run
}

// lingerTimeout bounds how long a connection whose request was refused
// keeps reading (and dropping) what the client still sends, after its
// answer and FIN went out, before it closes. Closing a socket with unread
// input makes the kernel send a reset, which can destroy the answer in
// the client's receive buffer before the client has read it.
const lingerTimeout = 2 * time.Second

// OnRead answers every complete request in the inbound composite.
func (c *conn) OnRead(x *eventloop.Context, msg any) {
	in, ok := msg.(*buf.Composite)
	if !ok {
		x.FireRead(msg)
		return
	}
	c.lastRead = c.now() // bytes received: the body timeout's progress
	c.clock = c.lastRead // settle's time, for this event
	if c.pending != nil {
		// Bytes that were on their way when reading paused: after the
		// ones kept, in order.
		moveAll(c.pending, in)
		in = c.pending
	}
	c.serve(x, in)
}

// serve parses and answers the requests in in, in order, until in holds
// no complete request, the connection is to close, or it has become
// unwritable; then it hands the responses to the connection and flushes
// them (one writev for all of them).
func (c *conn) serve(x *eventloop.Context, in *buf.Composite) {
	w := &c.w
	for !c.closing && in.Len() > 0 {
		if c.bodyNext {
			if !c.feedBody(in) {
				break // the rest of the body is still to come, or the framing is lost
			}
			continue
		}
		if c.holdBack() {
			c.heldBack = true
			break
		}
		if c.reqs == 0 && c.s.opts.h2c {
			switch prefaceState(in) {
			case prefaceShort:
				c.settle(in.Len())
				return
			case prefaceYes:
				c.switchH2(x, in)
				return
			}
		}
		err := c.dec.Decode(in, &c.req)
		if err == http1.ErrShort {
			break
		}
		if err == http1.ErrContinue {
			// The client waits for this before it sends the body; the
			// next Decode returns ErrShort until the body is complete.
			// (Only HTTP/1.1 requests get here.)
			w.Begin(nil)
			w.WriteHeader(&continueHeader)
			continue
		}
		if err != nil {
			if c.reqs == 0 && c.s.opts.h2c && !http1Line(in) {
				// Neither HTTP/1.x nor HTTP/2's preface: perhaps an
				// HTTP/2 client gone wrong, which could not read an
				// HTTP/1.1 answer (RFC 9113 §3.4): close.
				in.Discard(in.Len())
				c.closing = true
				break
			}
			c.refuse(w, err)
			break
		}
		if c.s.opts.h2c && c.req.Upgrade && c.waiting == 0 {
			if settings, ok := h2cSettings(&c.req); ok {
				c.take(w) // the responses before it go first
				if c.upgradeH2(x, in, settings) {
					return
				}
			}
		}
		c.bodyNext = c.req.BodyFollows
		c.handle(x, w)
		if c.upgrade != nil {
			c.take(w)
			c.switchProtocol(x, in)
			return
		}
		if w.Len() >= takeAt {
			c.take(w)
			if !x.Conn().Writable() {
				c.paused = true
				break
			}
		}
	}
	c.take(w)
	if c.closing {
		in.Discard(in.Len())
		c.releasePending()
		if len(c.held) == 0 {
			c.close(x)
		} else {
			// A detached response is still to come: read no more, and
			// close once it has gone (pump).
			x.Conn().PauseRead()
			x.Flush()
		}
		return
	}
	if !x.Conn().Writable() {
		c.paused = true
	}
	left := in.Len()
	if c.paused || c.heldBack {
		if in != c.pending && in.Len() > 0 {
			if c.pending == nil {
				c.pending = buf.NewComposite()
			}
			moveAll(c.pending, in)
		}
		x.Conn().PauseRead()
		if pauseHook != nil {
			pauseHook()
		}
	} else if in == c.pending && in.Len() == 0 {
		c.releasePending()
	}
	x.Flush()
	c.settle(left)
}

// handle runs the Handler on the request just parsed and checks the
// response it wrote: exactly one final response per request, framed for
// the request (the writer's Begin).
func (c *conn) handle(x *eventloop.Context, w *http1.ResponseWriter) {
	c.reqs++
	w.Begin(&c.req)
	done := false
	defer func() {
		if !done {
			c.inHandler = false
			c.recovered(x, w, recover())
		}
	}()
	c.inHandler = true
	c.s.h(w, &c.req)
	c.inHandler = false
	done = true
	if c.upgrade != nil {
		// Switching protocols: the 101 is the answer.
		c.req.Release()
		return
	}
	if d := c.current; d != nil {
		// Detached: the response comes later, in this place. What the
		// Handler wrote to w after Detach is dropped.
		c.current = nil
		w.AbortResponse()
		c.take(w) // the responses before it, so that they go first
		c.detached(d)
		c.req.Release()
		return
	}
	switch {
	case w.Open():
		// A streamed response the Handler did not end: ended here when
		// it is whole (a chunked body, or all of its Content-Length);
		// else it is broken, and the connection closes after it.
		if w.End(nil) != nil {
			c.closing = true
		}
	case !w.Answered():
		// No final response (nothing, a 1xx, or one the writer refused).
		h := noResponse
		h.Close = !c.req.KeepAlive
		w.Respond(&h, noResponseBody)
	}
	if !c.req.KeepAlive || w.MustClose() {
		c.closing = true
	}
	c.req.Release()
}

// recovered, called by handle's deferred function with what recover
// returned, stops a Handler's panic v: what the Handler wrote is dropped,
// the responses to the requests before it (in the writer, and queued) go
// out, and the connection closes after them. The panic goes on to the
// group's Config.OnPanic, from a task of the loop and as a *HandlerPanic,
// which holds the Handler's stack: rethrown here, the loop would close the
// connection at once, dropping those responses.
func (c *conn) recovered(x *eventloop.Context, w *http1.ResponseWriter, v any) {
	if v == nil {
		return // runtime.Goexit: not a panic
	}
	p := &HandlerPanic{Value: v, Stack: debug.Stack()}
	c.upgrade = nil
	if d := c.current; d != nil {
		// Detached, then panicked: the connection closes, so the
		// detached work learns it as if it had closed.
		c.current = nil
		d.state.CompareAndSwap(dOpen, dDead)
		d.gone = true // a Flush already on its way learns it on the loop
	}
	w.AbortResponse()
	c.req.Release()
	c.closing = true
	if x.Conn().Loop().Execute(func() { panic(p) }) != nil {
		panic(p) // the loop is closing: report it the only way left
	}
}

// close closes the connection after the responses queued: at once after
// a request that asked for it, and after a refusal by half-closing first,
// dropping what the client still sends until it closes its side too (the
// tail closes the connection on the client's FIN) or lingerTimeout passes.
func (c *conn) close(x *eventloop.Context) {
	if c.closeSent {
		return
	}
	c.closeSent = true
	if !c.refused {
		c.cn.Close() // flushes first
		return
	}
	cn := x.Conn()
	cn.CloseWrite() // flushes first
	cn.Loop().Schedule(lingerTimeout, func() { cn.Close() })
}

// refuse answers a request the parser refused, and marks the connection
// to close: its framing is lost.
func (c *conn) refuse(w *http1.ResponseWriter, err error) {
	c.req.Release()
	c.closing, c.refused = true, true
	w.Begin(nil) // the request is not known
	h := http1.ResponseHeader{
		Status:      http1.StatusOf(err),
		Close:       true,
		ContentType: "text/plain; charset=utf-8",
	}
	if w.Respond(&h, []byte(err.Error()+"\n")) != nil {
		h.Status = 400
		w.Respond(&h, nil)
	}
}

// OnWritabilityChanged resumes a paused connection once its queue has
// drained below the low water mark: the requests kept are answered first.
func (c *conn) OnWritabilityChanged(x *eventloop.Context, writable bool) {
	if writable && len(c.held) > 0 {
		if d := c.held[0].d; d != nil && d.waiting {
			d.waiting = false
			d.resume <- nil // a streaming producer goes on
		}
	}
	if !writable || !c.paused || c.closing {
		return
	}
	c.paused = false
	if c.heldBack {
		c.settle(c.inLen)
		return // pump resumes once a detached response is done
	}
	x.Conn().ResumeRead()
	if c.pending != nil {
		c.serve(x, c.pending)
	} else {
		c.settle(c.inLen)
	}
}

// OnReadClosed: the client has shut down its sending side (a request
// sent with a half-close, say). Without it the pipeline's tail would close
// the connection once the queue drained, dropping any detached response
// still on its way; instead the connection closes once every response
// owed has gone; their context is cancelled meanwhile, as net/http
// cancels a request's on the client's EOF. A streamed body cut short ends
// its reader with io.ErrUnexpectedEOF.
func (c *conn) OnReadClosed(x *eventloop.Context) {
	if c.pipe != nil {
		c.pipe.end(io.ErrUnexpectedEOF)
		c.pipe = nil
	}
	c.bodyNext = false
	if c.refused || len(c.held) == 0 {
		c.closeSent = true
		x.Close() // after what is queued, as the tail would
		return
	}
	// The client can send nothing more: as net/http does, the requests'
	// context ends (work for them may stop), but their answers still go
	// out if they come.
	if c.cancel != nil {
		c.cancel()
	}
	c.closing = true // pump closes after the last held response
	c.settle(c.inLen)
}

// OnInactive drops what the connection held.
func (c *conn) OnInactive(x *eventloop.Context) {
	c.req.Release()
	c.releasePending()
	if c.pipe != nil {
		c.pipe.end(ErrBodyGone)
		c.pipe = nil
	}
	c.drop()
	if c.timerAt != 0 {
		c.timer.Cancel() // frees the timer now, not at its time
		c.timerAt = 0
	}
}

func (c *conn) releasePending() {
	if c.pending != nil {
		c.pending.Release()
		c.pending = nil
	}
}

// take moves the responses written so far to the connection's queue, or
// behind the detached response they follow (out).
func (c *conn) take(w *http1.ResponseWriter) {
	for b := w.Take(); b != nil; b = w.Take() {
		c.out(b)
	}
}

// moveAll moves src's readable bytes to the end of dst without copying
// them: each component's bytes as a view of its buffer.
func moveAll(dst, src *buf.Composite) {
	for src.Len() > 0 {
		b, err := src.NextRetained(len(src.Span(0)))
		if err != nil {
			return
		}
		dst.Append(b)
	}
	src.Discard(0)
}
