package eventloop_test

import (
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

// lineEcho consumes nothing until a whole line has arrived, then echoes
// each line. It reports its connection's errors when it closes.
type lineEcho struct {
	remote string
	errs   []error
	report chan<- *lineEcho
}

func (h *lineEcho) OnActive(x *eventloop.Context) { h.remote = x.Conn().RemoteAddr().String() }
func (h *lineEcho) OnRead(x *eventloop.Context, msg any) {
	in := msg.(*buf.Composite)
	for {
		i := in.Index([]byte("\n"))
		if i < 0 {
			return
		}
		line, err := in.NextRetained(i + 1)
		if err != nil {
			panic(err)
		}
		x.Write(line)
	}
}
func (h *lineEcho) OnReadComplete(x *eventloop.Context)     { x.Flush() }
func (h *lineEcho) OnError(_ *eventloop.Context, err error) { h.errs = append(h.errs, err) }
func (h *lineEcho) OnInactive(*eventloop.Context)           { h.report <- h }

// TestSlowloris: with WithIdleTimeout(300ms) and a handler that consumes
// nothing until a line is whole, clients that send one byte per 100 ms and
// never finish a line are closed no sooner than 300 ms after they connect
// and within 2.5 s (generous slack for loaded machines), each with exactly
// one OnError(ErrIdleTimeout); a client that sends a whole line every
// 100 ms for 1.2 s is not closed, gets every line back and sees no error.
func TestSlowloris(t *testing.T) {
	clean(t)
	const (
		idle     = 300 * time.Millisecond
		maxClose = 2500 * time.Millisecond
		loris    = 4
	)
	g := relGroup(t, 2, nil)
	report := make(chan *lineEcho, loris+1)
	s := listen(t, g, "tcp", "127.0.0.1:0", eventloop.Initializer(func(c *eventloop.Conn) {
		c.Pipeline().AddLast("line", &lineEcho{report: report})
	}), eventloop.WithIdleTimeout(idle))
	addr := s.Addr().String()

	lorisAddrs := make(map[string]bool)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range loris {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			mu.Lock()
			lorisAddrs[c.LocalAddr().String()] = true
			mu.Unlock()
			c.SetDeadline(time.Now().Add(30 * time.Second))
			stop := make(chan struct{})
			wrote := make(chan struct{})
			go func() {
				defer close(wrote)
				tick := time.NewTicker(100 * time.Millisecond)
				defer tick.Stop()
				for {
					if _, err := c.Write([]byte{'a'}); err != nil {
						return // closed by the server
					}
					select {
					case <-tick.C:
					case <-stop:
						return
					}
				}
			}()
			k, err := c.Read(make([]byte, 16))
			elapsed := time.Since(start)
			close(stop)
			<-wrote
			if k != 0 || (err != io.EOF && !errors.Is(err, syscall.ECONNRESET)) {
				t.Errorf("slowloris %d: read %d bytes, %v; want the server to close", i, k, err)
				return
			}
			assert.False(t, elapsed < idle || elapsed > maxClose, "slowloris %d closed after %v; want %v..%v", i, elapsed, idle, maxClose)
			t.Logf("slowloris %d closed after %v", i, elapsed)
		}()
	}

	// A client that completes a line every 100 ms stays open.
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	lineAddr := c.LocalAddr().String()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	p := make([]byte, 5)
	for range 12 {
		_, err := c.Write([]byte("ping\n"))
		require.NoError(t, err)
		_, err = io.ReadFull(c, p)
		require.NoError(t, err, "line client: closed by the idle timeout?")
		require.Equal(t, "ping\n", string(p), "line client")
		time.Sleep(100 * time.Millisecond)
	}
	c.Close()
	wg.Wait()

	for range loris + 1 {
		h := recvOrFail(t, report, "OnInactive")
		switch {
		case h.remote == lineAddr:
			assert.Empty(t, h.errs, "line client: OnError %v", h.errs)
		case lorisAddrs[h.remote]:
			if assert.Len(t, h.errs, 1, "slowloris %s: OnError", h.remote) {
				assert.ErrorIs(t, h.errs[0], eventloop.ErrIdleTimeout, "slowloris %s: OnError", h.remote)
			}
		default:
			assert.Fail(t, "a connection the test did not make", "from %s", h.remote)
		}
	}
	waitFor(t, "no connection left", func() bool { return s.Conns() == 0 })
}
