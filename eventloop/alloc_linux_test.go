package eventloop_test

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/netkit/netkit/codec/frame"
	"github.com/netkit/netkit/eventloop"
	"github.com/netkit/netkit/internal/testenv"
)

// TestAllocs: Execute allocates nothing beyond the caller's closure; on
// the loop, Schedule+Cancel allocates nothing; from another goroutine,
// Schedule allocates the timer only, and Cancel nothing.
func TestAllocs(t *testing.T) {
	testenv.SkipAllocs(t)
	l := newGroup(t, eventloop.Config{Loops: 1}).Next()
	task := func() {}
	n := testing.AllocsPerRun(1000, func() { l.Execute(task) })
	assert.Equal(t, float64(0), n, "Execute: %v allocations, want 0", n)
	run(t, l, func() {
		for range 100 { // warm the free list
			l.Schedule(time.Hour, task).Cancel()
		}
		n := testing.AllocsPerRun(1000, func() { l.Schedule(time.Hour, task).Cancel() })
		assert.Equal(t, float64(0), n, "on the loop, Schedule+Cancel: %v allocations, want 0", n)
	})
	n = testing.AllocsPerRun(1000, func() { l.Schedule(time.Hour, task).Cancel() })
	assert.LessOrEqual(t, n, float64(1), "from outside, Schedule+Cancel: allocations")
	run(t, l, func() {})
}

// TestEchoAllocs: a loopback echo allocates nothing per message in steady
// state — read buffer, inbound composite, pipeline, zero-copy move to the
// outbound composite, writev — counted over the whole process while a
// client on raw blocking syscalls (which allocate nothing) ping-pongs. The
// loop parks between messages: without a timer, and with an idle timeout,
// whose deadline the park sets on the runtime's poller.
func TestEchoAllocs(t *testing.T) {
	testenv.SkipAllocs(t)
	g := newGroup(t, eventloop.Config{Loops: 1})
	for _, opts := range [][]eventloop.Option{nil, {eventloop.WithIdleTimeout(time.Minute)}} {
		echoAllocs(t, g, opts)
	}
}

func echoAllocs(t *testing.T, g *eventloop.Group, opts []eventloop.Option) {
	for _, size := range []int{64, 512, 4096} {
		s := listen(t, g, "tcp", "127.0.0.1:0", echo{}, opts...)
		fd := rawDial(t, s.Addr().(*net.TCPAddr))
		n, _ := roundTripAllocs(t, fd, make([]byte, size))
		assert.Equal(t, float64(0), n, "%d B echo (%d options): %v allocations per round trip, want 0", size, len(opts), n)
		unix.Close(fd)
	}
}

// roundTripAllocs writes msg to fd and reads as many bytes back, 200 times
// to warm pools, free lists and the receive size, then 1000 times under
// testing.AllocsPerRun; it returns the allocations per round trip and the
// last answer.
func roundTripAllocs(t *testing.T, fd int, msg []byte) (float64, []byte) {
	t.Helper()
	got := make([]byte, len(msg))
	pingPong := func() {
		_, err := unix.Write(fd, msg)
		require.NoError(t, err)
		for n := 0; n < len(got); {
			m, err := unix.Read(fd, got[n:])
			if err != nil || m == 0 { // no assertion call per read: its arguments would allocate
				require.FailNowf(t, "read failed", "read: %d, %v", m, err)
			}
			n += m
		}
	}
	for range 200 {
		pingPong()
	}
	return testing.AllocsPerRun(1000, pingPong), got
}

// rawDial connects a blocking socket to a, for clients that must not
// allocate.
func rawDial(t *testing.T, a *net.TCPAddr) int {
	t.Helper()
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	require.NoError(t, err)
	sa := &unix.SockaddrInet4{Port: a.Port}
	copy(sa.Addr[:], a.IP.To4())
	if err := unix.Connect(fd, sa); err != nil {
		unix.Close(fd)
		t.Fatal(err)
	}
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	return fd
}

// retainEcho answers each line (delimiter kept) with the line itself, kept
// with Frame.Retain and written back.
type retainEcho struct{}

func (retainEcho) OnRead(x *eventloop.Context, msg any) { x.Write(msg.(*eventloop.Frame).Retain()) }
func (retainEcho) OnReadComplete(x *eventloop.Context)  { x.Flush() }

// TestFrameDecoderAllocs: lines through a FrameDecoder, lent and then
// retained by the handler (a copy for a short line, a view of the read for
// a long one), allocate nothing per message in steady state.
func TestFrameDecoderAllocs(t *testing.T) {
	testenv.SkipAllocs(t)
	g := newGroup(t, eventloop.Config{Loops: 1})
	for _, size := range []int{64, 1000} {
		s := listen(t, g, "tcp", "127.0.0.1:0", eventloop.Initializer(func(c *eventloop.Conn) {
			c.Pipeline().AddLast("lines", eventloop.NewFrameDecoder(&frame.Line{}))
			c.Pipeline().AddLast("app", retainEcho{})
		}))
		fd := rawDial(t, s.Addr().(*net.TCPAddr))
		msg := make([]byte, size)
		for i := range msg {
			msg[i] = 'a'
		}
		msg[size-1] = '\n'
		n, got := roundTripAllocs(t, fd, msg)
		assert.Equal(t, float64(0), n, "%d B lines: %v allocations per round trip, want 0", size, n)
		require.Equal(t, msg, got)
		unix.Close(fd)
	}
}
