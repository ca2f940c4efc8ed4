package eventloop_test

import (
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/eventloop"
)

const (
	echoClients   = 32
	echoPerClient = 512 << 10 // bytes each client sends, at least
)

// echoPlan is the sizes of the messages client i sends.
func echoPlan(i int) (sizes []int, total int64) {
	r := rand.New(rand.NewPCG(uint64(i), 77))
	for total < echoPerClient {
		n := msgSize(r)
		sizes = append(sizes, n)
		total += int64(n)
	}
	return sizes, total
}

// TestEchoStreams: 32 concurrent clients each write random messages of
// 1 B to 256 KiB (a writer and a reader goroutine per client) to an echo
// server and read back every byte exactly once and in order — over TCP
// with a SO_REUSEPORT listener per loop, TCP with one acceptor, and Unix
// sockets; and from clients that are eventloop.Dial connections. The
// server sees exactly one OnActive and one OnInactive per client and ends
// with no connection.
func TestEchoStreams(t *testing.T) {
	for _, tc := range []struct {
		name    string
		network string
		opts    []eventloop.Option
		dial    bool
	}{
		{name: "tcp-reuseport", network: "tcp"},
		{name: "tcp-acceptor", network: "tcp", opts: []eventloop.Option{eventloop.WithAcceptor()}},
		{name: "unix", network: "unix"},
		{name: "dial-tcp", network: "tcp", dial: true},
		{name: "dial-unix", network: "unix", dial: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clean(t)
			g := relGroup(t, 2, nil)
			addr := "127.0.0.1:0"
			if tc.network == "unix" {
				addr = filepath.Join(t.TempDir(), "echo.sock")
			}
			var n counter
			s := listen(t, g, tc.network, addr, countingEcho{&n}, tc.opts...)
			var wg sync.WaitGroup
			for i := range echoClients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var err error
					if tc.dial {
						err = echoLoopClient(t, tc.network, s.Addr().String(), i)
					} else {
						err = echoNetClient(tc.network, s.Addr().String(), i)
					}
					assert.NoError(t, err, "client %d", i)
				}()
			}
			wg.Wait()
			waitFor(t, "the server to close every connection", func() bool {
				return s.Conns() == 0 && n.inactive.Load() == echoClients
			})
			a, i := n.active.Load(), n.inactive.Load()
			assert.False(t, a != echoClients || i != echoClients, "OnActive %d, OnInactive %d times; want %d each", a, i, echoClients)
			e := n.errors()
			assert.Empty(t, e, "OnError: %v", e)
		})
	}
}

// echoNetClient runs client i over a net.Conn.
func echoNetClient(network, addr string, i int) error {
	c, err := net.Dial(network, addr)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	sizes, total := echoPlan(i)
	werr := make(chan error, 1)
	go func() {
		w := newStream(uint64(i))
		for _, n := range sizes {
			p := make([]byte, n)
			w.fill(p)
			if _, err := c.Write(p); err != nil {
				werr <- err
				return
			}
		}
		werr <- nil
	}()
	r := newStream(uint64(i))
	p := make([]byte, 64<<10)
	for r.off < total {
		k, err := c.Read(p[:min(int64(len(p)), total-r.off)])
		if err != nil {
			return errors.Join(err, <-werr)
		}
		if err := r.check(p[:k]); err != nil {
			return err
		}
	}
	if err := <-werr; err != nil {
		return err
	}
	// Exactly once: nothing more comes, the server closes after our FIN.
	if err := c.(interface{ CloseWrite() error }).CloseWrite(); err != nil {
		return err
	}
	if k, err := c.Read(p); err != io.EOF {
		return errors.New("read after the echo: " + string(p[:k]) + " " + errString(err))
	}
	return nil
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// echoChecker is the pipeline of an eventloop.Dial client: it checks what
// the server echoes against the stream.
type echoChecker struct {
	r        *stream
	total    int64
	err      error
	done     chan struct{} // closed when all arrived or on error
	inactive chan struct{}
	once     sync.Once
}

func (e *echoChecker) OnRead(x *eventloop.Context, msg any) {
	in := msg.(*buf.Composite)
	for in.Len() > 0 {
		p := in.Span(0)
		if e.err == nil {
			if e.r.off+int64(len(p)) > e.total {
				e.err = errors.New("more bytes echoed than sent")
			} else {
				e.err = e.r.check(p)
			}
		}
		in.Discard(len(p))
	}
	if e.err != nil || e.r.off == e.total {
		e.once.Do(func() { close(e.done) })
	}
}

func (e *echoChecker) OnError(_ *eventloop.Context, err error) {
	if e.err == nil {
		e.err = err
	}
	e.once.Do(func() { close(e.done) })
}

func (e *echoChecker) OnInactive(*eventloop.Context) {
	if e.err == nil && e.r.off != e.total {
		e.err = errors.New("closed before the whole echo arrived")
	}
	e.once.Do(func() { close(e.done) })
	close(e.inactive)
}

// echoLoopClient runs client i as an eventloop.Dial connection on its own
// group, writing with AsyncWrite from this goroutine.
func echoLoopClient(t *testing.T, network, addr string, i int) error {
	cg, err := eventloop.NewGroup(eventloop.Config{Loops: 1, OnPanic: func(v any, stack []byte) {
		t.Errorf("client loop panicked: %v\n%s", v, stack)
	}})
	if err != nil {
		return err
	}
	defer cg.Close()
	sizes, total := echoPlan(i)
	chk := &echoChecker{r: newStream(uint64(i)), total: total, done: make(chan struct{}), inactive: make(chan struct{})}
	c, err := eventloop.Dial(cg, network, addr, chk)
	if err != nil {
		return err
	}
	w := newStream(uint64(i))
	for _, n := range sizes {
		b := buf.Default.Get(n)
		p := b.AvailableBuffer()[:n]
		w.fill(p)
		b.Commit(n)
		if err := c.AsyncWrite(b); err != nil {
			return err
		}
	}
	select {
	case <-chk.done:
	case <-time.After(30 * time.Second):
		c.Close()
		<-chk.inactive
		return errors.New("the echo did not arrive within 30 s")
	}
	c.Close()
	<-chk.inactive
	return chk.err
}
