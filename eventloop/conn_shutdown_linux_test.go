package eventloop_test

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/eventloop"
)

const shutdownStream = 4 << 20

// shutdownServer answers a client's first byte: 's' queues the whole
// stream at once (ignoring the water marks) and reports how much of it the
// socket did not take; 'w' does the same, then CloseWrite; 'i' answers
// "ok" and leaves the connection idle.
type shutdownServer struct {
	n      *counter
	queued chan<- int
}

func (h shutdownServer) OnActive(x *eventloop.Context)           { h.n.OnActive(x) }
func (h shutdownServer) OnInactive(x *eventloop.Context)         { h.n.OnInactive(x) }
func (h shutdownServer) OnError(x *eventloop.Context, err error) { h.n.OnError(x, err) }
func (h shutdownServer) OnRead(x *eventloop.Context, msg any) {
	in := msg.(*buf.Composite)
	cmd, err := in.ReadByte()
	if err != nil {
		return
	}
	switch cmd {
	case 's', 'w':
		w := newStream(3)
		for w.off < shutdownStream {
			b := buf.Default.Get(64 << 10)
			w.fill(b.AvailableBuffer()[:64<<10])
			b.Commit(64 << 10)
			x.Write(b)
		}
		x.Flush()
		h.queued <- x.Conn().Outbound()
		if cmd == 'w' {
			x.Conn().CloseWrite()
		}
	case 'i':
		x.Write([]byte("ok"))
		x.Flush()
	}
}

// shutdownClient sends cmd; for 'i' it waits for the answer.
func shutdownClient(t *testing.T, addr string, cmd byte) net.Conn {
	t.Helper()
	c, err := smallRcvBuf(context.Background(), "tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(30 * time.Second))
	_, err = c.Write([]byte{cmd})
	require.NoError(t, err)
	if cmd == 'i' {
		p := make([]byte, 2)
		_, err := io.ReadFull(c, p)
		require.NoError(t, err, "idle client: %q,", p)
		require.Equal(t, "ok", string(p), "idle client: %q, %v", p, err)
	}
	return c
}

// readStream reads c to EOF, checking the bytes against the stream, and
// returns how many it read and the error that ended it (nil for EOF).
func readStream(c net.Conn, slow bool) (int64, error) {
	r := newStream(3)
	p := make([]byte, 64<<10)
	for {
		n, err := c.Read(p)
		if cerr := r.check(p[:n]); cerr != nil {
			return r.off, cerr
		}
		if err == io.EOF {
			return r.off, nil
		}
		if err != nil {
			return r.off, err
		}
		if slow {
			time.Sleep(time.Millisecond)
		}
	}
}

func TestServerShutdown(t *testing.T) {
	// Streaming clients that have not read yet have megabytes queued on
	// the server; idle clients have nothing. Shutdown closes the idle ones
	// at once — they read EOF while the streams have not been read at all
	// and Shutdown has not returned — refuses new connections, then
	// delivers every queued byte to the slow readers, closes them, and
	// returns nil, with one OnInactive per connection and no error.
	t.Run("drains", func(t *testing.T) {
		clean(t)
		const streams, idles = 3, 5
		g := relGroup(t, 2, nil)
		var n counter
		queued := make(chan int, streams)
		s := listen(t, g, "tcp", "127.0.0.1:0", shutdownServer{n: &n, queued: queued})
		addr := s.Addr().String()
		var sc, ic []net.Conn
		for range streams {
			sc = append(sc, shutdownClient(t, addr, 's'))
		}
		for range streams {
			require.NotEqual(t, 0, recvOrFail(t, queued, "the stream to be queued"), "the socket took the whole stream: nothing in flight to drain")
		}
		for range idles {
			ic = append(ic, shutdownClient(t, addr, 'i'))
		}
		done := make(chan error, 1)
		go func() { done <- s.Shutdown(context.Background()) }()
		for i, c := range ic {
			k, err := c.Read(make([]byte, 1))
			require.Equal(t, io.EOF, err, "idle client %d: read %d bytes", i, k)
		}
		select {
		case err := <-done:
			t.Fatalf("Shutdown returned (%v) with streams undelivered", err)
		default:
		}
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			assert.Fail(t, "a connection was accepted after Shutdown began")
		} else {
			assert.ErrorIs(t, err, syscall.ECONNREFUSED, "dial after Shutdown began")
		}
		var wg sync.WaitGroup
		for i, c := range sc {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, err := readStream(c, true)
				assert.False(t, err != nil || got != shutdownStream, "stream client %d: read %d of %d bytes, then %v", i, got, shutdownStream, err)
			}()
		}
		wg.Wait()
		assert.NoError(t, recvOrFail(t, done, "Shutdown to return"), "Shutdown")
		c := s.Conns()
		assert.Equal(t, 0, c, "Conns() = %d after Shutdown", c)
		a, i := n.active.Load(), n.inactive.Load()
		assert.False(t, a != streams+idles || i != streams+idles, "OnActive %d, OnInactive %d times; want %d each", a, i, streams+idles)
		e := n.errors()
		assert.Empty(t, e, "OnError: %v", e)
	})

	// A client that never reads: Shutdown with a 300 ms deadline returns
	// context.DeadlineExceeded, and the connection is closed by then
	// (Conns 0, OnInactive fired); the client gets part of the stream,
	// intact, then the end.
	t.Run("deadline", func(t *testing.T) {
		clean(t)
		g := relGroup(t, 2, nil)
		var n counter
		queued := make(chan int, 1)
		s := listen(t, g, "tcp", "127.0.0.1:0", shutdownServer{n: &n, queued: queued})
		c := shutdownClient(t, s.Addr().String(), 's')
		require.NotEqual(t, 0, recvOrFail(t, queued, "the stream to be queued"), "the socket took the whole stream: nothing in flight")
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		assert.ErrorIs(t, s.Shutdown(ctx), context.DeadlineExceeded, "Shutdown")
		assert.Zero(t, s.Conns(), "Conns() after Shutdown gave up")
		i := n.inactive.Load()
		assert.Equal(t, int64(1), i, "OnInactive fired %d times, want 1", i)
		got, err := readStream(c, false)
		assert.False(t, err != nil && !errors.Is(err, syscall.ECONNRESET), "client: %v after %d bytes", err, got)
		assert.False(t, got >= shutdownStream, "client read the whole stream (%d bytes) though Shutdown gave up", got)
	})
}
