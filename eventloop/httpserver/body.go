package httpserver

import (
	"errors"
	"io"
	"sync"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec/http1"
)

// WithStreamedBodies hands a Handler a request as soon as its head has
// arrived when its body has not (a large upload): req.BodyFollows is then
// set and req.Body empty, and the body comes through Detached.Body, as
// fast as the Handler's goroutine reads it. A body the Handler does not
// ask for is read and dropped (to a client that expects 100-continue, no
// 100 is sent for it). A chunked body's trailer fields are checked and
// dropped. The decoder's limits still hold, MaxBodySize too: raise it
// (WithDecoder) for uploads larger than 4 MiB.
func WithStreamedBodies() Option {
	return func(o *options) {
		o.decoder = append(o.decoder, func(d *http1.Decoder) { d.StreamBodies = true })
	}
}

// ErrBodyGone is what a streamed body's reader returns once its
// connection closed before the body's end.
var ErrBodyGone = errors.New("httpserver: the connection closed before the request body's end")

// Body returns the streamed body of the detached request (see
// WithStreamedBodies), as a reader for the Detached's goroutine: Read
// blocks until body bytes arrive and returns io.EOF after the last. The
// connection stops reading while 256 KiB wait unread, so a slow reader
// slows the client (TCP's flow control), and memory stays bounded.
// Call it from the Handler, after Detach, for a request with BodyFollows
// set; the first call sends "100 Continue" to a client that expects it.
// A client that shuts down its sending side before the body's end makes
// Read return io.ErrUnexpectedEOF; one whose connection breaks,
// ErrBodyGone.
// It returns nil for a request whose body is not streamed (its Body was
// complete). Close the reader to drop the rest of the body.
func (d *Detached) Body() io.ReadCloser {
	if d.h2 != nil {
		return nil // HTTP/2: the body came whole
	}
	c := d.c
	if !c.inHandler || c.current != d {
		panic("httpserver: Detached.Body called outside the Handler that detached")
	}
	if !c.bodyNext {
		return nil
	}
	if c.pipe == nil {
		c.pipe = &bodyPipe{c: c}
		c.pipe.cond.L = &c.pipe.mu
		if c.req.Expect100 {
			c.w.Begin(nil)
			c.w.WriteHeader(&continueHeader)
			c.take(&c.w)
		}
	}
	return c.pipe
}

// Body buffering bounds: reading stops at pipeHigh bytes unread and
// resumes below pipeLow.
const (
	pipeHigh = 256 << 10
	pipeLow  = 64 << 10
)

// A bodyPipe carries a streamed body from the loop to the goroutine that
// reads it, in pooled buffers.
type bodyPipe struct {
	c    *conn
	mu   sync.Mutex
	cond sync.Cond
	q    []*buf.Buffer
	n    int   // bytes in q
	err  error // after q: io.EOF at the body's end, else why it ended
	gone bool  // the reader closed: drop what comes

	paused bool // the loop stopped reading for this pipe (loop's)
}

// Read reads the body (io.Reader).
func (p *bodyPipe) Read(b []byte) (int, error) {
	p.mu.Lock()
	for len(p.q) == 0 && p.err == nil && !p.gone {
		p.cond.Wait()
	}
	if p.gone {
		p.mu.Unlock()
		return 0, io.ErrClosedPipe
	}
	if len(p.q) == 0 {
		err := p.err
		p.mu.Unlock()
		return 0, err
	}
	n := 0
	for len(p.q) > 0 && n < len(b) {
		k, _ := p.q[0].Read(b[n:])
		n += k
		if p.q[0].Len() == 0 {
			p.q[0].Release()
			p.q[0] = nil
			p.q = p.q[1:]
		}
	}
	before := p.n
	p.n -= n
	wake := before >= pipeLow && p.n < pipeLow
	p.mu.Unlock()
	if wake {
		p.c.cn.Loop().Execute(p.resume) // the loop may have paused at pipeHigh
	}
	return n, nil
}

// Close drops the rest of the body: what has come and what will.
func (p *bodyPipe) Close() error {
	p.mu.Lock()
	p.gone = true
	q := p.q
	p.q, p.n = nil, 0
	p.mu.Unlock()
	releaseAll(q)
	p.c.cn.Loop().Execute(p.resume)
	return nil
}

// push, on the loop, queues a piece of the body (copied) and stops the
// connection's reading at pipeHigh.
func (p *bodyPipe) push(b []byte) {
	p.mu.Lock()
	if p.gone {
		p.mu.Unlock()
		return
	}
	x := p.c.s.alloc().Get(len(b))
	x.Write(b)
	p.q = append(p.q, x)
	p.n += len(b)
	full := p.n >= pipeHigh
	p.cond.Signal()
	p.mu.Unlock()
	if full && !p.paused {
		p.paused = true
		p.c.cn.PauseRead()
	}
}

// end, on the loop, ends the body: err is io.EOF at its end.
func (p *bodyPipe) end(err error) {
	p.mu.Lock()
	if p.err == nil {
		p.err = err
	}
	p.cond.Broadcast()
	p.mu.Unlock()
	if p.paused {
		p.paused = false
		p.c.cn.ResumeRead()
	}
}

// resume, on the loop, reads again once the reader has caught up.
func (p *bodyPipe) resume() {
	if !p.paused || p.c.dead {
		return
	}
	p.mu.Lock()
	low := p.n < pipeLow || p.gone
	p.mu.Unlock()
	if low {
		p.paused = false
		if !p.c.paused && !p.c.heldBack {
			p.c.cn.ResumeRead()
		}
		p.c.settle(p.c.inLen)
	}
}

// feedBody, on the loop, passes what in holds of the streamed body to the
// Handler's reader (or drops it), and reports whether the body has ended;
// on a framing error the connection closes.
func (c *conn) feedBody(in *buf.Composite) bool {
	p := c.pipe
	if c.trailers == nil {
		c.trailers = new(http1.Request) // DecodeBody puts a chunked body's trailer fields there
	}
	done, err := c.dec.DecodeBody(in, c.trailers, func(b []byte) error {
		if p != nil {
			p.push(b)
		}
		return nil
	})
	c.trailers.Release()
	if err != nil {
		// The framing is lost: the reader learns it, the responses
		// queued go out, then the connection closes.
		if p != nil {
			p.end(err)
		}
		c.bodyNext, c.pipe = false, nil
		c.closing = true
		return false
	}
	if !done {
		return false
	}
	if p != nil {
		p.end(io.EOF)
	}
	c.bodyNext, c.pipe = false, nil
	return true
}

// alloc is the allocator of the server's buffers.
func (s *Server) alloc() *buf.Allocator { return buf.Default }
