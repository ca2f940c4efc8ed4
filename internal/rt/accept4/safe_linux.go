//go:build linux && nounsafe

package accept4

import (
	"net/netip"

	"golang.org/x/sys/unix"
)

// Accept takes a pending connection off the listening socket fd with
// accept4(2) and flags (unix.SOCK_NONBLOCK, unix.SOCK_CLOEXEC), stores its
// peer's address in *peer, and returns the connection's descriptor or the
// system call's error (an Errno).
func Accept(fd, flags int, peer *Peer) (int, error) {
	nfd, sa, err := unix.Accept4(fd, flags)
	if err != nil {
		return -1, err
	}
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		*peer = Peer{IP: netip.AddrFrom4(a.Addr).As16(), Port: uint16(a.Port), Kind: 4}
	case *unix.SockaddrInet6:
		*peer = Peer{IP: a.Addr, Port: uint16(a.Port), Kind: 6, Zone: a.ZoneId}
	default:
		*peer = Peer{}
	}
	return nfd, nil
}
