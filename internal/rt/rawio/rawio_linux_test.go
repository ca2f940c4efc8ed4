package rawio

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestRead: bytes, EAGAIN on an empty non-blocking pipe, 0 at the end of
// the stream, and EBADF, the same in both builds.
func TestRead(t *testing.T) {
	var fds [2]int
	require.NoError(t, unix.Pipe2(fds[:], unix.O_NONBLOCK|unix.O_CLOEXEC))
	defer unix.Close(fds[0])
	p := make([]byte, 8)
	n, e := Read(fds[0], p)
	assert.Equal(t, syscall.EAGAIN, e)
	assert.Zero(t, n)
	_, err := unix.Write(fds[1], []byte("hello"))
	require.NoError(t, err)
	n, e = Read(fds[0], p[:3])
	require.Zero(t, e)
	assert.Equal(t, "hel", string(p[:n]))
	n, e = Read(fds[0], p)
	require.Zero(t, e)
	assert.Equal(t, "lo", string(p[:n]))
	n, e = Read(fds[0], nil)
	assert.Zero(t, n)
	assert.Zero(t, e)
	unix.Close(fds[1])
	n, e = Read(fds[0], p)
	assert.Zero(t, e, "the end of the stream is not an error")
	assert.Zero(t, n)
	_, e = Read(-1, p)
	assert.Equal(t, syscall.EBADF, e)
}
