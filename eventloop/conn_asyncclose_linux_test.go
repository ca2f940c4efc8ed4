package eventloop_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/eventloop"
)

// prefixChecker checks that what a connection reads is a prefix of the
// stream, and reports how much arrived when the connection closes.
type prefixChecker struct {
	r    *stream
	err  error
	done chan<- *prefixChecker
}

func (p *prefixChecker) OnRead(_ *eventloop.Context, msg any) {
	in := msg.(*buf.Composite)
	for in.Len() > 0 {
		s := in.Span(0)
		if p.err == nil {
			p.err = p.r.check(s)
		}
		in.Discard(len(s))
	}
}

func (p *prefixChecker) OnInactive(*eventloop.Context) { p.done <- p }

// TestAsyncWriteClose: an eventloop.Dial client writes a stream with
// AsyncWrite from one goroutine. When that goroutine then calls Close,
// Close flushes: the server reads the whole stream, in order. When another
// goroutine calls Close in the middle, every AsyncWrite returns nil or
// ErrConnClosed and the server reads an exact prefix of the stream; no
// buffer leaks either way (the test's checks).
func TestAsyncWriteClose(t *testing.T) {
	for _, concurrent := range []bool{false, true} {
		name := "close-after-writes"
		if concurrent {
			name = "close-during-writes"
		}
		t.Run(name, func(t *testing.T) {
			clean(t)
			const msgs, size = 2000, 1000
			g := relGroup(t, 2, nil)
			done := make(chan *prefixChecker, 1)
			s := listen(t, g, "tcp", "127.0.0.1:0", eventloop.Initializer(func(c *eventloop.Conn) {
				c.Pipeline().AddLast("check", &prefixChecker{r: newStream(5), done: done})
			}))
			var n counter
			c, err := eventloop.Dial(g, "tcp", s.Addr().String(), &n)
			require.NoError(t, err)
			var wg sync.WaitGroup
			if concurrent {
				wg.Add(1)
				go func() {
					defer wg.Done()
					c.Close()
				}()
			}
			w := newStream(5)
			sent, refused := 0, 0
			for range msgs {
				b := buf.Default.Get(size)
				w.fill(b.AvailableBuffer()[:size])
				b.Commit(size)
				switch err := c.AsyncWrite(b); {
				case err == nil:
					require.LessOrEqual(t, refused, 0, "AsyncWrite succeeded after it had returned ErrConnClosed")
					sent++
				case errors.Is(err, eventloop.ErrConnClosed):
					refused++
				default:
					t.Fatalf("AsyncWrite: %v", err)
				}
			}
			if !concurrent {
				c.Close()
			}
			wg.Wait()
			p := recvOrFail(t, done, "the server's OnInactive")
			require.NoError(t, p.err)
			if !concurrent {
				assert.Zero(t, refused, "writes refused")
				assert.EqualValues(t, msgs*size, p.r.off, "bytes the server read")
			}
			assert.LessOrEqual(t, p.r.off, int64(sent*size), "server read %d bytes, more than the %d accepted", p.r.off, sent*size)
			waitFor(t, "the client's OnInactive", func() bool { return n.inactive.Load() == 1 })
			t.Logf("accepted %d writes, refused %d; server read %d bytes", sent, refused, p.r.off)
		})
	}
}
