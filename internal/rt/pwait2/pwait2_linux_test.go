//go:build !nounsafe

package pwait2

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestWait: a timeout of 2 ms waits at least that long with nothing ready
// (not a rounded-up or rounded-down millisecond count), and a ready
// descriptor is reported at once.
func TestWait(t *testing.T) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	require.NoError(t, err)
	defer unix.Close(epfd)
	events := make([]unix.EpollEvent, 4)
	if _, err := Wait(epfd, events, 0); err == unix.ENOSYS {
		t.Skip("no epoll_pwait2 on this kernel")
	}
	start := time.Now()
	n, err := Wait(epfd, events, int64(2*time.Millisecond))
	require.NoError(t, err)
	assert.Zero(t, n)
	assert.GreaterOrEqual(t, time.Since(start), 2*time.Millisecond, "the wait ended early")

	var p [2]int
	require.NoError(t, unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK))
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	require.NoError(t, unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, p[0], &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(p[0])}))
	_, err = unix.Write(p[1], []byte{1})
	require.NoError(t, err)
	n, err = Wait(epfd, events, int64(time.Hour))
	require.NoError(t, err)
	require.Equal(t, 1, n)
	assert.Equal(t, int32(p[0]), events[0].Fd)
}
