//go:build linux

package eventloop

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"
	"time"

	"github.com/netkit/netkit/eventloop/internal/sock"
)

// A listener is one listening socket on one loop.
type listener struct {
	s      *Server
	l      *Loop
	fd     int
	paused bool
	peer   sock.Addr // the peer's address from accept4, reused
}

// maxAcceptsPerEvent bounds the accepts of one readiness event, so that a
// connection storm does not starve the loop's connections.
const maxAcceptsPerEvent = 64

// acceptPause is how long a listener stops accepting after running out of
// descriptors or memory (EMFILE, ENFILE, ENOBUFS, ENOMEM): retrying at once
// would spin, since the pending connection keeps the socket readable.
const acceptPause = 50 * time.Millisecond

func (ln *listener) onEvent(Events) {
	for range maxAcceptsPerEvent {
		fd, err := sock.Accept(ln.fd, &ln.peer)
		if err == nil {
			ln.s.accepted(ln.l, fd, ln.peer)
			continue
		}
		switch sock.AcceptVerdict(err) {
		case sock.AcceptRetry:
			continue
		case sock.AcceptPause:
			ln.paused = true
			ln.l.modify(ln.fd, 0)
			ln.l.Schedule(acceptPause, func() {
				if ln.paused && !ln.s.stopping.Load() {
					ln.paused = false
					ln.l.modify(ln.fd, Readable)
				}
			})
			return
		default:
			return // nothing pending, the listener was closed under us, or a transient error
		}
	}
}

// close unregisters and closes the listening socket.
func (ln *listener) close() {
	if !ln.l.force(func() { ln.l.unregister(ln.fd); sock.Close(ln.fd) }) {
		sock.Close(ln.fd) // the loop has stopped: it watches nothing
	}
}

// accepted makes a connection of fd, accepted on loop l.
func (s *Server) accepted(l *Loop, fd int, peer sock.Addr) {
	if s.stopping.Load() {
		sock.Close(fd)
		return
	}
	s.conns.Add(1)
	c := &Conn{fd: fd, srv: s, opts: s.opts}
	if s.network == "unix" {
		c.addrs.setUnix(fd, "") // the peer of an accepted Unix socket is unnamed
	} else {
		// A listener bound to one address gives its connections that local
		// address, with no getsockname; a wildcard one asks.
		c.addrs.setTCP(fd, peer, s.local)
	}
	if s.network != "unix" {
		sock.SetNoDelay(fd)
	}
	if !s.opts.acceptor {
		c.loop = l
		c.start(s.h)
		return
	}
	c.loop = s.g.Next()
	if c.loop == l {
		c.start(s.h)
		return
	}
	if err := c.loop.Execute(func() { c.start(s.h) }); err != nil {
		sock.Close(fd)
		s.connClosed()
	}
}

// Listen starts a server accepting stream connections on addr — network
// "tcp", "tcp4", "tcp6" or "unix" — whose pipelines h builds (an
// Initializer) or serves (any other Handler, shared by every connection;
// see Handler). For TCP there is one listening socket per loop, bound with
// SO_REUSEPORT, so that each loop accepts its own connections; WithAcceptor
// uses one socket whose loop hands connections out round robin (always so
// for "unix"). Accepted sockets are non-blocking and close-on-exec, with
// TCP_NODELAY. A port already in use is an error, even by another process
// using SO_REUSEPORT. Listen returns ErrUnsupported on systems other than
// Linux.
func Listen(g *Group, network, addr string, h Handler, opts ...Option) (*Server, error) {
	o := newOptions(opts)
	if g == nil || len(g.loops) == 0 {
		return nil, errors.New("eventloop: Listen needs a group")
	}
	s := &Server{g: g, h: h, opts: o, network: network, idle: make(chan struct{})}
	backlog := o.backlog
	if backlog <= 0 {
		backlog = sock.Somaxconn()
	}
	fail := func(err error) (*Server, error) {
		s.stopAccepting()
		return nil, &net.OpError{Op: "listen", Net: network, Err: err}
	}
	switch network {
	case "tcp", "tcp4", "tcp6":
		ta, err := net.ResolveTCPAddr(network, addr)
		if err != nil {
			return nil, err
		}
		target := sock.TCPTarget(network, ta)
		n := len(g.loops)
		if o.acceptor {
			n = 1
		}
		if n > 1 && ta.Port != 0 {
			// SO_REUSEPORT would let this server share a port that another
			// socket of this user already listens on, splitting its
			// connections silently: a plain bind first finds it in use.
			if err := target.ProbeBind(); err != nil {
				return fail(err)
			}
		}
		for i := range n {
			fd, err := target.Listen(n > 1, backlog)
			if err != nil {
				return fail(err)
			}
			if i == 0 {
				var got sock.Addr
				// Later sockets bind the port the first one got.
				target, got, err = sock.Bound(fd, target)
				if err != nil {
					sock.Close(fd)
					return fail(err)
				}
				s.addr = net.TCPAddrFromAddrPort(got.AddrPort())
				if len(ta.IP) > 0 && !ta.IP.IsUnspecified() {
					s.local = got
				}
			}
			l := g.loops[i]
			if o.acceptor {
				l = g.Next()
			}
			if err := s.addListener(l, fd); err != nil {
				return fail(err)
			}
		}
	case "unix":
		o.acceptor = true
		fd, err := sock.UnixTarget(addr).Listen(false, backlog)
		if err != nil {
			return fail(err)
		}
		if !strings.HasPrefix(addr, "@") && addr != "" {
			s.unixPath = addr
		}
		s.addr = &net.UnixAddr{Name: addr, Net: "unix"}
		if err := s.addListener(g.Next(), fd); err != nil {
			return fail(err)
		}
	default:
		return nil, net.UnknownNetworkError(network)
	}
	return s, nil
}

func (s *Server) addListener(l *Loop, fd int) error {
	ln := &listener{s: s, l: l, fd: fd}
	if err := l.Register(fd, Readable, ln.onEvent); err != nil {
		sock.Close(fd)
		return err
	}
	s.lns = append(s.lns, ln)
	return nil
}

func removeSocketFile(path string) { os.Remove(path) }

// setTCP records a TCP connection's addresses: the peer's, and the local
// one, from getsockname unless known (Kind 0: not known).
func (a *connAddrs) setTCP(fd int, remote, local sock.Addr) {
	a.remote, a.local = remote, local
	if local.Kind == 0 {
		a.local = sock.LocalAddr(fd)
	}
}

// setUnix records a Unix connection's paths: the peer's, and the local one
// from getsockname.
func (a *connAddrs) setUnix(fd int, remote string) {
	a.paths = &[2]string{0: sock.LocalPath(fd), 1: remote}
}

// errDialOnLoop is Dial's error on a loop, which it would block.
var errDialOnLoop = errors.New("eventloop: Dial called on a loop (it blocks until connected; use DialOn)")

// Dial connects to addr — network "tcp", "tcp4", "tcp6" or "unix" — with
// a non-blocking connect on the group's next loop, bounded by
// WithDialTimeout (default 30 s), and returns the connection, whose
// pipeline h builds or serves as for Listen; OnActive has fired when Dial
// returns. Dial blocks its caller until the connection is made, so it
// returns an error when called on a loop: use DialOn there. It returns
// ErrUnsupported on systems other than Linux.
func Dial(g *Group, network, addr string, h Handler, opts ...Option) (*Conn, error) {
	if g == nil || len(g.loops) == 0 {
		return nil, errors.New("eventloop: Dial needs a group")
	}
	if g.inLoop() {
		return nil, &net.OpError{Op: "dial", Net: network, Err: errDialOnLoop}
	}
	type result struct {
		c   *Conn
		err error
	}
	done := make(chan result, 1)
	DialOn(g.Next(), network, addr, h, func(c *Conn, err error) { done <- result{c, err} }, opts...)
	r := <-done
	return r.c, r.err
}

// DialOn connects as Dial does, on loop l, without blocking: it returns at
// once and calls done on l with the connection (OnActive has fired) or the
// error. It is how a handler opens a connection — a proxy's upstream, on
// its own loop so that both sides' handlers run on one goroutine. A host
// name is resolved on another goroutine, so the loop never waits for DNS.
// If l has stopped, done runs on the caller's goroutine with the error.
func DialOn(l *Loop, network, addr string, h Handler, done func(*Conn, error), opts ...Option) {
	o := newOptions(opts)
	fail := func(err error) {
		err = &net.OpError{Op: "dial", Net: network, Err: fmt.Errorf("%s: %w", addr, err)}
		if l.InLoop() || !l.force(func() { done(nil, err) }) {
			done(nil, err) // here, or where the caller is once l has stopped
		}
	}
	switch network {
	case "tcp", "tcp4", "tcp6":
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			fail(err)
			return
		}
		if _, perr := netip.ParseAddr(host); perr != nil && host != "" {
			go func() { // a name: resolve off the loop
				ta, err := net.ResolveTCPAddr(network, addr)
				if err != nil {
					fail(err)
					return
				}
				if err := l.Execute(func() { dialTCP(l, network, addr, ta, h, done, o, fail) }); err != nil {
					fail(err)
				}
			}()
			return
		}
		ta, err := net.ResolveTCPAddr(network, addr)
		if err != nil {
			fail(err)
			return
		}
		dialTCP(l, network, addr, ta, h, done, o, fail)
	case "unix":
		connectOn(l, sock.UnixTarget(addr), h, done, o, fail)
	default:
		fail(net.UnknownNetworkError(network))
	}
}

func dialTCP(l *Loop, network, addr string, ta *net.TCPAddr, h Handler, done func(*Conn, error), o *options, fail func(error)) {
	if len(ta.IP) == 0 {
		ta.IP = net.IPv4(127, 0, 0, 1) // as net.Dial: the local system
	}
	connectOn(l, sock.TCPTarget(network, ta), h, done, o, fail)
}

// connectOn makes the socket and connects it, finishing on l.
func connectOn(l *Loop, t sock.Target, h Handler, done func(*Conn, error), o *options, fail func(error)) {
	fd, pending, err := t.Connect()
	if err != nil {
		fail(err)
		return
	}
	c := &Conn{loop: l, fd: fd, opts: o}
	connected := func() {
		if t.Unix() {
			c.addrs.setUnix(fd, t.Path())
		} else {
			c.addrs.setTCP(fd, t.Addr(), sock.Addr{})
		}
		c.start(h)
		if c.state&csActive == 0 {
			done(nil, ErrConnClosed)
			return
		}
		done(c, nil)
	}
	finish := func() {
		if !pending {
			connected()
			return
		}
		var timer Timer
		finished := false
		if err := l.register(fd, Writable, fdFunc(func(Events) {
			if finished {
				return
			}
			finished = true
			timer.Cancel()
			l.unregister(fd)
			if err := sock.SocketError(fd); err != nil {
				sock.Close(fd)
				fail(err)
				return
			}
			connected()
		})); err != nil {
			sock.Close(fd)
			fail(err)
			return
		}
		timer = l.Schedule(o.dialTimeout, func() {
			if !finished {
				finished = true
				l.unregister(fd)
				sock.Close(fd)
				fail(os.ErrDeadlineExceeded)
			}
		})
	}
	if l.InLoop() {
		finish()
		return
	}
	if err := l.Execute(finish); err != nil {
		sock.Close(fd)
		fail(err)
	}
}

// The connection's system calls, for the code common to every system.

func sysRead(fd int, p []byte) (int, error) { return sock.Read(fd, p) }
func sysShutdownWrite(fd int) error         { return sock.ShutdownWrite(fd) }
func sysClose(fd int)                       { sock.Close(fd) }
func sysSocketError(fd int) error           { return sock.SocketError(fd) }
func sysUnread(fd int) int                  { return sock.Unread(fd) }
