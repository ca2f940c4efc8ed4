package httpserver

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec/http1"
	"github.com/netkit/netkit/eventloop"
)

// ErrConnClosed is what Detached.Done returns when the connection closed
// before the response could be sent: the response is dropped.
var ErrConnClosed = errors.New("httpserver: the connection closed before the response was sent")

// DefaultMaxDetached is how many detached requests a connection may have
// waiting for their responses before it stops reading (WithMaxDetached).
const DefaultMaxDetached = 16

// WithMaxDetached bounds the detached requests a connection may have
// waiting for their responses: at n, the server stops reading from the
// connection (a pipelining client's further requests wait in its socket)
// until one of them is done. n ≤ 0 means DefaultMaxDetached.
func WithMaxDetached(n int) Option {
	return func(o *options) { o.maxDetached = n }
}

// A Detached is a response answered after its Handler returned, from any
// goroutine: the Handler calls Detach, copies what it needs of the request
// (the request is valid only during the call), hands the Detached to
// other work, and returns. That work writes the response to Writer and
// calls Done.
//
// Responses leave in request order: the responses to requests pipelined
// after a detached one wait until it is done. A Detached is for one
// goroutine at a time. Its connection closing — the client went away, a
// Server.Close, an error — cancels Context, and Done then returns
// ErrConnClosed; writing to Writer meanwhile is harmless (the buffers are
// released by Done). Every Detached must end with Done: until then the
// connection holds the response's place (and Server.Shutdown waits for
// it).
type Detached struct {
	c      *conn              // HTTP/1.1's connection, or nil
	h2     *h2conn            // HTTP/2's connection, or nil
	sid    uint32             // and the stream
	cancel context.CancelFunc // HTTP/2: the stream's context
	w      http1.ResponseWriter
	req    http1.Request // what w's framing rules need of the request
	ctx    context.Context
	state  atomic.Uint32 // dOpen, dSent or dDead

	ready bool // on the loop: Done's response has arrived
	gone  bool // on the loop: its place was dropped (the connection closes)

	// Streaming (Flush): the producer waits on resume for the loop's
	// word that it may go on; early holds what Flush handed over before
	// the response reached the front of the output.
	resume  chan error
	early   []*buf.Buffer
	waiting bool // on the loop: a Flush waits for the front, or for writability
	aborted bool // abort: no response; the connection closes in its place
}

// Detached states.
const (
	dOpen uint32 = iota // the Handler's work is writing it
	dSent               // Done handed it to the loop
	dDead               // the connection closed while it was open
)

// Detach takes the response to the request being handled off the
// Handler's call: the Handler returns without answering, and the Detached
// answers later, from any goroutine (see Detached). Call it from the
// Handler, before writing anything to w; what the Handler writes to w
// afterwards is dropped. The response follows the request's rules as they
// were at Detach (HEAD, HTTP/1.0, KeepAlive): clear req.KeepAlive before
// Detach to close the connection after the response, or set the
// response's Close.
//
// Detach panics when w is not a writer the server handed to a Handler
// that is running, or when it is called twice for one request.
func Detach(w *http1.ResponseWriter) *Detached {
	d := new(Detached)
	detachInto(w, d)
	return d
}

// detachInto is Detach into a Detached the caller allocated (Adapt's
// exchange holds one).
func detachInto(w *http1.ResponseWriter, d *Detached) {
	if h, ok := w.Owner.(*h2conn); ok {
		h.detachH2(d)
		return
	}
	c, ok := w.Owner.(*conn)
	if !ok || !c.cn.Loop().InLoop() || !c.inHandler {
		panic("httpserver: Detach called outside a Handler")
	}
	if c.current != nil {
		panic("httpserver: Detach called twice for one request")
	}
	d.c, d.ctx = c, c.context()
	d.req.Method, d.req.Minor, d.req.KeepAlive = c.req.Method, c.req.Minor, c.req.KeepAlive
	d.w.Dates, d.w.Alloc, d.w.BufferSize = c.w.Dates, c.w.Alloc, detachedBuffer
	d.w.Begin(&d.req)
	c.current = d
}

// detachedBuffer is the size of a detached response's buffers until it
// streams (Write, Flush): a short answer waits in one of these, not in a
// connection-sized one, while the responses before it are outstanding
// (16 held per connection by default).
const detachedBuffer = 1 << 10

// loop is the loop of d's connection.
func (d *Detached) loop() *eventloop.Loop {
	if d.h2 != nil {
		return d.h2.cn.Loop()
	}
	return d.c.cn.Loop()
}

// Writer returns the writer the response goes to: Respond, or
// WriteHeader, Write and End (or WriteHeaderOnly), as in a Handler. What
// it holds is sent when Done is called.
func (d *Detached) Writer() *http1.ResponseWriter { return &d.w }

// Context returns a context that is cancelled when the request's
// connection closes, or when the client shuts down its sending side (as
// net/http's request context is): work that would answer it can stop.
// Done still sends the answer to a half-closed client.
func (d *Detached) Context() context.Context { return d.ctx }

// Flush hands what Writer holds so far to the connection and blocks the
// calling goroutine until the connection can take more: until the
// response is at the front of the connection's output (the responses
// before it are out) and the connection's queue is below its low water
// mark. A response streamed as Writer().WriteHeader, then Write and Flush
// in turns, then End and Done, so runs at the client's pace with memory
// bounded by the water marks and one Flush's worth of bytes, however
// large the body. Flush returns ErrConnClosed when the connection has
// closed (call Done all the same: it releases what is left). Do not call
// it on the connection's loop: it would wait for itself.
func (d *Detached) Flush() error {
	if d.state.Load() != dOpen {
		return ErrConnClosed
	}
	d.w.BufferSize = responseBuffer // streaming: full-sized buffers from now on
	var bufs []*buf.Buffer
	for b := d.w.Take(); b != nil; b = d.w.Take() {
		bufs = append(bufs, b)
	}
	if d.resume == nil {
		d.resume = make(chan error, 1)
	}
	if d.loop().Execute(func() { d.flushed(bufs) }) != nil {
		releaseAll(bufs)
		return ErrConnClosed
	}
	return <-d.resume
}

// Write writes p to the response's body (Writer().Write), and Flushes
// whenever the writer holds 32 KiB or more: Detached is an io.Writer for
// io.Copy and the like, paced by the client. The head must have been
// written (Writer().WriteHeader).
func (d *Detached) Write(p []byte) (int, error) {
	d.w.BufferSize = responseBuffer // streaming: full-sized buffers
	n, err := d.w.Write(p)
	if err != nil {
		return n, err
	}
	if d.w.Len() >= streamFlushAt {
		if err := d.Flush(); err != nil {
			return n, err
		}
	}
	return n, nil
}

// streamFlushAt is how much Detached.Write gathers before it flushes.
const streamFlushAt = 32 << 10

// flushed runs on the loop with what a Flush handed over: sent now when
// the response is at the front of the output, else kept for then.
func (d *Detached) flushed(bufs []*buf.Buffer) {
	if d.h2 != nil {
		d.h2.flushedH2(d, bufs)
		return
	}
	c := d.c
	if c.dead || d.gone {
		releaseAll(bufs)
		d.resume <- ErrConnClosed
		return
	}
	d.early = append(d.early, bufs...)
	d.waiting = true
	if len(c.held) > 0 && c.held[0].d == d {
		c.stream(d)
	}
}

// stream sends what d's Flushes handed over, d being at the front of the
// output, and lets its producer go on when the connection is writable
// (else OnWritabilityChanged will).
func (c *conn) stream(d *Detached) {
	for i, b := range d.early {
		c.send(b)
		d.early[i] = nil
	}
	d.early = d.early[:0]
	c.cn.Flush()
	if d.waiting && c.cn.Writable() {
		d.waiting = false
		d.resume <- nil
	}
	c.settle(c.inLen)
}

// send hands b (a response buffer) to the connection, which takes it over
// also on an error, and counts its bytes: what was handed over less what
// is still queued is what the client took (the write timeout's progress).
func (c *conn) send(b *buf.Buffer) {
	c.handed += int64(b.Len())
	c.cn.Write(b)
}

// sent returns how many response bytes the socket has taken.
func (c *conn) sent() int64 { return c.handed - int64(c.cn.Outbound()) }

func releaseAll(bufs []*buf.Buffer) {
	for _, b := range bufs {
		b.Release()
	}
}

// Respond writes the whole response with Writer().Respond and calls Done.
// It returns Respond's error (Done is still called: a refused response is
// answered with 500, as a Handler's would be) or Done's.
func (d *Detached) Respond(h *http1.ResponseHeader, body []byte) error {
	err := d.w.Respond(h, body)
	if derr := d.Done(); derr != nil {
		return derr
	}
	return err
}

// Done hands the response written to Writer to the connection, which
// sends it once the responses before it are out, and returns nil. A
// response left open is ended as a Handler's would be (closing the
// connection after it when its body is short), and none at all is
// answered with 500. When the connection has closed, Done drops the
// response and returns ErrConnClosed. Done panics when called again: after
// it, d must not be used.
func (d *Detached) Done() error {
	switch {
	case d.aborted:
	case d.w.Open():
		d.w.End(nil) // a short body: MustClose, and the loop closes after it
	case !d.w.Answered():
		h := noResponse
		h.Close = !d.req.KeepAlive
		d.w.Respond(&h, noResponseBody)
	}
	if !d.state.CompareAndSwap(dOpen, dSent) {
		if d.state.Load() == dSent {
			panic("httpserver: Detached.Done called twice")
		}
		d.w.Abort()
		return ErrConnClosed
	}
	if d.loop().Execute(d.deliver) != nil {
		d.w.Abort() // the loop is closing: the connection with it
		return ErrConnClosed
	}
	return nil
}

// abort drops the response and has the connection close in its place,
// after the responses before it (what a Flush sent of it stays sent): for
// a net/http handler's panic, which net/http answers by closing.
func (d *Detached) abort() {
	d.w.Abort()
	d.aborted = true
	d.Done()
}

// deliver runs on the loop with the response Done handed over.
func (d *Detached) deliver() {
	if d.h2 != nil {
		d.h2.deliverH2(d)
		return
	}
	c := d.c
	if c.dead || d.gone {
		d.w.Abort()
		return
	}
	d.ready = true
	c.pump()
}

// A held is a place in a connection's output while a detached response
// before it is outstanding: the detached response itself (d), or
// responses written on the loop after it (bufs).
type held struct {
	d    *Detached
	bufs []*buf.Buffer
}

// context returns the connection's context, made at the first Detach.
func (c *conn) context() context.Context {
	if c.ctx == nil {
		c.ctx, c.cancel = context.WithCancel(context.Background())
	}
	return c.ctx
}

// maxHeld bounds the bytes of responses a connection holds back behind a
// detached one: past it the server stops reading, as it does at the
// connection's high water mark, so a client pipelining behind a slow
// answer cannot grow the server's memory.
const maxHeld = 64 << 10

// out queues b (a response buffer) for the connection: to it at once
// unless a detached response before it is outstanding.
func (c *conn) out(b *buf.Buffer) {
	if len(c.held) == 0 {
		c.send(b)
		return
	}
	c.heldBytes += b.Len()
	if last := &c.held[len(c.held)-1]; last.d == nil {
		last.bufs = append(last.bufs, b)
		return
	}
	c.held = append(c.held, held{bufs: []*buf.Buffer{b}})
}

// detached files the response the Handler just detached: it holds its
// place in the output from now on.
func (c *conn) detached(d *Detached) {
	c.held = append(c.held, held{d: d})
	c.waiting++
	c.cn.Hold()
	if !d.req.KeepAlive {
		c.closing = true // no request after it is read
	}
}

// pump sends what the head of the held output allows, in order, and then
// closes the connection or resumes reading as the state says.
func (c *conn) pump() {
	for len(c.held) > 0 {
		h := &c.held[0]
		if h.d != nil {
			if !h.d.ready {
				if h.d.waiting || len(h.d.early) > 0 {
					c.stream(h.d) // streamed: its turn has come
				}
				break
			}
			for i, b := range h.d.early { // Flushed before Done
				c.send(b)
				h.d.early[i] = nil
			}
			if h.d.aborted {
				c.waiting--
				c.cn.Unhold()
				c.closing = true
				c.held = c.held[1:]
				c.dropHeld()
				break
			}
			for b := h.d.w.Take(); b != nil; b = h.d.w.Take() {
				c.send(b)
			}
			c.waiting--
			c.cn.Unhold()
			if h.d.w.MustClose() {
				// The connection closes after it: the responses to the
				// requests read after it (before that was known) are
				// dropped, the detached ones among them told so.
				c.closing = true
				c.held = c.held[1:]
				c.dropHeld()
				break
			}
		} else {
			for _, b := range h.bufs {
				c.heldBytes -= b.Len()
				c.send(b)
			}
		}
		c.held[0] = held{}
		c.held = c.held[1:]
	}
	if len(c.held) == 0 {
		c.held = nil
	}
	c.cn.Flush()
	switch {
	case c.closing && len(c.held) == 0:
		c.releasePending()
		c.close(c.x)
	case c.heldBack && !c.holdBack():
		c.heldBack = false
		if !c.paused {
			c.cn.ResumeRead()
			if c.pending != nil {
				c.serve(c.x, c.pending) // settles
				return
			}
		}
		c.settle(c.inLen)
	default:
		c.settle(c.inLen)
	}
}

// drop forgets the held output of a connection that closed: detached
// responses still open learn it (Done returns ErrConnClosed), those sent
// are released, and so are the responses written after them.
func (c *conn) drop() {
	c.dead = true
	c.dropHeld() // first: once the context is done, Done must see the close
	if c.cancel != nil {
		c.cancel()
	}
}

// dropHeld releases the held output and tells the detached responses in
// it that their connection is gone.
func (c *conn) dropHeld() {
	for i := range c.held {
		h := &c.held[i]
		if h.d != nil {
			if !h.d.state.CompareAndSwap(dOpen, dDead) && h.d.ready {
				h.d.w.Abort()
			}
			releaseAll(h.d.early)
			h.d.early = nil
			if h.d.waiting {
				h.d.waiting = false
				h.d.resume <- ErrConnClosed
			}
			h.d.ready = false
			h.d.gone = true
			c.waiting--
			c.cn.Unhold()
		}
		for _, b := range h.bufs {
			b.Release()
		}
	}
	c.held, c.heldBytes = nil, 0
}

// holdBack reports whether the connection must stop reading requests
// until detached responses are done: WithMaxDetached of them are
// outstanding, or maxHeld bytes of responses wait behind them.
func (c *conn) holdBack() bool {
	return c.waiting >= c.s.maxDetached() || c.heldBytes >= maxHeld
}

// remoteAddr returns the client's address as a string, made once per
// connection (Adapt sets it in every Request).
func (c *conn) remoteAddr() string {
	if c.remote == "" {
		if a := c.cn.RemoteAddr(); a != nil {
			c.remote = a.String()
		}
	}
	return c.remote
}

// ConnOf returns the connection a Handler's writer answers on: its
// addresses (RemoteAddr, LocalAddr), its loop, and a slot for the
// application's per-connection state (Value, SetValue). It panics when w
// is not a writer the server handed to a Handler. Use the connection on
// its loop (in the Handler), except for the methods eventloop documents
// as safe from any goroutine.
func ConnOf(w *http1.ResponseWriter) *eventloop.Conn {
	if h, ok := w.Owner.(*h2conn); ok {
		return h.cn
	}
	c, ok := w.Owner.(*conn)
	if !ok {
		panic("httpserver: ConnOf called with a writer the server did not make")
	}
	return c.cn
}

// Context returns a context that is cancelled when the connection of a
// Handler's writer closes, for work a Handler starts that should stop
// with the client (a detached request's Detached.Context is the same
// one). The first call on a connection makes it (one allocation); call it
// from the Handler. It panics when w is not a writer the server handed to
// a Handler.
func Context(w *http1.ResponseWriter) context.Context {
	if h, ok := w.Owner.(*h2conn); ok {
		return h.context()
	}
	c, ok := w.Owner.(*conn)
	if !ok {
		panic("httpserver: Context called with a writer the server did not make")
	}
	if !c.cn.Loop().InLoop() {
		panic("httpserver: Context called off the connection's loop")
	}
	return c.context()
}
