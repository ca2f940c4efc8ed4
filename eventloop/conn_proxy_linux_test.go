package eventloop_test

import (
	"context"
	"crypto/sha256"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/eventloop"
)

// proxySide is one side of the README's proxy: it forwards what it reads
// to its peer, flushes once per read event, pauses the peer while its own
// outbound queue is over the high water mark (TCP flow control does the
// rest), and forwards half-closes and closes.
type proxySide struct{ peer *eventloop.Conn }

func (p *proxySide) OnRead(x *eventloop.Context, msg any) {
	if p.peer != nil {
		p.peer.Write(msg)
	}
}

func (p *proxySide) OnReadComplete(x *eventloop.Context) {
	if p.peer != nil {
		p.peer.Flush()
	}
}

func (p *proxySide) OnWritabilityChanged(x *eventloop.Context, writable bool) {
	if p.peer == nil {
		return
	}
	if writable {
		p.peer.ResumeRead()
	} else {
		p.peer.PauseRead()
	}
}

func (p *proxySide) OnReadClosed(x *eventloop.Context) {
	if p.peer != nil {
		p.peer.CloseWrite()
	}
}

func (p *proxySide) OnInactive(x *eventloop.Context) {
	if p.peer != nil {
		p.peer.Close()
	}
}

// startProxy listens on a loopback port and forwards each connection to
// upstream, as the README's proxy does: the upstream is dialed from the
// front connection's loop (DialOn), and the front does not read until it
// is connected.
func startProxy(t *testing.T, g *eventloop.Group, upstream string) *eventloop.Server {
	t.Helper()
	wm := eventloop.WithWaterMarks(32<<10, 64<<10)
	return listen(t, g, "tcp", "127.0.0.1:0", eventloop.Initializer(func(front *eventloop.Conn) {
		fs := &proxySide{}
		front.Pipeline().AddLast("proxy", fs)
		front.PauseRead()
		eventloop.DialOn(front.Loop(), "tcp", upstream, eventloop.Initializer(func(up *eventloop.Conn) {
			up.Pipeline().AddLast("proxy", &proxySide{peer: front})
		}), func(up *eventloop.Conn, err error) {
			if err != nil {
				front.Close()
				return
			}
			fs.peer = up
			front.ResumeRead()
		}, wm)
	}), wm)
}

// TestProxyDeliversEverything: 100 MB sent through the README's proxy by a
// client that then half-closes arrives whole at a slow sink, checked byte
// by byte against the sender's sequence. The sink half-closes first (it
// has nothing to say), so the proxy half-closes its client side early;
// when the client's FIN arrives the front connection is usually paused by
// backpressure with bytes still in its socket, and the socket reports
// EPOLLHUP: those bytes must still go through before the front closes.
func TestProxyDeliversEverything(t *testing.T) {
	clean(t)
	const total, sinkRate = 100 << 20, 60 << 20 // bytes, bytes per second
	g := relGroup(t, 1, nil)

	sinkLn, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer sinkLn.Close()
	type result struct {
		n    int64
		err  error
		hash [32]byte
	}
	sunk := make(chan result, 1)
	go func() {
		c, err := sinkLn.Accept()
		if err != nil {
			sunk <- result{err: err}
			return
		}
		defer c.Close()
		c.(*net.TCPConn).CloseWrite() // nothing to say
		c.SetReadDeadline(time.Now().Add(60 * time.Second))
		want := newStream(7)
		h := sha256.New()
		p := make([]byte, 64<<10)
		var r result
		for start := time.Now(); ; {
			n, err := c.Read(p)
			if n > 0 {
				h.Write(p[:n])
				if cerr := want.check(p[:n]); cerr != nil && r.err == nil {
					r.err = cerr
				}
				r.n += int64(n)
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				r.err = err
				break
			}
			// Slow-ish: at most sinkRate, slower than the client writes, so
			// the proxy's upstream backs up and its front is paused again
			// and again, to the end.
			if ahead := time.Duration(r.n*int64(time.Second)/sinkRate) - time.Since(start); ahead > 0 {
				time.Sleep(ahead)
			}
		}
		copy(r.hash[:], h.Sum(nil))
		sunk <- r
	}()

	s := startProxy(t, g, sinkLn.Addr().String())
	c := dialTCP(t, s.Addr().String())
	c.SetDeadline(time.Now().Add(60 * time.Second))
	src := newStream(7)
	h := sha256.New()
	p := make([]byte, 256<<10)
	for src.off < total {
		q := p[:min(len(p), total-int(src.off))]
		src.fill(q)
		h.Write(q)
		_, err := c.Write(q)
		require.NoError(t, err)
	}
	require.NoError(t, c.CloseWrite())
	rest, err := io.ReadAll(c)
	require.NoError(t, err)
	require.Empty(t, rest, "the sink sent nothing")

	r := recvOrFail(t, sunk, "the sink to read to EOF")
	require.NoError(t, r.err)
	require.Equal(t, int64(total), r.n, "bytes that reached the sink")
	require.Equal(t, h.Sum(nil), r.hash[:], "SHA-256 of what reached the sink")
	waitFor(t, "the proxy's connections to close", func() bool { return s.Conns() == 0 })
}

// pausedSink pauses reading as soon as a connection is active (and, with
// shutWrite, half-closes it), collects what it reads once resumed, and
// reports the connection and its end.
type pausedSink struct {
	shutWrite bool
	fill      int // bytes written at once, more than the sockets hold
	n         counter
	conns     chan *eventloop.Conn
	mu        sync.Mutex
	got       []byte
	inactive  chan struct{}
}

func (s *pausedSink) OnActive(x *eventloop.Context) {
	s.n.OnActive(x)
	x.Conn().PauseRead()
	if s.fill > 0 {
		x.Write(make([]byte, s.fill))
		x.Flush()
	}
	if s.shutWrite {
		x.Conn().CloseWrite()
	}
	s.conns <- x.Conn()
}

func (s *pausedSink) OnRead(x *eventloop.Context, msg any) {
	in := msg.(*buf.Composite)
	p, _ := in.Next(in.Len())
	s.mu.Lock()
	s.got = append(s.got, p...)
	s.mu.Unlock()
}

func (s *pausedSink) OnReadClosed(x *eventloop.Context) {
	s.n.OnReadClosed(x)
	x.Close()
}

func (s *pausedSink) OnError(x *eventloop.Context, err error) { s.n.OnError(x, err) }

func (s *pausedSink) OnInactive(x *eventloop.Context) {
	s.n.OnInactive(x)
	close(s.inactive)
}

// TestPausedHangupKeepsBytes: a paused connection whose socket reports
// EPOLLHUP — its own CloseWrite then the peer's FIN (TCP), or the peer's
// close (Unix) — with bytes still unread keeps them: they are delivered
// when it resumes, then the connection ends without an error.
func TestPausedHangupKeepsBytes(t *testing.T) {
	for _, tc := range []struct {
		name      string
		network   string
		shutWrite bool
		reset     bool // the peer resets the connection after sending
		fill      int  // the server writes this much, which the client never reads
	}{
		{"tcp-own-closewrite", "tcp", true, false, 0},
		{"unix-peer-close", "unix", false, false, 0},
		{"tcp-peer-reset", "tcp", false, true, 0},
		{"tcp-peer-reset-while-writing", "tcp", false, true, 32 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clean(t)
			g := relGroup(t, 1, nil)
			sink := &pausedSink{shutWrite: tc.shutWrite, fill: tc.fill, conns: make(chan *eventloop.Conn, 1), inactive: make(chan struct{})}
			addr := "127.0.0.1:0"
			if tc.network == "unix" {
				addr = t.TempDir() + "/sink.sock"
			}
			s := listen(t, g, tc.network, addr, eventloop.Initializer(func(c *eventloop.Conn) {
				c.Pipeline().AddLast("sink", sink)
			}))
			c, err := net.Dial(tc.network, s.Addr().String())
			require.NoError(t, err)
			defer c.Close()
			c.SetDeadline(time.Now().Add(10 * time.Second))
			sc := recvOrFail(t, sink.conns, "the connection")
			if tc.shutWrite {
				rest, err := io.ReadAll(c) // the server's FIN
				require.NoError(t, err)
				require.Empty(t, rest)
			}
			sent := make([]byte, 64<<10) // fits in the socket buffers
			newStream(11).fill(sent)
			_, err = c.Write(sent)
			require.NoError(t, err)
			events := sc.Loop().Stats().Events
			switch {
			case tc.shutWrite:
				require.NoError(t, c.(*net.TCPConn).CloseWrite())
			case tc.reset:
				// Once the bytes are in the server's socket (the client's
				// send queue is empty), reset: SO_LINGER 0, close.
				raw, err := c.(*net.TCPConn).SyscallConn()
				require.NoError(t, err)
				waitFor(t, "the client's send queue to empty", func() bool {
					outq := -1
					raw.Control(func(fd uintptr) { outq, _ = unix.IoctlGetInt(int(fd), unix.SIOCOUTQ) })
					return outq == 0
				})
				require.NoError(t, c.(*net.TCPConn).SetLinger(0))
				require.NoError(t, c.Close())
			default:
				require.NoError(t, c.Close())
			}
			// A paused connection watches no event but EPOLLHUP and
			// EPOLLERR, which the kernel always reports: wait for the loop
			// to have handled it.
			waitFor(t, "the loop to see the hang-up", func() bool { return sc.Loop().Stats().Events > events })
			time.Sleep(20 * time.Millisecond) // and any event that follows
			require.Zero(t, sink.n.inactive.Load(), "the paused connection closed before delivering its bytes (errors %v)", sink.n.errors())
			require.NoError(t, sc.Execute(sc.ResumeRead))
			recvOrFail(t, sink.inactive, "the connection to close")
			sink.mu.Lock()
			got := sink.got
			sink.mu.Unlock()
			require.Equal(t, len(sent), len(got), "bytes delivered")
			require.Equal(t, sent, got)
			if tc.reset {
				errs := sink.n.errors()
				require.Len(t, errs, 1, "the reset, reported once after the bytes")
				require.ErrorIs(t, errs[0], syscall.ECONNRESET)
			} else {
				require.Empty(t, sink.n.errors())
			}
		})
	}
}

// TestPauseResumeOffLoop: PauseRead and ResumeRead called from another
// goroutine, again and again while the connection reads a stream, take
// effect on the loop (no data race on the connection's state: run with
// -race), and every byte sent arrives in order.
func TestPauseResumeOffLoop(t *testing.T) {
	clean(t)
	const total = 8 << 20
	g := relGroup(t, 1, nil)
	var (
		n     atomic.Int64
		bad   atomic.Value
		conns = make(chan *eventloop.Conn, 1)
	)
	s := listen(t, g, "tcp", "127.0.0.1:0", eventloop.Initializer(func(c *eventloop.Conn) {
		c.Pipeline().AddLast("sink", &offLoopReader{n: &n, check: newStream(5), bad: &bad, conns: conns})
	}))
	c := dialTCP(t, s.Addr().String())
	sc := recvOrFail(t, conns, "the connection")
	sent := make(chan error, 1)
	go func() {
		w := newStream(5)
		p := make([]byte, 64<<10)
		for w.off < total {
			w.fill(p)
			if _, err := c.Write(p); err != nil {
				sent <- err
				return
			}
		}
		sent <- c.CloseWrite()
	}()
	for i := 0; n.Load() < total/2 && i < 100000; i++ {
		sc.PauseRead()
		if i%2 == 0 {
			time.Sleep(50 * time.Microsecond)
		}
		sc.ResumeRead()
	}
	// Paused from here, the connection reads nothing more.
	sc.PauseRead()
	run(t, sc.Loop(), func() {}) // after the pause, in queue order
	at := n.Load()
	time.Sleep(50 * time.Millisecond)
	require.Equal(t, at, n.Load(), "bytes read while paused")
	sc.ResumeRead()
	require.NoError(t, recvOrFail(t, sent, "the client to send everything"))
	waitFor(t, "every byte", func() bool { return n.Load() == total })
	require.Nil(t, bad.Load())
}

// offLoopReader checks and counts what it reads.
type offLoopReader struct {
	n     *atomic.Int64
	check *stream
	bad   *atomic.Value
	conns chan *eventloop.Conn
}

func (o *offLoopReader) OnActive(x *eventloop.Context) { o.conns <- x.Conn() }

func (o *offLoopReader) OnRead(x *eventloop.Context, msg any) {
	in := msg.(*buf.Composite)
	for in.Len() > 0 {
		p := in.Span(0)
		if err := o.check.check(p); err != nil && o.bad.Load() == nil {
			o.bad.Store(err)
		}
		o.n.Add(int64(len(p)))
		in.Discard(len(p))
	}
}

// startPausedSink starts a one-loop server whose connections pause reading
// as they open (pausedSink), and dials it.
func startPausedSink(t *testing.T) (*eventloop.Server, *pausedSink, *net.TCPConn) {
	t.Helper()
	g := relGroup(t, 1, nil)
	sink := &pausedSink{conns: make(chan *eventloop.Conn, 1), inactive: make(chan struct{})}
	s := listen(t, g, "tcp", "127.0.0.1:0", eventloop.Initializer(func(c *eventloop.Conn) {
		c.Pipeline().AddLast("sink", sink)
	}))
	return s, sink, dialTCP(t, s.Addr().String())
}

// TestShutdownKeepsUnreadBytes: Server.Shutdown does not take a connection
// for idle while the peer's bytes wait in its socket — here because it is
// paused — it closes it once they are read (after ResumeRead) and handled.
func TestShutdownKeepsUnreadBytes(t *testing.T) {
	clean(t)
	s, sink, c := startPausedSink(t)
	sc := recvOrFail(t, sink.conns, "the connection")
	sent := make([]byte, 64<<10)
	newStream(13).fill(sent)
	_, err := c.Write(sent)
	require.NoError(t, err)
	raw, err := c.SyscallConn()
	require.NoError(t, err)
	waitFor(t, "the bytes to be in the server's socket", func() bool {
		outq := -1
		raw.Control(func(fd uintptr) { outq, _ = unix.IoctlGetInt(int(fd), unix.SIOCOUTQ) })
		return outq == 0
	})
	shut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		shut <- s.Shutdown(ctx)
	}()
	time.Sleep(50 * time.Millisecond)
	require.Zero(t, sink.n.inactive.Load(), "Shutdown closed a connection with unread bytes in its socket")
	require.NoError(t, sc.Execute(sc.ResumeRead))
	require.NoError(t, recvOrFail(t, shut, "Shutdown to return"))
	sink.mu.Lock()
	got := sink.got
	sink.mu.Unlock()
	require.Equal(t, sent, got)
	require.Equal(t, int64(1), sink.n.inactive.Load())
}

// TestPausedHangupNothingLeft: a paused connection whose socket hangs up
// with nothing left unread has nothing to keep: it closes at once, without
// waiting for a ResumeRead that may never come, and a reset is reported.
func TestPausedHangupNothingLeft(t *testing.T) {
	clean(t)
	_, sink, c := startPausedSink(t)
	recvOrFail(t, sink.conns, "the connection")
	require.NoError(t, c.SetLinger(0))
	require.NoError(t, c.Close())
	recvOrFail(t, sink.inactive, "the paused connection to close")
	errs := sink.n.errors()
	require.Len(t, errs, 1)
	require.ErrorIs(t, errs[0], syscall.ECONNRESET)
}
