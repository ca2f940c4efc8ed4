// Package sock is the event loop's socket layer: stream sockets made,
// bound, listened on, accepted and connected with non-blocking,
// close-on-exec descriptors, their options and addresses, and the reads,
// half-closes and error queries of a connection. It holds system calls
// and no policy: which loop watches a socket, and what a connection does
// with its bytes, is the event loop's. Linux only, but for Addr.
package sock

import (
	"net"
	"net/netip"
)

// An Addr is an IP address and port in 24 bytes (a netip.AddrPort takes
// 32): the address's 16 bytes (IPv4 mapped), the port, and the IPv6 zone
// as an interface index, named when asked for. The zero Addr is no
// address (a Unix socket's, say).
type Addr struct {
	IP   [16]byte
	Port uint16
	Kind uint8 // 0 none, 4 IPv4, 6 IPv6
	Zone uint32
}

// AddrPort returns a as a netip.AddrPort, the zone looked up by index (a
// system call); the zero AddrPort for no address.
func (a Addr) AddrPort() netip.AddrPort {
	var ip netip.Addr
	switch a.Kind {
	case 4:
		ip = netip.AddrFrom16(a.IP).Unmap()
	case 6:
		ip = netip.AddrFrom16(a.IP)
		if a.Zone != 0 {
			if ifi, err := net.InterfaceByIndex(int(a.Zone)); err == nil {
				ip = ip.WithZone(ifi.Name)
			}
		}
	default:
		return netip.AddrPort{}
	}
	return netip.AddrPortFrom(ip, a.Port)
}
