//go:build linux && !nounsafe

package accept4

import (
	"net/netip"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Accept takes a pending connection off the listening socket fd with
// accept4(2) and flags (unix.SOCK_NONBLOCK, unix.SOCK_CLOEXEC), stores its
// peer's address in *peer, and returns the connection's descriptor or the
// system call's error (an Errno).
func Accept(fd, flags int, peer *Peer) (int, error) {
	var rsa unix.RawSockaddrAny
	n := uint32(unsafe.Sizeof(rsa))
	nfd, _, e := unix.Syscall6(unix.SYS_ACCEPT4, uintptr(fd), uintptr(unsafe.Pointer(&rsa)),
		uintptr(unsafe.Pointer(&n)), uintptr(flags), 0, 0)
	if e != 0 {
		return -1, e
	}
	switch rsa.Addr.Family {
	case unix.AF_INET:
		a := (*unix.RawSockaddrInet4)(unsafe.Pointer(&rsa))
		*peer = Peer{IP: netip.AddrFrom4(a.Addr).As16(), Port: ntohs(a.Port), Kind: 4}
	case unix.AF_INET6:
		a := (*unix.RawSockaddrInet6)(unsafe.Pointer(&rsa))
		*peer = Peer{IP: a.Addr, Port: ntohs(a.Port), Kind: 6, Zone: a.Scope_id}
	default:
		*peer = Peer{}
	}
	return int(nfd), nil
}

// ntohs returns the port a raw sockaddr holds in network byte order.
func ntohs(p uint16) uint16 {
	b := (*[2]byte)(unsafe.Pointer(&p))
	return uint16(b[0])<<8 | uint16(b[1])
}
