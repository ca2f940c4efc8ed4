package eventloop_test

import (
	"context"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/eventloop"
)

// pump streams total bytes of a seeded stream to its connection in chunks,
// writing only while the connection is writable and resuming when it
// becomes writable again, then closes the connection. It records the
// writability events and the most bytes ever queued.
type pump struct {
	w          *stream
	total      int64
	chunk      int
	maxOut     int
	events     []bool
	unwritable chan struct{} // closed at the first writable(false)
	inactive   chan struct{}
	closing    bool
	conn       *eventloop.Conn
}

func newPump(seed uint64, total int64, chunk int) *pump {
	return &pump{w: newStream(seed), total: total, chunk: chunk,
		unwritable: make(chan struct{}), inactive: make(chan struct{})}
}

func (p *pump) OnActive(x *eventloop.Context) { p.run(x) }

func (p *pump) OnWritabilityChanged(x *eventloop.Context, writable bool) {
	p.events = append(p.events, writable)
	if !writable {
		if len(p.events) == 1 {
			close(p.unwritable)
		}
		return
	}
	p.run(x)
}

func (p *pump) OnInactive(*eventloop.Context) { close(p.inactive) }

func (p *pump) run(x *eventloop.Context) {
	c := x.Conn()
	for p.w.off < p.total && c.Writable() {
		n := int(min(int64(p.chunk), p.total-p.w.off))
		b := buf.Default.Get(n)
		p.w.fill(b.AvailableBuffer()[:n])
		b.Commit(n)
		if err := x.Write(b); err != nil {
			return
		}
		p.maxOut = max(p.maxOut, c.Outbound())
	}
	x.Flush()
	if p.w.off == p.total && !p.closing {
		p.closing = true
		c.Close()
	}
}

// smallRcvBuf dials with a 32 KiB receive buffer, so that a client that
// does not read backs the server up soon.
func smallRcvBuf(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		err := rc.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 32<<10)
		})
		if err != nil {
			return err
		}
		return serr
	}}
	return d.DialContext(ctx, network, addr)
}

// TestSlowReader: the server streams 8 MiB in 16 KiB writes to a client
// that does not read, writing only while Writable. The handler sees
// OnWritabilityChanged(false) (alternating with true while the kernel's
// buffers absorb the stream); once the socket is full and the client still
// does not read, no event fires, Writable stays false and Outbound stays
// between the low mark and the high mark plus one write, as it does at any
// time; once the client reads, true fires,
// the stream resumes and every byte arrives, in order, then EOF.
func TestSlowReader(t *testing.T) {
	clean(t)
	const (
		low, high = 32 << 10, 64 << 10
		chunk     = 16 << 10
		total     = 8 << 20
	)
	g := relGroup(t, 2, nil)
	pumps := make(chan *pump, 1)
	s := listen(t, g, "tcp", "127.0.0.1:0", eventloop.Initializer(func(c *eventloop.Conn) {
		p := newPump(1, total, chunk)
		p.conn = c
		c.Pipeline().AddLast("pump", p)
		pumps <- p
	}), eventloop.WithWaterMarks(low, high))
	c, err := smallRcvBuf(context.Background(), "tcp", s.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	p := recvOrFail(t, pumps, "the connection")
	recvOrFail(t, p.unwritable, "OnWritabilityChanged(false)")
	sc := p.conn
	// Wait until the socket is full: the events stop, the conn unwritable.
	snap := func() (n int, writable bool) {
		done := make(chan struct{})
		sc.Execute(func() { n, writable = len(p.events), sc.Writable(); close(done) })
		recvOrFail(t, done, "a task on the loop")
		return n, writable
	}
	prev := -1
	waitFor(t, "the server to stay unwritable", func() bool {
		n, w := snap()
		stable := n == prev && !w
		prev = n
		time.Sleep(50 * time.Millisecond)
		return stable
	})
	stuck := prev // events so far; the last one is false
	// The client still does not read: the queue stays bounded, unwritable,
	// and no event fires.
	for range 20 {
		out := sc.Outbound()
		require.LessOrEqual(t, out, high+chunk, "Outbound() = %d while the client does not read; want %d..%d", out, low, high+chunk)
		require.GreaterOrEqual(t, out, low, "Outbound() = %d while the client does not read; want %d..%d", out, low, high+chunk)
		require.False(t, sc.Writable(), "Writable() while the client does not read")
		time.Sleep(10 * time.Millisecond)
	}
	n, _ := snap()
	require.Equal(t, stuck, n, "%d writability events while the client did not read", n-stuck)
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	r := newStream(1)
	q := make([]byte, 64<<10)
	for {
		n, err := c.Read(q)
		require.NoError(t, r.check(q[:n]))
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "read after %d bytes", r.off)
	}
	require.Equal(t, int64(total), r.off, "read %d bytes, want %d", r.off, total)
	recvOrFail(t, p.inactive, "OnInactive")
	// The loop is done with p: OnInactive ran.
	assert.True(t, len(p.events) > stuck && p.events[stuck], "writability events %v: want a true after the client started reading (after event %d)", p.events, stuck)
	assert.True(t, len(p.events) >= 2 && p.events[len(p.events)-1], "writability events %v: want false, true, … ending with true", p.events)
	for i, w := range p.events {
		if !assert.Equal(t, i%2 == 1, w, "writability events %v do not alternate from false", p.events) {
			break
		}
	}
	assert.LessOrEqual(t, p.maxOut, high+chunk, "Outbound() reached %d, over the high mark %d plus one write %d", p.maxOut, high, chunk)
	t.Logf("writability events: %d; most queued: %d bytes", len(p.events), p.maxOut)
}
