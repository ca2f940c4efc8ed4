//go:build linux

package eventloop

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A listener is one listening socket on one loop.
type listener struct {
	s      *Server
	l      *Loop
	fd     int
	paused bool
	rsa    unix.RawSockaddrAny // the peer's address from accept4, reused
}

// maxAcceptsPerEvent bounds the accepts of one readiness event, so that a
// connection storm does not starve the loop's connections.
const maxAcceptsPerEvent = 64

// acceptPause is how long a listener stops accepting after running out of
// descriptors or memory (EMFILE, ENFILE, ENOBUFS, ENOMEM): retrying at once
// would spin, since the pending connection keeps the socket readable.
const acceptPause = 50 * time.Millisecond

func (ln *listener) onEvent(uint32) {
	for range maxAcceptsPerEvent {
		fd, err := ln.accept()
		switch err {
		case nil:
			ln.s.accepted(ln.l, fd, peerHostPort(&ln.rsa))
			continue
		case unix.EAGAIN:
			return
		case unix.EINTR, unix.ECONNABORTED:
			continue
		case unix.EMFILE, unix.ENFILE, unix.ENOBUFS, unix.ENOMEM:
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
			return // the listener was closed under us, or a transient error
		}
	}
}

// accept takes a connection with accept4, non-blocking and close-on-exec,
// into ln.rsa: unix.Accept4 would allocate the peer's address.
func (ln *listener) accept() (int, error) {
	n := uint32(unsafe.Sizeof(ln.rsa))
	fd, _, e := unix.Syscall6(unix.SYS_ACCEPT4, uintptr(ln.fd), uintptr(unsafe.Pointer(&ln.rsa)),
		uintptr(unsafe.Pointer(&n)), unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0, 0)
	if e != 0 {
		return -1, e
	}
	return int(fd), nil
}

// peerHostPort decodes an IPv4 or IPv6 address that accept4 wrote.
func peerHostPort(rsa *unix.RawSockaddrAny) hostPort {
	switch rsa.Addr.Family {
	case unix.AF_INET:
		a := (*unix.RawSockaddrInet4)(unsafe.Pointer(rsa))
		h := hostPort{port: uint16(a.Port>>8 | a.Port<<8), kind: 4}
		h.ip = netip.AddrFrom4(a.Addr).As16()
		return h
	case unix.AF_INET6:
		a := (*unix.RawSockaddrInet6)(unsafe.Pointer(rsa))
		return hostPort{ip: a.Addr, port: uint16(a.Port>>8 | a.Port<<8), kind: 6, zone: a.Scope_id}
	}
	return hostPort{} // a Unix peer: unnamed, as a rule
}

// close unregisters and closes the listening socket.
func (ln *listener) close() {
	if !ln.l.force(func() { ln.l.unregister(ln.fd); unix.Close(ln.fd) }) {
		unix.Close(ln.fd) // the loop has stopped: it watches nothing
	}
}

// accepted makes a connection of fd, accepted on loop l.
func (s *Server) accepted(l *Loop, fd int, peer hostPort) {
	if s.stopping.Load() {
		unix.Close(fd)
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
		unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
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
		unix.Close(fd)
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
		backlog = somaxconn()
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
		family, sa, v6only := tcpSockaddr(network, ta)
		n := len(g.loops)
		if o.acceptor {
			n = 1
		}
		if n > 1 && ta.Port != 0 {
			// SO_REUSEPORT would let this server share a port that another
			// socket of this user already listens on, splitting its
			// connections silently: a plain bind first finds it in use.
			if err := probeBind(family, sa, v6only); err != nil {
				return fail(err)
			}
		}
		for i := range n {
			fd, err := listenSocket(family, sa, v6only, n > 1, backlog)
			if err != nil {
				return fail(err)
			}
			if i == 0 {
				got, err := unix.Getsockname(fd)
				if err != nil {
					unix.Close(fd)
					return fail(os.NewSyscallError("getsockname", err))
				}
				sa = got // later sockets bind the port the first one got
				s.addr = net.TCPAddrFromAddrPort(sockaddrToHostPort(got).addrPort())
				if len(ta.IP) > 0 && !ta.IP.IsUnspecified() {
					s.local = sockaddrToHostPort(got)
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
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return fail(os.NewSyscallError("socket", err))
		}
		if err := unix.Bind(fd, &unix.SockaddrUnix{Name: addr}); err != nil {
			unix.Close(fd)
			return fail(os.NewSyscallError("bind", err))
		}
		if !strings.HasPrefix(addr, "@") && addr != "" {
			s.unixPath = addr
		}
		if err := unix.Listen(fd, backlog); err != nil {
			unix.Close(fd)
			return fail(os.NewSyscallError("listen", err))
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
		unix.Close(fd)
		return err
	}
	s.lns = append(s.lns, ln)
	return nil
}

// tcpSockaddr picks the socket family and address for a TCP address, as
// the net package does: an unspecified address of network "tcp" listens
// on both IPv6 and IPv4 (one IPv6 socket with IPV6_V6ONLY off) where the
// system has IPv6.
func tcpSockaddr(network string, ta *net.TCPAddr) (family int, sa unix.Sockaddr, v6only bool) {
	ip4 := ta.IP.To4()
	switch {
	case network == "tcp4" || (ip4 != nil && network != "tcp6"):
		s4 := &unix.SockaddrInet4{Port: ta.Port}
		if ip4 != nil {
			copy(s4.Addr[:], ip4)
		}
		return unix.AF_INET, s4, false
	case network == "tcp" && len(ta.IP) == 0 && !haveIPv6():
		return unix.AF_INET, &unix.SockaddrInet4{Port: ta.Port}, false
	}
	s6 := &unix.SockaddrInet6{Port: ta.Port}
	copy(s6.Addr[:], ta.IP.To16())
	if ta.Zone != "" {
		if ifi, err := net.InterfaceByName(ta.Zone); err == nil {
			s6.ZoneId = uint32(ifi.Index)
		}
	}
	return unix.AF_INET6, s6, network == "tcp6"
}

// haveIPv6 reports whether the system can make IPv6 sockets.
func haveIPv6() bool {
	fd, err := unix.Socket(unix.AF_INET6, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
}

func stream(family int) (int, error) {
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, os.NewSyscallError("socket", err)
	}
	return fd, nil
}

// listenSocket makes a listening socket bound to sa.
func listenSocket(family int, sa unix.Sockaddr, v6only, reusePort bool, backlog int) (int, error) {
	fd, err := stream(family)
	if err != nil {
		return -1, err
	}
	if err := bindSocket(fd, family, sa, v6only, reusePort); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if err := unix.Listen(fd, backlog); err != nil {
		unix.Close(fd)
		return -1, os.NewSyscallError("listen", err)
	}
	return fd, nil
}

func bindSocket(fd, family int, sa unix.Sockaddr, v6only, reusePort bool) error {
	if family == unix.AF_INET6 {
		v := 0
		if v6only {
			v = 1
		}
		unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, v)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		return os.NewSyscallError("setsockopt", err)
	}
	if reusePort {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEPORT, 1); err != nil {
			return os.NewSyscallError("setsockopt", err)
		}
	}
	if err := unix.Bind(fd, sa); err != nil {
		return os.NewSyscallError("bind", err)
	}
	return nil
}

// probeBind binds a socket without SO_REUSEPORT to sa and closes it: an
// error says the port is in use.
func probeBind(family int, sa unix.Sockaddr, v6only bool) error {
	fd, err := stream(family)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return bindSocket(fd, family, sa, v6only, false)
}

// somaxconn reads the system's cap on listen backlogs.
func somaxconn() int {
	b, err := os.ReadFile("/proc/sys/net/core/somaxconn")
	if err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n > 0 {
			return n
		}
	}
	return unix.SOMAXCONN
}

func removeSocketFile(path string) { os.Remove(path) }

// setTCP records a TCP connection's addresses: the peer's, and the local
// one, from getsockname unless known (kind 0: not known).
func (a *connAddrs) setTCP(fd int, remote, local hostPort) {
	a.remote, a.local = remote, local
	if local.kind == 0 {
		if lsa, err := unix.Getsockname(fd); err == nil {
			a.local = sockaddrToHostPort(lsa)
		}
	}
}

// setUnix records a Unix connection's paths: the peer's, and the local one
// from getsockname.
func (a *connAddrs) setUnix(fd int, remote string) {
	a.paths = &[2]string{1: remote}
	if lsa, err := unix.Getsockname(fd); err == nil {
		if u, ok := lsa.(*unix.SockaddrUnix); ok {
			a.paths[0] = u.Name
		}
	}
}

func sockaddrToHostPort(sa unix.Sockaddr) hostPort {
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		h := hostPort{port: uint16(a.Port), kind: 4}
		h.ip = netip.AddrFrom4(a.Addr).As16()
		return h
	case *unix.SockaddrInet6:
		return hostPort{ip: a.Addr, port: uint16(a.Port), kind: 6, zone: a.ZoneId}
	}
	return hostPort{}
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
		connectOn(l, network, unix.AF_UNIX, &unix.SockaddrUnix{Name: addr}, h, done, o, fail)
	default:
		fail(net.UnknownNetworkError(network))
	}
}

func dialTCP(l *Loop, network, addr string, ta *net.TCPAddr, h Handler, done func(*Conn, error), o *options, fail func(error)) {
	if len(ta.IP) == 0 {
		ta.IP = net.IPv4(127, 0, 0, 1) // as net.Dial: the local system
	}
	family, sa, _ := tcpSockaddr(network, ta)
	connectOn(l, network, family, sa, h, done, o, fail)
}

// connectOn makes the socket and connects it, finishing on l.
func connectOn(l *Loop, network string, family int, sa unix.Sockaddr, h Handler, done func(*Conn, error), o *options, fail func(error)) {
	fd, err := stream(family)
	if err != nil {
		fail(err)
		return
	}
	if family != unix.AF_UNIX {
		unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	}
	pending := false
	switch err := unix.Connect(fd, sa); err {
	case nil:
	case unix.EINPROGRESS:
		pending = true
	default:
		unix.Close(fd)
		fail(os.NewSyscallError("connect", err))
		return
	}
	c := &Conn{loop: l, fd: fd, opts: o}
	connected := func() {
		if u, ok := sa.(*unix.SockaddrUnix); ok {
			c.addrs.setUnix(fd, u.Name)
		} else {
			c.addrs.setTCP(fd, sockaddrToHostPort(sa), hostPort{})
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
		if err := l.register(fd, Writable, fdFunc(func(uint32) {
			if finished {
				return
			}
			finished = true
			timer.Cancel()
			l.unregister(fd)
			if err := sysSocketError(fd); err != nil {
				unix.Close(fd)
				fail(err)
				return
			}
			connected()
		})); err != nil {
			unix.Close(fd)
			fail(err)
			return
		}
		timer = l.Schedule(o.dialTimeout, func() {
			if !finished {
				finished = true
				l.unregister(fd)
				unix.Close(fd)
				fail(os.ErrDeadlineExceeded)
			}
		})
	}
	if l.InLoop() {
		finish()
		return
	}
	if err := l.Execute(finish); err != nil {
		unix.Close(fd)
		fail(err)
	}
}
