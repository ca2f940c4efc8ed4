package eventloop_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec/frame"
	"github.com/netkit/netkit/eventloop"
)

// echo writes back every byte it reads.
type echo struct{}

func (echo) OnRead(x *eventloop.Context, msg any) { x.Write(msg) }
func (echo) OnReadComplete(x *eventloop.Context)  { x.Flush() }

func listen(t *testing.T, g *eventloop.Group, network, addr string, h eventloop.Handler, opts ...eventloop.Option) *eventloop.Server {
	t.Helper()
	s, err := eventloop.Listen(g, network, addr, h, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

func TestEchoSmoke(t *testing.T) {
	g := newGroup(t, eventloop.Config{Loops: 2})
	s := listen(t, g, "tcp", "127.0.0.1:0", echo{})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", s.Addr().String())
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			r := rand.New(rand.NewPCG(uint64(i), 1))
			for range 50 {
				msg := make([]byte, 1+r.IntN(100000))
				for j := range msg {
					msg[j] = byte(r.Uint32())
				}
				go c.Write(msg)
				got := make([]byte, len(msg))
				c.SetReadDeadline(time.Now().Add(10 * time.Second))
				if _, err := io.ReadFull(c, got); err != nil {
					t.Error(err)
					return
				}
				if !bytes.Equal(got, msg) {
					t.Error("echo differs")
					return
				}
			}
		}()
	}
	wg.Wait()
	_ = buf.Default
}

// lineApp answers each line with its length and the line, and counts
// errors.
type lineApp struct{ errs *atomic.Int32 }

func (a lineApp) OnRead(x *eventloop.Context, msg any) {
	f := msg.(*eventloop.Frame) // lent until OnRead returns
	out := buf.Get(f.Len() + 8)
	fmt.Fprintf(out, "%d:%s\n", f.Len(), f.Bytes())
	x.Write(out)
}
func (a lineApp) OnReadComplete(x *eventloop.Context)     { x.Flush() }
func (a lineApp) OnError(x *eventloop.Context, err error) { a.errs.Add(1) }

// TestFrameDecoder: lines split across reads arrive whole, a line over the
// decoder's cap is reported once and skipped, and the next line decodes.
func TestFrameDecoder(t *testing.T) {
	g := newGroup(t, eventloop.Config{Loops: 1})
	var errs atomic.Int32
	s := listen(t, g, "tcp", "127.0.0.1:0", eventloop.Initializer(func(c *eventloop.Conn) {
		c.Pipeline().AddLast("frames", eventloop.NewFrameDecoder(&frame.Line{MaxFrameLength: 16, StripDelimiter: true}))
		c.Pipeline().AddLast("app", lineApp{&errs})
	}))
	c, err := net.Dial("tcp", s.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	for _, part := range []string{"he", "llo\nwor", "ld\n", strings.Repeat("x", 40), "\nok\n"} {
		c.Write([]byte(part))
		time.Sleep(5 * time.Millisecond)
	}
	want := "5:hello\n5:world\n2:ok\n"
	got := make([]byte, len(want))
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err = io.ReadFull(c, got)
	require.NoError(t, err)
	assert.Equal(t, want, string(got), "got %q, want %q", got, want)
	n := errs.Load()
	assert.Equal(t, int32(1), n, "%d errors reported, want 1 (the long line)", n)
}

// keeper retains every frame it is lent and writes them all back, in
// order and each on a line, only at the end of the read batch: the frames
// outlive OnRead, later reads and the inbound composite's discard.
type keeper struct{ kept []*buf.Buffer }

func (k *keeper) OnRead(x *eventloop.Context, msg any) {
	k.kept = append(k.kept, msg.(*eventloop.Frame).Retain())
}

func (k *keeper) OnReadComplete(x *eventloop.Context) {
	for _, b := range k.kept {
		x.Write(b)
		x.Write([]byte{'\n'})
	}
	k.kept = k.kept[:0]
	x.Flush()
}

// TestFrameDecoderRetain: frames a handler keeps with Frame.Retain stay
// intact after OnRead returns, whether they lay in one read or straddled
// reads, and leak nothing.
func TestFrameDecoderRetain(t *testing.T) {
	clean(t)
	g := newGroup(t, eventloop.Config{Loops: 1})
	s := listen(t, g, "tcp", "127.0.0.1:0", eventloop.Initializer(func(c *eventloop.Conn) {
		c.Pipeline().AddLast("frames", eventloop.NewFrameDecoder(&frame.Line{MaxFrameLength: 64 << 10, StripDelimiter: true}))
		c.Pipeline().AddLast("app", &keeper{})
	}))
	c, err := net.Dial("tcp", s.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	var want strings.Builder
	for i := range 200 {
		line := strings.Repeat(string(rune('a'+i%26)), 1+i*37%3000)
		want.WriteString(line + "\n")
	}
	// Written in pieces that cut lines anywhere.
	for rest := want.String(); len(rest) > 0; {
		n := min(len(rest), 1+len(rest)%1777)
		_, err := c.Write([]byte(rest[:n]))
		require.NoError(t, err)
		rest = rest[n:]
	}
	got := make([]byte, want.Len())
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err = io.ReadFull(c, got)
	require.NoError(t, err)
	require.Equal(t, want.String(), string(got), "retained frames differ from what was sent")
}

// proxy forwards what one connection reads to another (set in Value) by
// writing the inbound composite itself: its bytes move, the composite
// stays the reading connection's.
type proxy struct{}

func (proxy) OnRead(x *eventloop.Context, msg any) {
	if peer, _ := x.Conn().Value().(*eventloop.Conn); peer != nil {
		peer.Write(msg)
	}
}
func (proxy) OnReadComplete(x *eventloop.Context) {
	if peer, _ := x.Conn().Value().(*eventloop.Conn); peer != nil {
		peer.Flush()
	}
}

// TestProxyComposite: a composite written to another connection on the
// same loop moves its bytes and stays usable by its owner, read after
// read.
func TestProxyComposite(t *testing.T) {
	g := newGroup(t, eventloop.Config{Loops: 1})
	back := listen(t, g, "tcp", "127.0.0.1:0", echo{})
	front := listen(t, g, "tcp", "127.0.0.1:0", eventloop.Initializer(func(c *eventloop.Conn) {
		dialFromLoop(back.Addr().String(), c)
		c.Pipeline().AddLast("proxy", proxy{})
	}))
	c, err := net.Dial("tcp", front.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	for i := range 20 {
		msg := bytes.Repeat([]byte{byte('a' + i)}, 1+i*997)
		c.Write(msg)
		got := make([]byte, len(msg))
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, err := io.ReadFull(c, got)
		require.NoError(t, err)
		require.Equal(t, msg, got, "message %d differs", i)
	}
}

// dialFromLoop connects, from c's loop, to addr, with a proxy handler back
// to c; c does not read until the upstream is connected.
func dialFromLoop(addr string, c *eventloop.Conn) {
	c.PauseRead()
	eventloop.DialOn(c.Loop(), "tcp", addr, eventloop.Initializer(func(up *eventloop.Conn) {
		up.SetValue(c)
		up.Pipeline().AddLast("proxy", proxy{})
	}), func(up *eventloop.Conn, err error) {
		if err != nil {
			c.Close()
			return
		}
		c.SetValue(up)
		c.ResumeRead()
	})
}

// collect gathers what a dialed connection reads.
type collect struct{ ch chan []byte }

func (h collect) OnRead(x *eventloop.Context, msg any) {
	in := msg.(*buf.Composite)
	p, _ := in.Next(in.Len())
	h.ch <- bytes.Clone(p)
}

// TestDial: Dial over tcp and unix reaches a server and reads its echo; a
// refused connect and a Dial on a loop are errors.
func TestDial(t *testing.T) {
	g := newGroup(t, eventloop.Config{Loops: 2})
	path := t.TempDir() + "/echo.sock"
	for _, srv := range []*eventloop.Server{
		listen(t, g, "tcp", "127.0.0.1:0", echo{}),
		listen(t, g, "unix", path, echo{}),
	} {
		h := collect{make(chan []byte, 16)}
		c, err := eventloop.Dial(g, srv.Addr().Network(), srv.Addr().String(), h)
		require.NoError(t, err)
		require.NotNil(t, c.LocalAddr(), "%s: LocalAddr", srv.Addr().Network())
		require.NotNil(t, c.RemoteAddr(), "%s: RemoteAddr", srv.Addr().Network())
		assert.Equal(t, srv.Addr().String(), c.RemoteAddr().String(), "%s: RemoteAddr, want the server's", srv.Addr().Network())
		require.NoError(t, c.AsyncWrite(bufOf("ping")))
		var got []byte
		for len(got) < 4 {
			select {
			case p := <-h.ch:
				got = append(got, p...)
			case <-time.After(10 * time.Second):
				t.Fatal("no echo")
			}
		}
		assert.Equal(t, "ping", string(got), "%s: echo", srv.Addr().Network())
		c.Close()
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	_, err := eventloop.Dial(g, "tcp", addr, echo{})
	assert.Error(t, err, "Dial to a closed port succeeded")
	var onLoop error
	run(t, g.Next(), func() { _, onLoop = eventloop.Dial(g, "tcp", addr, echo{}) })
	assert.Error(t, onLoop, "Dial on a loop did not fail")
}

func bufOf(s string) *buf.Buffer {
	b := buf.Get(len(s))
	b.WriteString(s)
	return b
}

// addrEcho answers each connection with its local and remote addresses as
// the server sees them.
type addrEcho struct{}

func (addrEcho) OnActive(x *eventloop.Context) {
	c := x.Conn()
	x.Write([]byte(c.LocalAddr().String() + " " + c.RemoteAddr().String() + "\n"))
	x.Flush()
}

// TestAcceptedAddrs: an accepted connection's addresses are the client's
// view reversed — IPv4, IPv6, and a wildcard listener.
func TestAcceptedAddrs(t *testing.T) {
	g := newGroup(t, eventloop.Config{Loops: 2})
	for _, tc := range []struct{ network, listen, dial string }{
		{"tcp", "127.0.0.1:0", ""},
		{"tcp6", "[::1]:0", ""},
		{"tcp", ":0", "127.0.0.1"},
	} {
		s, err := eventloop.Listen(g, tc.network, tc.listen, addrEcho{})
		if err != nil {
			t.Logf("%s %s: %v (no IPv6 here?)", tc.network, tc.listen, err)
			continue
		}
		addr := s.Addr().String()
		if tc.dial != "" {
			addr = net.JoinHostPort(tc.dial, strconv.Itoa(s.Addr().(*net.TCPAddr).Port))
		}
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		line, err := bufio.NewReader(c).ReadString('\n')
		require.NoError(t, err)
		want := c.RemoteAddr().String() + " " + c.LocalAddr().String() + "\n"
		assert.Equal(t, want, line, "%s %s: server sees %q, want %q", tc.network, tc.listen, line, want)
		c.Close()
		s.Close()
	}
}

// TestDialTimeout: a connect that never completes — to a listener whose
// accept queue is full, so the kernel drops the SYNs — fails with
// os.ErrDeadlineExceeded after WithDialTimeout, and leaves no descriptor
// registered on the loop.
func TestDialTimeout(t *testing.T) {
	g := newGroup(t, eventloop.Config{Loops: 1})
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	require.NoError(t, err)
	defer unix.Close(fd)
	require.NoError(t, unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}))
	require.NoError(t, unix.Listen(fd, 0))
	sa, _ := unix.Getsockname(fd)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(sa.(*unix.SockaddrInet4).Port))
	// Fill the accept queue (a backlog of 0 holds one connection).
	var fillers []net.Conn
	defer func() {
		for _, c := range fillers {
			c.Close()
		}
	}()
	for range 4 {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err != nil {
			break
		}
		fillers = append(fillers, c)
	}
	start := time.Now()
	_, err = eventloop.Dial(g, "tcp", addr, echo{}, eventloop.WithDialTimeout(300*time.Millisecond))
	require.ErrorIs(t, err, os.ErrDeadlineExceeded, "Dial to a full accept queue: %v, want os.ErrDeadlineExceeded", err)
	d := time.Since(start)
	assert.False(t, d < 300*time.Millisecond, "Dial gave up after %v, before its 300ms timeout", d)
}
