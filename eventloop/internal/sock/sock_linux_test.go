package sock

import (
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// waitReady polls fd until it is ready for events (unix.POLLIN or
// unix.POLLOUT), for at most a few seconds.
func waitReady(t *testing.T, fd int, events int16) {
	t.Helper()
	fds := []unix.PollFd{{Fd: int32(fd), Events: events}}
	n, err := unix.Poll(fds, 5000)
	require.NoError(t, err)
	require.Equal(t, 1, n, "descriptor %d not ready in time", fd)
}

// TestTCP: a listener on port 0 is bound to a port (Bound), a connection
// to it completes, Accept returns the dialer's address, the local
// addresses agree, bytes cross and a half-close reads as the end.
func TestTCP(t *testing.T) {
	target := TCPTarget("tcp4", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	assert.False(t, target.Unix())
	lfd, err := target.Listen(false, 16)
	require.NoError(t, err)
	defer Close(lfd)
	bound, addr, err := Bound(lfd, target)
	require.NoError(t, err)
	require.NotZero(t, addr.Port)
	assert.Equal(t, "127.0.0.1", addr.AddrPort().Addr().String())
	assert.Equal(t, addr, bound.Addr())
	assert.Error(t, bound.ProbeBind(), "the port is in use")

	cfd, pending, err := bound.Connect()
	require.NoError(t, err)
	defer Close(cfd)
	if pending {
		waitReady(t, cfd, unix.POLLOUT)
	}
	require.NoError(t, SocketError(cfd))
	waitReady(t, lfd, unix.POLLIN)
	var peer Addr
	afd, err := Accept(lfd, &peer)
	require.NoError(t, err)
	defer Close(afd)
	assert.Equal(t, LocalAddr(cfd), peer, "the accepted peer is the dialer")
	assert.Equal(t, addr, LocalAddr(afd))

	_, err = unix.Write(cfd, []byte("hi"))
	require.NoError(t, err)
	require.NoError(t, ShutdownWrite(cfd))
	waitReady(t, afd, unix.POLLIN)
	for Unread(afd) < 2 {
		time.Sleep(time.Millisecond)
	}
	p := make([]byte, 8)
	n, err := Read(afd, p)
	require.NoError(t, err)
	assert.Equal(t, "hi", string(p[:n]))
	n, err = Read(afd, p)
	require.NoError(t, err)
	assert.Zero(t, n, "the half-close reads as the end")

	_, err = Accept(lfd, &peer)
	assert.Equal(t, ErrAgain, err, "nothing pending")
	assert.Equal(t, AcceptDone, AcceptVerdict(err))
	assert.Equal(t, AcceptRetry, AcceptVerdict(unix.ECONNABORTED))
	assert.Equal(t, AcceptPause, AcceptVerdict(unix.EMFILE))
}

// TestUnix: a Unix listener and a connection to it; the path is the
// listener's local path.
func TestUnix(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s")
	target := UnixTarget(path)
	require.True(t, target.Unix())
	assert.Equal(t, path, target.Path())
	assert.Equal(t, Addr{}, target.Addr())
	lfd, err := target.Listen(false, 4)
	require.NoError(t, err)
	defer Close(lfd)
	defer os.Remove(path)
	assert.Equal(t, path, LocalPath(lfd))
	cfd, pending, err := target.Connect()
	require.NoError(t, err)
	defer Close(cfd)
	if pending {
		waitReady(t, cfd, unix.POLLOUT)
	}
	waitReady(t, lfd, unix.POLLIN)
	var peer Addr
	afd, err := Accept(lfd, &peer)
	require.NoError(t, err)
	defer Close(afd)
	assert.Equal(t, Addr{}, peer, "a Unix peer has no IP address")
}

// TestConnectRefused: connecting where nothing listens fails, at once or
// through SocketError.
func TestConnectRefused(t *testing.T) {
	target := TCPTarget("tcp4", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	lfd, err := target.Listen(false, 1)
	require.NoError(t, err)
	bound, _, err := Bound(lfd, target)
	require.NoError(t, err)
	Close(lfd) // the port is free again, and nothing listens
	fd, pending, err := bound.Connect()
	if err != nil {
		return // refused at once
	}
	defer Close(fd)
	require.True(t, pending)
	waitReady(t, fd, unix.POLLOUT)
	assert.Error(t, SocketError(fd))
}
