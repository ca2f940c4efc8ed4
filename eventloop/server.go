package eventloop

import (
	"context"
	"net"
	"sync"
	"sync/atomic"

	"github.com/netkit/netkit/eventloop/internal/sock"
)

// A Server accepts connections on a group's loops (see Listen).
type Server struct {
	g        *Group
	h        Handler
	opts     *options
	network  string
	addr     net.Addr
	lns      []*listener
	unixPath string    // the socket file to remove at close
	local    sock.Addr // the address bound, when it is one address (not a wildcard)

	conns    atomic.Int64
	stopping atomic.Bool
	mu       sync.Mutex
	stopped  bool
	idle     chan struct{} // closed once stopping and no connection is left
	idleOnce sync.Once
}

// Addr returns the address the server listens on (with the port the
// system chose for port 0).
func (s *Server) Addr() net.Addr { return s.addr }

// Conns returns the number of connections open now.
func (s *Server) Conns() int { return int(s.conns.Load()) }

// connClosed counts a connection gone.
func (s *Server) connClosed() {
	if s.conns.Add(-1) == 0 && s.stopping.Load() {
		s.idleOnce.Do(func() { close(s.idle) })
	}
}

// stopAccepting closes the listeners (once) and reports whether this call
// did it.
func (s *Server) stopAccepting() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	s.stopped = true
	s.stopping.Store(true)
	for _, ln := range s.lns {
		ln.close()
	}
	if s.unixPath != "" {
		removeSocketFile(s.unixPath)
	}
	if s.conns.Load() == 0 {
		s.idleOnce.Do(func() { close(s.idle) })
	}
}

// Done returns a channel that is closed once s has stopped accepting (Close
// or Shutdown) and its last connection has closed. Close and Shutdown
// called on one of the group's loops do not wait; Done tells when they are
// done.
func (s *Server) Done() <-chan struct{} { return s.idle }

// Close stops accepting and closes every connection at once, dropping
// what they had queued (OnInactive fires for each). Called from outside the
// group's loops it waits until they are closed. Called on one of the
// loops, it does not wait (a loop waiting for another could deadlock with
// it): new connections are refused at once, the listeners and connections
// are closed from another goroutine, each on its loop, and Done is closed
// when the last connection has closed.
func (s *Server) Close() error {
	if s.g.inLoop() {
		s.stopping.Store(true)
		go s.Close()
		return nil
	}
	s.stopAccepting()
	s.eachConn(func(c *Conn) { c.closeNow(ErrConnClosed) })
	<-s.idle
	return nil
}

// Shutdown stops the server gracefully: it stops accepting, flushes what
// every connection has queued, closes the connections that are idle (no
// partial message read, nothing left to write) and the others as soon as
// they become idle. It returns once none is left, or, when ctx ends first,
// closes the rest (as Close) and returns ctx's error. A connection's
// pipeline sees no event for the shutdown: a protocol that announces it
// (GOAWAY) does so before calling Shutdown.
//
// Called on one of the group's loops, Shutdown does not wait (the loop
// would wait for its own connections): new connections are refused at
// once, the rest runs on another goroutine (closing the remaining
// connections when ctx ends), Shutdown returns nil, and Done is closed when
// the last connection has closed.
func (s *Server) Shutdown(ctx context.Context) error {
	if s.g.inLoop() {
		s.stopping.Store(true)
		go s.Shutdown(ctx)
		return nil
	}
	s.stopAccepting()
	s.eachConn(func(c *Conn) { c.beginDrain() })
	select {
	case <-s.idle:
		return nil
	case <-ctx.Done():
		s.Close()
		return ctx.Err()
	}
}

// eachConn runs f, on each loop, for the loop's connections of s. A loop
// that no longer takes tasks closes its connections as it stops.
func (s *Server) eachConn(f func(c *Conn)) {
	for _, l := range s.g.loops {
		run := func() {
			list := l.conns.list
			for i := len(list) - 1; i >= 0; i-- {
				if i < len(l.conns.list) && l.conns.list[i].srv == s {
					f(l.conns.list[i])
				}
			}
		}
		l.force(run)
	}
}

// beginDrain marks c for Server.Shutdown.
func (c *Conn) beginDrain() {
	if c.state&csClosed != 0 {
		return
	}
	c.state |= csDraining
	c.pipe.flushAll()
	if c.state&csClosed == 0 && c.idleNow() {
		c.closeNow(nil)
	}
}

// inLoop reports whether the caller runs on one of g's loops.
func (g *Group) inLoop() bool {
	for _, l := range g.loops {
		if l.InLoop() {
			return true
		}
	}
	return false
}
