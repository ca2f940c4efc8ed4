package eventloop_test

import (
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/eventloop"
)

// churnHandler echoes, closes the connection when it reads 'q', and
// counts events.
type churnHandler struct{ n *counter }

func (h churnHandler) OnActive(x *eventloop.Context)           { h.n.OnActive(x) }
func (h churnHandler) OnInactive(x *eventloop.Context)         { h.n.OnInactive(x) }
func (h churnHandler) OnError(x *eventloop.Context, err error) { h.n.OnError(x, err) }
func (churnHandler) OnReadComplete(x *eventloop.Context)       { x.Flush() }
func (churnHandler) OnRead(x *eventloop.Context, msg any) {
	in := msg.(*buf.Composite)
	if in.Index([]byte("q")) >= 0 {
		in.Discard(in.Len())
		x.Close()
		return
	}
	x.Write(in)
}

// TestChurn opens and closes 10,000 connections, 200 at a time, in four
// ways: the client connects and closes; it echoes a byte and closes; it
// asks the server to close first; it echoes a byte and resets (SO_LINGER
// 0). The server sees exactly 10,000 OnActive and 10,000 OnInactive, one
// OnError (ECONNRESET) per reset and none otherwise, and ends with no
// connection (and the test's leak checks hold).
func TestChurn(t *testing.T) {
	clean(t)
	const total, batch = 10_000, 200
	g := relGroup(t, 2, nil)
	var n counter
	s := listen(t, g, "tcp", "127.0.0.1:0", churnHandler{&n})
	addr := s.Addr().String()
	for b := 0; b < total; b += batch {
		var wg sync.WaitGroup
		for i := b; i < b+batch; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				assert.NoError(t, churnClient(addr, i%4), "connection %d (mode %d)", i, i%4)
			}()
		}
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
	}
	waitFor(t, "every connection to close on the server", func() bool {
		return n.inactive.Load() == total && s.Conns() == 0
	})
	a, i := n.active.Load(), n.inactive.Load()
	assert.False(t, a != total || i != total, "OnActive %d, OnInactive %d times; want %d each", a, i, total)
	// Only the resets are errors, each reported once.
	errs := n.errors()
	assert.Len(t, errs, total/4, "OnError fired %d times, want %d (one per reset)", len(errs), total/4)
	for _, err := range errs {
		if !assert.ErrorIs(t, err, syscall.ECONNRESET, "OnError") {
			break
		}
	}
}

func churnClient(addr string, mode int) error {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	tc := c.(*net.TCPConn)
	defer tc.Close()
	tc.SetDeadline(time.Now().Add(30 * time.Second))
	switch mode {
	case 0:
		return nil
	case 2:
		if _, err := tc.Write([]byte("q")); err != nil {
			return err
		}
		if k, err := tc.Read(make([]byte, 1)); err != io.EOF {
			return fmt.Errorf("read %d bytes, %v; want EOF", k, err)
		}
		return nil
	}
	if _, err := tc.Write([]byte("x")); err != nil {
		return err
	}
	p := make([]byte, 1)
	if _, err := io.ReadFull(tc, p); err != nil || p[0] != 'x' {
		return fmt.Errorf("echo %q, %v", p, err)
	}
	if mode == 3 {
		return tc.SetLinger(0)
	}
	return nil
}
