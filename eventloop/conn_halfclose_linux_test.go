package eventloop_test

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/eventloop"
)

// halfEcho echoes and counts events, OnReadClosed included; with tail set
// it answers the peer's half-close by writing tail and closing.
type halfEcho struct {
	n    *counter
	tail string
}

func (h halfEcho) OnActive(x *eventloop.Context)   { h.n.OnActive(x) }
func (h halfEcho) OnInactive(x *eventloop.Context) { h.n.OnInactive(x) }
func (h halfEcho) OnError(x *eventloop.Context, err error) {
	h.n.OnError(x, err)
}
func (halfEcho) OnRead(x *eventloop.Context, msg any) { x.Write(msg) }
func (halfEcho) OnReadComplete(x *eventloop.Context)  { x.Flush() }
func (h halfEcho) OnReadClosed(x *eventloop.Context) {
	h.n.OnReadClosed(x)
	if h.tail == "" {
		return
	}
	if err := x.Write([]byte(h.tail)); err != nil {
		panic(err)
	}
	x.Close()
}

func dialTCP(t *testing.T, addr string) *net.TCPConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(30 * time.Second))
	return c.(*net.TCPConn)
}

// TestHalfClose covers both directions of a half-close and what the
// server does on the peer's FIN.
func TestHalfClose(t *testing.T) {
	// The client shuts down writing: the server's OnReadClosed fires once
	// and the server still writes (the echo, then a tail) before closing;
	// the client reads it all, then EOF.
	t.Run("client-closes-write", func(t *testing.T) {
		clean(t)
		g := relGroup(t, 2, nil)
		var n counter
		s := listen(t, g, "tcp", "127.0.0.1:0", halfEcho{n: &n, tail: " and goodbye"})
		c := dialTCP(t, s.Addr().String())
		_, err := c.Write([]byte("hello"))
		require.NoError(t, err)
		require.NoError(t, c.CloseWrite())
		got, err := io.ReadAll(c)
		require.NoError(t, err)
		require.Equal(t, "hello and goodbye", string(got), "client read %q, want %q", got, "hello and goodbye")
		waitFor(t, "the server to close", func() bool { return n.inactive.Load() == 1 && s.Conns() == 0 })
		r := n.readClosed.Load()
		assert.Equal(t, int64(1), r, "OnReadClosed fired %d times, want 1", r)
		e := n.errors()
		assert.Empty(t, e, "OnError: %v", e)
	})

	// The server shuts down writing: the client reads what it wrote, then
	// EOF, and can still write to the server, which reads it; the server's
	// own writes after CloseWrite fail with ErrConnClosed; the client's FIN
	// then closes the server's connection fully.
	t.Run("server-closes-write", func(t *testing.T) {
		clean(t)
		g := relGroup(t, 2, nil)
		var n counter
		got := make(chan string, 16)
		writeErr := make(chan error, 16)
		s := listen(t, g, "tcp", "127.0.0.1:0", eventloop.Initializer(func(c *eventloop.Conn) {
			c.Pipeline().AddLast("server", &closeWriter{n: &n, got: got, writeErr: writeErr})
		}))
		c := dialTCP(t, s.Addr().String())
		first, err := io.ReadAll(c)
		require.NoError(t, err)
		require.Equal(t, "greeting", string(first), "client read %q before EOF, want %q", first, "greeting")
		_, err = c.Write([]byte("after EOF"))
		require.NoError(t, err)
		var sb []byte
		for string(sb) != "after EOF" {
			sb = append(sb, recvOrFail(t, got, "the server to read the client's bytes")...)
			if len(sb) > len("after EOF") {
				break
			}
		}
		require.Equal(t, "after EOF", string(sb), "server read %q, want %q", sb, "after EOF")
		assert.ErrorIs(t, recvOrFail(t, writeErr, "the server's write"), eventloop.ErrConnClosed, "server write after CloseWrite")
		require.NoError(t, c.CloseWrite())
		waitFor(t, "the server to close", func() bool { return n.inactive.Load() == 1 && s.Conns() == 0 })
		e := n.errors()
		assert.Empty(t, e, "OnError: %v", e)
	})

	// WithCloseOnReadClosed: the peer's FIN closes the connection after
	// the echo is flushed, without OnReadClosed.
	t.Run("close-on-read-closed", func(t *testing.T) {
		clean(t)
		g := relGroup(t, 2, nil)
		var n counter
		s := listen(t, g, "tcp", "127.0.0.1:0", halfEcho{n: &n}, eventloop.WithCloseOnReadClosed())
		c := dialTCP(t, s.Addr().String())
		pingClose(t, c)
		waitFor(t, "the server to close", func() bool { return n.inactive.Load() == 1 && s.Conns() == 0 })
		r := n.readClosed.Load()
		assert.Equal(t, int64(0), r, "OnReadClosed fired %d times with WithCloseOnReadClosed, want 0", r)
	})

	// No handler takes OnReadClosed: the tail closes the connection after
	// the echo is flushed.
	t.Run("tail-closes", func(t *testing.T) {
		clean(t)
		g := relGroup(t, 2, nil)
		var n counter
		s := listen(t, g, "tcp", "127.0.0.1:0", countingEcho{&n})
		c := dialTCP(t, s.Addr().String())
		pingClose(t, c)
		waitFor(t, "the server to close", func() bool { return n.inactive.Load() == 1 && s.Conns() == 0 })
	})
}

// TestHalfCloseQueued: half-closes with megabytes still queued on the
// server, for a client that reads slowly.
func TestHalfCloseQueued(t *testing.T) {
	// The server calls CloseWrite right after queueing the stream: the
	// shutdown waits for the queue to drain, so the client reads every
	// byte, then EOF; its own FIN then closes the server's connection.
	t.Run("server-closes-write", func(t *testing.T) {
		clean(t)
		g := relGroup(t, 2, nil)
		var n counter
		queued := make(chan int, 1)
		s := listen(t, g, "tcp", "127.0.0.1:0", shutdownServer{n: &n, queued: queued})
		c := shutdownClient(t, s.Addr().String(), 'w')
		require.NotEqual(t, 0, recvOrFail(t, queued, "the stream to be queued"), "the socket took the whole stream: nothing queued")
		got, err := readStream(c, true)
		require.NoError(t, err, "client read %d of %d bytes, then", got, shutdownStream)
		require.Equal(t, int64(shutdownStream), got, "client read %d of %d bytes, then %v", got, shutdownStream, err)
		c.(*net.TCPConn).CloseWrite()
		waitFor(t, "the server to close", func() bool { return n.inactive.Load() == 1 && s.Conns() == 0 })
		e := n.errors()
		assert.Empty(t, e, "OnError: %v", e)
	})

	// The client asks for the stream and half-closes at once: the tail
	// closes the server's connection only after the queue has drained, so
	// the client reads every byte, then EOF.
	t.Run("client-closes-write", func(t *testing.T) {
		clean(t)
		g := relGroup(t, 2, nil)
		var n counter
		queued := make(chan int, 1)
		s := listen(t, g, "tcp", "127.0.0.1:0", shutdownServer{n: &n, queued: queued})
		c := shutdownClient(t, s.Addr().String(), 's')
		c.(*net.TCPConn).CloseWrite()
		require.NotEqual(t, 0, recvOrFail(t, queued, "the stream to be queued"), "the socket took the whole stream: nothing queued")
		got, err := readStream(c, true)
		require.NoError(t, err, "client read %d of %d bytes, then", got, shutdownStream)
		require.Equal(t, int64(shutdownStream), got, "client read %d of %d bytes, then %v", got, shutdownStream, err)
		waitFor(t, "the server to close", func() bool { return n.inactive.Load() == 1 && s.Conns() == 0 })
		e := n.errors()
		assert.Empty(t, e, "OnError: %v", e)
	})
}

// pingClose writes "ping", shuts down writing and expects the echo, then
// EOF.
func pingClose(t *testing.T, c *net.TCPConn) {
	t.Helper()
	_, err := c.Write([]byte("ping"))
	require.NoError(t, err)
	require.NoError(t, c.CloseWrite())
	got, err := io.ReadAll(c)
	require.NoError(t, err)
	require.Equal(t, "ping", string(got), "client read %q, want %q", got, "ping")
}

// closeWriter greets and shuts down writing at once; it reports what it
// reads and the error of a write attempted after CloseWrite.
type closeWriter struct {
	n        *counter
	got      chan string
	writeErr chan error
}

func (w *closeWriter) OnInactive(x *eventloop.Context)         { w.n.OnInactive(x) }
func (w *closeWriter) OnError(x *eventloop.Context, err error) { w.n.OnError(x, err) }
func (w *closeWriter) OnReadClosed(x *eventloop.Context)       { w.n.OnReadClosed(x); x.FireReadClosed() }

func (w *closeWriter) OnActive(x *eventloop.Context) {
	w.n.OnActive(x)
	if err := x.Write([]byte("greeting")); err != nil {
		panic(err)
	}
	if err := x.Conn().CloseWrite(); err != nil {
		panic(err)
	}
}

func (w *closeWriter) OnRead(x *eventloop.Context, msg any) {
	in := msg.(*buf.Composite)
	p, _ := in.Next(in.Len())
	w.got <- string(p)
	w.writeErr <- x.Write([]byte("too late"))
}
