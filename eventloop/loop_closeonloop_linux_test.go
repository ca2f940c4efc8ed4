package eventloop_test

import (
	"context"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/codec/frame"
	"github.com/netkit/netkit/eventloop"
)

// onLoopReturns runs fn on l and reports whether it returned within a few
// seconds; on a deadlock the loop stays blocked (and the group is left
// alone: closing it would block the test too).
func onLoopReturns(t *testing.T, l *eventloop.Loop, fn func()) bool {
	t.Helper()
	returned := make(chan struct{})
	require.NoError(t, l.Execute(func() { fn(); close(returned) }))
	select {
	case <-returned:
		return true
	case <-time.After(3 * time.Second):
		return false
	}
}

// stopped waits until every loop of g refuses work with ErrClosed.
func stopped(t *testing.T, g *eventloop.Group) {
	t.Helper()
	for _, l := range g.Loops() {
		waitFor(t, "the loop to stop", func() bool { return l.Execute(func() {}) == eventloop.ErrClosed })
	}
}

// TestGroupCloseOnLoop: Group.Close called on one of the group's loops
// returns at once (it cannot wait for its own loop), and every loop stops
// after the calling task returns.
func TestGroupCloseOnLoop(t *testing.T) {
	g, err := eventloop.NewGroup(eventloop.Config{Loops: 2})
	require.NoError(t, err)
	var cerr error
	require.True(t, onLoopReturns(t, g.Loops()[1], func() { cerr = g.Close() }), "Group.Close called on a loop did not return: deadlock")
	require.NoError(t, cerr)
	recvOrFail(t, g.Done(), "Done after Close on a loop")
	stopped(t, g)
	require.NoError(t, g.Close(), "Close again, from outside")
}

// TestGroupShutdownOnLoop: Group.Shutdown called on a loop returns at once
// and the loops stop after their quiet period.
func TestGroupShutdownOnLoop(t *testing.T) {
	g, err := eventloop.NewGroup(eventloop.Config{Loops: 2, QuietPeriod: 10 * time.Millisecond})
	require.NoError(t, err)
	var serr error
	require.True(t, onLoopReturns(t, g.Loops()[0], func() { serr = g.Shutdown(context.Background()) }), "Group.Shutdown called on a loop did not return: deadlock")
	require.NoError(t, serr)
	recvOrFail(t, g.Done(), "Done after Shutdown on a loop")
	stopped(t, g)
	require.NoError(t, g.Close())
}

// TestServerShutdownOnLoop: Server.Shutdown called on a loop — the one of
// a busy connection of that server (a partial line read) and the other —
// returns at once; the connection closes once its line is complete and
// answered, and the server ends with none left.
func TestServerShutdownOnLoop(t *testing.T) {
	g, err := eventloop.NewGroup(eventloop.Config{Loops: 2})
	require.NoError(t, err)
	var errs atomic.Int32
	s, err := eventloop.Listen(g, "tcp", "127.0.0.1:0", eventloop.Initializer(func(c *eventloop.Conn) {
		c.Pipeline().AddLast("frames", eventloop.NewFrameDecoder(&frame.Line{MaxFrameLength: 16, StripDelimiter: true}))
		c.Pipeline().AddLast("app", lineApp{&errs})
	}))
	require.NoError(t, err)
	c, err := net.Dial("tcp", s.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Write([]byte("hel"))
	require.NoError(t, err)
	waitFor(t, "the connection", func() bool { return s.Conns() == 1 })
	time.Sleep(20 * time.Millisecond) // the partial line is read
	var serr error
	for _, l := range g.Loops() {
		require.True(t, onLoopReturns(t, l, func() { serr = s.Shutdown(context.Background()) }), "Server.Shutdown called on a loop did not return: deadlock")
		require.NoError(t, serr)
	}
	_, err = c.Write([]byte("lo\n"))
	require.NoError(t, err)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, err := io.ReadAll(c)
	require.NoError(t, err, "the connection closes (EOF) once idle")
	require.Equal(t, "5:hello\n", string(got))
	recvOrFail(t, s.Done(), "Done after Shutdown on a loop")
	require.Zero(t, s.Conns())
	require.NoError(t, s.Close())
	require.NoError(t, g.Close())
}

// TestServerCloseOnLoop: Server.Close called on one loop while another
// loop is busy (here: blocked until that Close returns) returns at once,
// without waiting for the other loop; every connection then closes.
func TestServerCloseOnLoop(t *testing.T) {
	g, err := eventloop.NewGroup(eventloop.Config{Loops: 2})
	require.NoError(t, err)
	s, err := eventloop.Listen(g, "tcp", "127.0.0.1:0", echo{})
	require.NoError(t, err)
	var clients []net.Conn
	for range 4 {
		c, err := net.Dial("tcp", s.Addr().String())
		require.NoError(t, err)
		defer c.Close()
		clients = append(clients, c)
	}
	waitFor(t, "the connections", func() bool { return s.Conns() == 4 })
	closed := make(chan time.Duration, 1)
	busy := make(chan struct{})
	ls := g.Loops()
	require.NoError(t, ls[1].Execute(func() {
		close(busy)
		select { // busy until the other loop's Close returns, or 3 s
		case <-time.After(3 * time.Second):
		case d := <-closed:
			closed <- d
		}
	}))
	<-busy
	require.NoError(t, ls[0].Execute(func() {
		start := time.Now()
		s.Close()
		closed <- time.Since(start)
	}))
	d := recvOrFail(t, closed, "Server.Close on a loop to return")
	require.Less(t, d, time.Second, "Server.Close on a loop waited for another loop")
	recvOrFail(t, s.Done(), "Done after Close on a loop")
	for _, c := range clients {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, err := io.ReadAll(c)
		require.NoError(t, err)
	}
	require.NoError(t, g.Close())
}
