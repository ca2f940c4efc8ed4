// Package accept4 accepts a connection and decodes its peer's address
// without allocating: unix.Accept4 returns the address as a new
// unix.Sockaddr, one allocation per connection.
//
// Accept passes a sockaddr buffer on the stack to the accept4 system call
// and reads the IPv4 or IPv6 address from it in place (unsafe pointer
// conversions). The pure-Go twin, under the build tag nounsafe, calls
// unix.Accept4 and copies the address out of its result: the same answer,
// with the allocation. Linux only.
package accept4

// A Peer is the address of an accepted connection's peer.
type Peer struct {
	IP   [16]byte // IPv4 addresses are IPv4-mapped
	Port uint16
	Kind uint8  // 4 IPv4, 6 IPv6, 0 another family (a Unix socket's peer)
	Zone uint32 // the IPv6 scope (an interface index), or 0
}
