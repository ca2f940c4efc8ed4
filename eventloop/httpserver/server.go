package httpserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/netkit/netkit/codec/http1"
	"github.com/netkit/netkit/eventloop"
)

// A Handler answers one request, on the connection's loop, by writing one
// response to w: whole with w.Respond (or w.WriteHeaderOnly for HEAD), or
// streamed with w.WriteHeader, w.Write and w.End.
//
// A Handler that writes no response gets a 500 written for it; one that
// leaves a streamed response open has it ended for it (End), or, when its
// body is short of its Content-Length, the connection closed after it.
//
// req and everything it points to is valid only during the call (its
// slices alias the connection's read buffers): copy what must outlive it.
// w is the connection's writer: use it only during the call, and not from
// other goroutines; the responses written go out when the Handler has
// answered every request of the read. A Handler that clears req.KeepAlive
// has the connection closed after its response (which says "Connection:
// close" when it was cleared before the response was written).
//
// The server calls w.Begin(req) before the Handler, so that w holds the
// response to req's rules: exactly one final response (a second is
// refused with http1.ErrResponseAnswered, writing nothing; 1xx responses
// may precede it); no body bytes in the answer to HEAD, whatever the
// Handler writes; no chunked body to an HTTP/1.0 client (a body of
// unknown length is ended by closing the connection instead); and the
// Connection field the request calls for ("close" when the connection
// will close, "keep-alive" to an HTTP/1.0 client when it stays open).
//
// The Handler runs on the loop: it must not block. A Handler that has to
// wait (a database, another service) detaches the request (Detach) and
// returns; its response is written later, from any goroutine, and still
// leaves in request order. A panic in it closes
// its connection only: what it had written is dropped, the responses to
// the requests before it are sent, then the connection closes; the panic
// goes to the group's Config.OnPanic as a *HandlerPanic.
type Handler func(w *http1.ResponseWriter, req *http1.Request)

// A HandlerPanic is the value a Handler's panic reaches the group's
// Config.OnPanic as: what the Handler panicked with, and the stack of its
// goroutine at the panic (the stack OnPanic is given is the loop task's
// that reports it, after the connection's earlier responses were sent).
type HandlerPanic struct {
	Value any    // the value the Handler panicked with
	Stack []byte // the Handler's stack, from runtime/debug.Stack
}

// Error returns "httpserver: handler panicked: " and the value.
func (p *HandlerPanic) Error() string {
	return fmt.Sprintf("httpserver: handler panicked: %v", p.Value)
}

// Unwrap returns the value when it is an error, else nil.
func (p *HandlerPanic) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}

// An Option configures Listen.
type Option func(*options)

type options struct {
	decoder     []func(*http1.Decoder)
	loop        []eventloop.Option
	maxDetached int
	timeouts    timeouts
	h2c         bool
}

// WithDecoder sets the request parser's limits and rules: set is called
// on each connection's http1.Decoder, a zero one (http1's defaults), before
// its first request, as in
//
//	httpserver.WithDecoder(func(d *http1.Decoder) { d.MaxBodySize = 1 << 20 })
func WithDecoder(set func(*http1.Decoder)) Option {
	return func(o *options) { o.decoder = append(o.decoder, set) }
}

// WithDecoderOptions applies http1's functional options to each
// connection's decoder.
//
// Deprecated: use WithDecoder, which sets the http1.Decoder's fields.
func WithDecoderOptions(opts ...http1.Option) Option {
	return func(o *options) {
		for _, op := range opts {
			o.decoder = append(o.decoder, op)
		}
	}
}

// WithConnOptions passes options to eventloop.Listen: water marks, idle
// timeout, close timeout, backlog, allocator, inbound limit.
func WithConnOptions(opts ...eventloop.Option) Option {
	return func(o *options) { o.loop = append(o.loop, opts...) }
}

// A Server serves HTTP/1.1 on a group's loops (see Listen).
type Server struct {
	srv      *eventloop.Server
	h        Handler
	opts     options
	timeouts timeouts // resolved
	loops    map[*eventloop.Loop]*loopState

	stopOnce sync.Once
}

// loopState is what a loop's connections share: the Date cache and its
// update timer.
type loopState struct {
	dates http1.DateCache
	tick  eventloop.Timer
	h2    *h2Scratch // the HTTP/2 connections' scratch (h2.go), made with the first
	// The loop's HTTP/2 connections, for the GOAWAY of Shutdown.
	h2conns map[*h2conn]struct{}
}

// Listen starts serving HTTP/1.1 on the TCP address addr ("host:port";
// port 0 picks one, see Addr) on g's loops, answering requests with h.
// Each loop gets a timer that refreshes its Date cache once per second;
// Shutdown and Close cancel them. Listen returns eventloop's errors
// (eventloop.ErrUnsupported on systems other than Linux).
func Listen(g *eventloop.Group, addr string, h Handler, opts ...Option) (*Server, error) {
	if h == nil {
		return nil, errors.New("httpserver: Listen with a nil Handler")
	}
	if g == nil {
		return nil, errors.New("httpserver: Listen needs a group")
	}
	s := &Server{h: h, loops: make(map[*eventloop.Loop]*loopState)}
	for _, o := range opts {
		o(&s.opts)
	}
	s.timeouts = s.opts.timeouts.resolve()
	now := time.Now()
	for _, l := range g.Loops() {
		st := &loopState{}
		st.dates.Update(now)
		s.loops[l] = st
	}
	srv, err := eventloop.Listen(g, "tcp", addr, eventloop.Initializer(s.init), s.opts.loop...)
	if err != nil {
		return nil, err
	}
	s.srv = srv
	for l, st := range s.loops {
		st.tick = l.Every(time.Second, func() { st.dates.Update(time.Now()) })
	}
	return s, nil
}

// responseBuffer is the size of the buffers responses are written into:
// the answers to 16 pipelined plaintext requests (about 130 bytes each)
// fit in one without regrowing it, which copies.
const responseBuffer = 4 << 10

// init builds a new connection's pipeline: one handler, its own state.
func (s *Server) init(c *eventloop.Conn) {
	st := s.loops[c.Loop()]
	hc := &conn{s: s, cn: c, dec: new(http1.Decoder)}
	for _, set := range s.opts.decoder {
		set(hc.dec)
	}
	hc.w.Dates = &st.dates
	hc.w.BufferSize = responseBuffer
	hc.w.Owner = hc
	if err := c.Pipeline().AddLast("http1", hc); err != nil {
		c.Close()
		return
	}
	hc.x = c.Pipeline().Context("http1")
	hc.start()
}

// maxDetached is WithMaxDetached's bound.
func (s *Server) maxDetached() int {
	if s.opts.maxDetached <= 0 {
		return DefaultMaxDetached
	}
	return s.opts.maxDetached
}

// Addr returns the address the server listens on.
func (s *Server) Addr() net.Addr { return s.srv.Addr() }

// Conns returns the number of connections open now.
func (s *Server) Conns() int { return s.srv.Conns() }

// Shutdown stops the server gracefully: it stops accepting connections,
// lets the requests in flight finish (a request partly received is read,
// answered and its response flushed), closes each connection as soon as
// it is idle — at once for those waiting between requests — and returns
// once none is left. When ctx ends first it closes the rest, dropping
// what they had queued, and returns ctx's error. The group's loops keep
// running: they are the caller's.
//
// Called from a handler (or anything else on one of the group's loops),
// Shutdown and Close do not wait — a loop waiting for its own connections
// would deadlock — : they start the work, return nil at once, and Done is
// closed when the last connection has gone.
func (s *Server) Shutdown(ctx context.Context) error {
	s.goAway(ctx)
	err := s.srv.Shutdown(ctx)
	s.stopTimers()
	return err
}

// goAway sends GOAWAY on every HTTP/2 connection, each from its loop,
// and waits until they are sent (not when called on a loop, which would
// wait for itself).
func (s *Server) goAway(ctx context.Context) {
	var wg sync.WaitGroup
	onLoop := false
	for l, st := range s.loops {
		onLoop = onLoop || l.InLoop()
		wg.Add(1)
		if l.Execute(func() {
			defer wg.Done()
			for h := range st.h2conns {
				h.goAway()
			}
		}) != nil {
			wg.Done()
		}
	}
	if onLoop {
		return
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// Close stops accepting and closes every connection at once, dropping
// what they had queued.
func (s *Server) Close() error {
	err := s.srv.Close()
	s.stopTimers()
	return err
}

// Done is closed once the server has stopped accepting and its last
// connection has closed, after Shutdown or Close (on a loop, the only way
// to learn that they have finished).
func (s *Server) Done() <-chan struct{} { return s.srv.Done() }

func (s *Server) stopTimers() {
	s.stopOnce.Do(func() {
		for _, st := range s.loops {
			st.tick.Cancel()
		}
	})
}
