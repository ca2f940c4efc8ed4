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

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/eventloop"
)

// resetServer counts what it reads; once it has read want bytes it
// answers "ACK!" and streams without end (while writable) until the
// connection fails.
type resetServer struct {
	want     int64
	received int64
	acked    bool
	errs     []error
	actives  int
	inactive int
	w        *stream
	report   chan<- *resetServer
}

func (s *resetServer) OnActive(*eventloop.Context) { s.actives++ }

func (s *resetServer) OnRead(x *eventloop.Context, msg any) {
	in := msg.(*buf.Composite)
	s.received += int64(in.Len())
	in.Discard(in.Len())
	if !s.acked && s.received >= s.want {
		s.acked = true
		if err := x.Write([]byte("ACK!")); err != nil {
			panic(err)
		}
		s.stream(x)
	}
}

func (s *resetServer) OnWritabilityChanged(x *eventloop.Context, writable bool) {
	if writable {
		s.stream(x)
	}
}

func (s *resetServer) stream(x *eventloop.Context) {
	for x.Conn().Writable() {
		b := buf.Default.Get(32 << 10)
		s.w.fill(b.AvailableBuffer()[:32<<10])
		b.Commit(32 << 10)
		if x.Write(b) != nil {
			return
		}
	}
	x.Flush()
}

func (s *resetServer) OnError(_ *eventloop.Context, err error) { s.errs = append(s.errs, err) }

func (s *resetServer) OnInactive(*eventloop.Context) {
	s.inactive++
	s.report <- s
}

// TestPeerReset: clients send N bytes, wait for the server's "ACK!" (it
// has read all N), read a little of the stream the server then sends
// without end, and reset the connection (SO_LINGER 0, close) while the
// server writes. For each connection the server's OnError fires exactly
// once, with ECONNRESET or EPIPE, OnInactive exactly once, nothing panics,
// and OnRead got exactly the N bytes sent before the reset.
func TestPeerReset(t *testing.T) {
	clean(t)
	const clients, rounds = 8, 3
	g := relGroup(t, 2, nil)
	report := make(chan *resetServer, clients*rounds)
	s := listen(t, g, "tcp", "127.0.0.1:0", eventloop.Initializer(func(c *eventloop.Conn) {
		c.Pipeline().AddLast("reset", &resetServer{want: resetN, w: newStream(9), report: report})
	}))
	for range rounds {
		var wg sync.WaitGroup
		for i := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				assert.NoError(t, resetClient(s.Addr().String(), i), "client %d", i)
			}()
		}
		wg.Wait()
	}
	for range clients * rounds {
		r := recvOrFail(t, report, "OnInactive")
		assert.Equal(t, int64(resetN), r.received, "server read %d bytes before the reset, want %d", r.received, resetN)
		assert.EqualValues(t, 1, r.actives, "OnActive calls")
		assert.EqualValues(t, 1, r.inactive, "OnInactive calls")
		if assert.Len(t, r.errs, 1, "OnError calls") {
			assert.True(t, errors.Is(r.errs[0], syscall.ECONNRESET) || errors.Is(r.errs[0], syscall.EPIPE), "OnError(%v), want ECONNRESET or EPIPE", r.errs[0])
		}
	}
	waitFor(t, "no connection left", func() bool { return s.Conns() == 0 })
	select {
	case r := <-report:
		t.Errorf("a connection reported inactive twice (or an extra one): %+v", r)
	case <-time.After(50 * time.Millisecond):
	}
}

const resetN = 100_000

func resetClient(addr string, i int) error {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	tc := c.(*net.TCPConn)
	defer tc.Close()
	tc.SetDeadline(time.Now().Add(30 * time.Second))
	p := make([]byte, resetN)
	newStream(uint64(i)).fill(p)
	if _, err := tc.Write(p); err != nil {
		return err
	}
	ack := make([]byte, 4)
	if _, err := io.ReadFull(tc, ack); err != nil {
		return err
	}
	if string(ack) != "ACK!" {
		return errors.New("no ACK: " + string(ack))
	}
	// Read some of the stream, so that the server is mid-write.
	if _, err := io.ReadFull(tc, p[:i*1000+1]); err != nil {
		return err
	}
	if err := tc.SetLinger(0); err != nil {
		return err
	}
	return tc.Close()
}
