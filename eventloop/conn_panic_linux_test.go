package eventloop_test

import (
	"errors"
	"fmt"
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

// panicEcho echoes, but panics when it reads a '!'.
type panicEcho struct{ n *counter }

func (h panicEcho) OnActive(x *eventloop.Context)   { h.n.OnActive(x) }
func (h panicEcho) OnInactive(x *eventloop.Context) { h.n.OnInactive(x) }
func (panicEcho) OnReadComplete(x *eventloop.Context) {
	x.Flush()
}
func (panicEcho) OnRead(x *eventloop.Context, msg any) {
	in := msg.(*buf.Composite)
	if in.Index([]byte("!")) >= 0 {
		panic("boom")
	}
	x.Write(in)
}

// roundTrips echoes n messages on c.
func roundTrips(c net.Conn, n int, tag string) error {
	p := make([]byte, 64)
	for i := range n {
		msg := fmt.Sprintf("%s %d\n", tag, i)
		if _, err := c.Write([]byte(msg)); err != nil {
			return err
		}
		if _, err := io.ReadFull(c, p[:len(msg)]); err != nil {
			return err
		}
		if string(p[:len(msg)]) != msg {
			return fmt.Errorf("echo %q, want %q", p[:len(msg)], msg)
		}
	}
	return nil
}

// TestHandlerPanic: on a one-loop server, a handler that panics on one
// connection's message closes that connection only (its client reads EOF,
// its OnInactive fires); Config.OnPanic receives the panic value once; the
// loop's Stats().Panics goes up by exactly one; the other connections go
// on echoing, and new connections are served.
func TestHandlerPanic(t *testing.T) {
	clean(t)
	var mu sync.Mutex
	var panics []any
	g := relGroup(t, 1, func(v any, _ []byte) {
		mu.Lock()
		panics = append(panics, v)
		mu.Unlock()
	})
	var n counter
	s := listen(t, g, "tcp", "127.0.0.1:0", panicEcho{&n})
	addr := s.Addr().String()
	loop := g.Loops()[0]
	before := loop.Stats().Panics

	const others = 4
	conns := make([]net.Conn, others)
	for i := range conns {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer c.Close()
		c.SetDeadline(time.Now().Add(30 * time.Second))
		conns[i] = c
	}
	each := func(phase string) {
		var wg sync.WaitGroup
		for i, c := range conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				assert.NoError(t, roundTrips(c, 20, fmt.Sprintf("%s %d", phase, i)), "client %d %s the panic", i, phase)
			}()
		}
		wg.Wait()
	}
	each("before")

	v, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer v.Close()
	v.SetDeadline(time.Now().Add(30 * time.Second))
	require.NoError(t, roundTrips(v, 3, "victim"))
	_, err = v.Write([]byte("!\n"))
	require.NoError(t, err)
	k, rerr := v.Read(make([]byte, 16))
	require.Zero(t, k, "victim read bytes after the panic; want its connection closed")
	require.True(t, rerr == io.EOF || errors.Is(rerr, syscall.ECONNRESET), "victim read error %v after the panic; want EOF or ECONNRESET", rerr)
	waitFor(t, "the victim's OnInactive", func() bool { return n.inactive.Load() == 1 })

	each("after")
	extra, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer extra.Close()
	extra.SetDeadline(time.Now().Add(30 * time.Second))
	require.NoError(t, roundTrips(extra, 5, "new"), "a connection made after the panic")

	got := loop.Stats().Panics - before
	assert.Equal(t, uint64(1), got, "Stats().Panics went up by %d, want 1", got)
	mu.Lock()
	assert.False(t, len(panics) != 1 || panics[0] != "boom", "OnPanic got %v, want [boom]", panics)
	mu.Unlock()
	a, i, c := n.active.Load(), n.inactive.Load(), s.Conns()
	assert.False(t, a != others+2 || i != 1 || c != others+1, "OnActive %d, OnInactive %d, Conns %d; want %d, 1, %d", a, i, c, others+2, others+1)
}
