package accept4

import (
	"net"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestAccept: the peer of an IPv4 and of an IPv6 connection is the
// dialer's address and port.
func TestAccept(t *testing.T) {
	for _, network := range []string{"tcp4", "tcp6"} {
		t.Run(network, func(t *testing.T) {
			host := "127.0.0.1:0"
			if network == "tcp6" {
				host = "[::1]:0"
			}
			ln, err := net.Listen(network, host)
			if err != nil && network == "tcp6" {
				t.Skip("no IPv6:", err)
			}
			require.NoError(t, err)
			defer ln.Close()
			f, err := ln.(*net.TCPListener).File() // a blocking duplicate
			require.NoError(t, err)
			defer f.Close()
			c, err := net.Dial(network, ln.Addr().String())
			require.NoError(t, err)
			defer c.Close()
			var peer Peer
			fd, err := Accept(int(f.Fd()), unix.SOCK_CLOEXEC, &peer)
			require.NoError(t, err)
			defer unix.Close(fd)
			want := c.LocalAddr().(*net.TCPAddr).AddrPort()
			got := netip.AddrPortFrom(netip.AddrFrom16(peer.IP), peer.Port)
			if peer.Kind == 4 {
				got = netip.AddrPortFrom(got.Addr().Unmap(), got.Port())
			}
			assert.Equal(t, want, got)
			assert.EqualValues(t, map[string]int{"tcp4": 4, "tcp6": 6}[network], peer.Kind)
		})
	}
}

// TestAcceptError: the system call's error comes back as an Errno.
func TestAcceptError(t *testing.T) {
	var peer Peer
	_, err := Accept(-1, 0, &peer)
	assert.Equal(t, unix.EBADF, err)
}
