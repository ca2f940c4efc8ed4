package eventloop

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/netkit/netkit/eventloop/internal/poll"
)

// TestWakeAfterCloseWritesNothing races a wakeup from another goroutine
// with Group.Close: the waker has decided to write the loop's eventfd when
// the group closes, and the eventfd's number is handed out again (here to
// a pipe, dup'ed onto it). The late wakeup must not write its 8 bytes into
// whatever took the number: Close waits for the waker, which then sees the
// loop closed.
func TestWakeAfterCloseWritesNothing(t *testing.T) {
	g, err := NewGroup(Config{Loops: 1})
	require.NoError(t, err)
	l := g.loops[0]
	evfd := l.sys.WakeFD()

	var p [2]int
	require.NoError(t, unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC))
	defer unix.Close(p[0])

	var fired atomic.Bool
	reused := false
	poll.TestHookWake = func() {
		if !fired.CompareAndSwap(false, true) {
			return
		}
		closed := make(chan struct{})
		go func() { g.Close(); close(closed) }()
		select {
		case <-closed:
			// The descriptors are gone while this waker is about to
			// write: give the number to the pipe, as the kernel would
			// to the next socket.
			require.NoError(t, unix.Dup3(p[1], evfd, unix.O_CLOEXEC))
			reused = true
		case <-time.After(300 * time.Millisecond):
			// Close waits for this waker: the fixed behaviour.
		}
	}
	defer func() { poll.TestHookWake = nil }()

	for !l.Sleeping() {
		time.Sleep(time.Millisecond)
	}
	_ = l.Execute(func() {})
	<-g.Done()
	poll.TestHookWake = nil
	if reused {
		defer unix.Close(evfd)
	}

	var b [16]byte
	n, err := unix.Read(p[0], b[:])
	require.Equal(t, unix.EAGAIN, err, "a wakeup after Close wrote %d bytes into the descriptor that reused the eventfd's number", n)
	require.False(t, reused, "Close returned while a waker was about to write the eventfd")
}
