//go:build linux

package sock

import (
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/netkit/netkit/internal/rt/rawio"

	"github.com/netkit/netkit/internal/rt/accept4"
)

// A Target is where a socket binds or connects: a family and an address,
// and for IPv6 whether the socket takes IPv6 only.
type Target struct {
	family int
	sa     unix.Sockaddr
	v6only bool
}

// TCPTarget picks the socket family and address for a TCP address, as the
// net package does: an unspecified address of network "tcp" means both
// IPv6 and IPv4 (one IPv6 socket with IPV6_V6ONLY off) where the system
// has IPv6.
func TCPTarget(network string, ta *net.TCPAddr) Target {
	ip4 := ta.IP.To4()
	switch {
	case network == "tcp4" || (ip4 != nil && network != "tcp6"):
		s4 := &unix.SockaddrInet4{Port: ta.Port}
		if ip4 != nil {
			copy(s4.Addr[:], ip4)
		}
		return Target{family: unix.AF_INET, sa: s4}
	case network == "tcp" && len(ta.IP) == 0 && !haveIPv6():
		return Target{family: unix.AF_INET, sa: &unix.SockaddrInet4{Port: ta.Port}}
	}
	s6 := &unix.SockaddrInet6{Port: ta.Port}
	copy(s6.Addr[:], ta.IP.To16())
	if ta.Zone != "" {
		if ifi, err := net.InterfaceByName(ta.Zone); err == nil {
			s6.ZoneId = uint32(ifi.Index)
		}
	}
	return Target{family: unix.AF_INET6, sa: s6, v6only: network == "tcp6"}
}

// UnixTarget is the Unix socket at path ("@name" for an abstract one).
func UnixTarget(path string) Target {
	return Target{family: unix.AF_UNIX, sa: &unix.SockaddrUnix{Name: path}}
}

// Unix reports whether t is a Unix socket's.
func (t Target) Unix() bool { return t.family == unix.AF_UNIX }

// Path returns a Unix target's path, or "".
func (t Target) Path() string {
	if u, ok := t.sa.(*unix.SockaddrUnix); ok {
		return u.Name
	}
	return ""
}

// Addr returns an IP target's address, or the zero Addr.
func (t Target) Addr() Addr { return toAddr(t.sa) }

// haveIPv6 reports whether the system can make IPv6 sockets.
func haveIPv6() bool {
	fd, err := unix.Socket(unix.AF_INET6, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
}

// stream makes a non-blocking, close-on-exec stream socket.
func stream(family int) (int, error) {
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, os.NewSyscallError("socket", err)
	}
	return fd, nil
}

// Listen makes a listening socket bound to t, with SO_REUSEADDR (and
// SO_REUSEPORT if reusePort) for an IP target.
func (t Target) Listen(reusePort bool, backlog int) (int, error) {
	fd, err := stream(t.family)
	if err != nil {
		return -1, err
	}
	if err := t.bind(fd, reusePort); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if err := unix.Listen(fd, backlog); err != nil {
		unix.Close(fd)
		return -1, os.NewSyscallError("listen", err)
	}
	return fd, nil
}

func (t Target) bind(fd int, reusePort bool) error {
	if t.family == unix.AF_INET6 {
		v := 0
		if t.v6only {
			v = 1
		}
		unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, v)
	}
	if t.family != unix.AF_UNIX {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
			return os.NewSyscallError("setsockopt", err)
		}
	}
	if reusePort {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEPORT, 1); err != nil {
			return os.NewSyscallError("setsockopt", err)
		}
	}
	if err := unix.Bind(fd, t.sa); err != nil {
		return os.NewSyscallError("bind", err)
	}
	return nil
}

// ProbeBind binds a socket without SO_REUSEPORT to t and closes it: an
// error says the address is in use (by any socket, SO_REUSEPORT or not).
func (t Target) ProbeBind() error {
	fd, err := stream(t.family)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return t.bind(fd, false)
}

// Bound returns the target a bound socket fd of t's family has (its port
// chosen, for a port 0) and its address.
func Bound(fd int, t Target) (Target, Addr, error) {
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return t, Addr{}, os.NewSyscallError("getsockname", err)
	}
	t.sa = sa
	return t, toAddr(sa), nil
}

// Connect makes a socket for t and starts connecting it. pending says the
// connection is in progress: wait for the socket to turn writable, then
// ask SocketError. An IP socket gets TCP_NODELAY.
func (t Target) Connect() (fd int, pending bool, err error) {
	fd, err = stream(t.family)
	if err != nil {
		return -1, false, err
	}
	if t.family != unix.AF_UNIX {
		SetNoDelay(fd)
	}
	switch err := unix.Connect(fd, t.sa); err {
	case nil:
		return fd, false, nil
	case unix.EINPROGRESS:
		return fd, true, nil
	default:
		unix.Close(fd)
		return -1, false, os.NewSyscallError("connect", err)
	}
}

// Accept takes a connection off the listening socket fd, non-blocking and
// close-on-exec, and stores its peer's address in *peer, allocating
// nothing. Its errors are the system call's (see AcceptVerdict).
func Accept(fd int, peer *Addr) (int, error) {
	var p accept4.Peer
	nfd, err := accept4.Accept(fd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, &p)
	if err != nil {
		return -1, err
	}
	*peer = Addr{IP: p.IP, Port: p.Port, Kind: p.Kind, Zone: p.Zone}
	return nfd, nil
}

// What a listener does after an Accept error.
const (
	AcceptDone  = iota // no connection is pending (or the socket is gone): wait for the next event
	AcceptRetry        // interrupted, or the connection aborted: accept again
	AcceptPause        // out of descriptors or memory: stop accepting a while
)

// AcceptVerdict says what an Accept error means for the listener.
func AcceptVerdict(err error) int {
	switch err {
	case unix.EINTR, unix.ECONNABORTED:
		return AcceptRetry
	case unix.EMFILE, unix.ENFILE, unix.ENOBUFS, unix.ENOMEM:
		return AcceptPause
	}
	return AcceptDone
}

// SetNoDelay turns TCP_NODELAY on.
func SetNoDelay(fd int) { unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1) }

// LocalAddr returns the IP address fd is bound to (getsockname), or the
// zero Addr.
func LocalAddr(fd int) Addr {
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return Addr{}
	}
	return toAddr(sa)
}

// LocalPath returns the path of the Unix socket fd, or "".
func LocalPath(fd int) string {
	if sa, err := unix.Getsockname(fd); err == nil {
		if u, ok := sa.(*unix.SockaddrUnix); ok {
			return u.Name
		}
	}
	return ""
}

func toAddr(sa unix.Sockaddr) Addr {
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return Addr{IP: netip.AddrFrom4(a.Addr).As16(), Port: uint16(a.Port), Kind: 4}
	case *unix.SockaddrInet6:
		return Addr{IP: a.Addr, Port: uint16(a.Port), Kind: 6, Zone: a.ZoneId}
	}
	return Addr{}
}

// Somaxconn reads the system's cap on listen backlogs.
func Somaxconn() int {
	b, err := os.ReadFile("/proc/sys/net/core/somaxconn")
	if err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n > 0 {
			return n
		}
	}
	return unix.SOMAXCONN
}

// ErrAgain is Read's error when nothing is there to read (EAGAIN).
var ErrAgain error = unix.EAGAIN

// Read reads from fd into p, retrying when a signal interrupts it: n
// bytes (0 at the end of the stream), ErrAgain when nothing is there, or
// the system call's error.
func Read(fd int, p []byte) (int, error) {
	for {
		n, errno := rawio.Read(fd, p)
		switch errno {
		case 0:
			return n, nil
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return 0, ErrAgain
		}
		return 0, os.NewSyscallError("read", errno)
	}
}

// ShutdownWrite half-closes fd: the peer reads the end of the stream.
func ShutdownWrite(fd int) error {
	if err := unix.Shutdown(fd, unix.SHUT_WR); err != nil {
		return os.NewSyscallError("shutdown", err)
	}
	return nil
}

// Close closes fd.
func Close(fd int) { unix.Close(fd) }

// SocketError returns the socket's pending error (SO_ERROR), or nil.
func SocketError(fd int) error {
	v, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
	if err != nil {
		return os.NewSyscallError("getsockopt", err)
	}
	if v != 0 {
		return os.NewSyscallError("socket", unix.Errno(v))
	}
	return nil
}

// Unread returns the bytes waiting to be read in the socket (SIOCINQ); an
// error counts as none.
func Unread(fd int) int {
	n, err := unix.IoctlGetInt(fd, unix.SIOCINQ)
	if err != nil {
		return 0
	}
	return n
}
