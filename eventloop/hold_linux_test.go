package eventloop_test

import (
	"context"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/eventloop"
)

// holder holds its connection on the first byte it reads, and hands the
// connection to the test.
type holder struct{ got chan<- *eventloop.Conn }

func (h holder) OnRead(x *eventloop.Context, msg any) {
	msg.(*buf.Composite).Discard(msg.(*buf.Composite).Len())
	x.Conn().Hold()
	h.got <- x.Conn()
}

// A held connection is not idle: Server.Shutdown waits for its Unhold,
// then closes it; WithIdleTimeout leaves it open while held.
func TestHoldDelaysShutdownAndIdle(t *testing.T) {
	g := newGroup(t, eventloop.Config{Loops: 1})
	got := make(chan *eventloop.Conn, 1)
	s := listen(t, g, "tcp", "127.0.0.1:0", holder{got}, eventloop.WithIdleTimeout(50*time.Millisecond))
	c, err := net.Dial("tcp", s.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Write([]byte{1})
	require.NoError(t, err)
	cn := <-got
	time.Sleep(200 * time.Millisecond) // four idle timeouts
	c.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
	_, err = c.Read(make([]byte, 1))
	require.ErrorIs(t, err, os.ErrDeadlineExceeded, "the held connection was closed: %v", err)

	done := make(chan error, 1)
	go func() { done <- s.Shutdown(context.Background()) }()
	select {
	case err := <-done:
		t.Fatalf("Shutdown returned (%v) while the connection was held", err)
	case <-time.After(100 * time.Millisecond):
	}
	run(t, cn.Loop(), cn.Unhold)
	require.NoError(t, <-done)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = c.Read(make([]byte, 1))
	require.ErrorIs(t, err, io.EOF)
	var r any
	run(t, cn.Loop(), func() {
		defer func() { r = recover() }()
		cn.Unhold()
	})
	require.Equal(t, "eventloop: Unhold without a Hold", r)
}

// aborter queues far more than the socket takes and aborts.
type aborter struct{ queued chan<- int }

func (h aborter) OnRead(x *eventloop.Context, msg any) {
	msg.(*buf.Composite).Discard(msg.(*buf.Composite).Len())
	cn := x.Conn()
	for range 256 { // 16 MiB
		b := buf.Get(64 << 10)
		b.Commit(64 << 10)
		x.Write(b)
	}
	x.Flush()
	h.queued <- cn.Outbound()
	cn.Abort(nil)
}

// Abort closes at once, dropping what is queued: a client that does not
// read sees the connection end without the 16 MiB.
func TestAbortDropsQueue(t *testing.T) {
	g := newGroup(t, eventloop.Config{Loops: 1})
	queued := make(chan int, 1)
	s := listen(t, g, "tcp", "127.0.0.1:0", aborter{queued})
	c, err := smallRcvBuf(context.Background(), "tcp", s.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Write([]byte{1})
	require.NoError(t, err)
	left := <-queued
	require.Positive(t, left, "the socket took all 16 MiB at once")
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, _ := io.Copy(io.Discard, c)
	require.LessOrEqual(t, n, int64(16<<20-left), "the aborted queue was sent anyway")
}
