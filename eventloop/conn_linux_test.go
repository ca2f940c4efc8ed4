package eventloop_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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
	if err != nil {
		t.Fatal(err)
	}
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
	b := msg.(*buf.Buffer)
	out := buf.Get(b.Len() + 8)
	fmt.Fprintf(out, "%d:%s\n", b.Len(), b.Bytes())
	b.Release()
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
		c.Pipeline().AddLast("frames", eventloop.NewFrameDecoder(&frame.Line{MaxLength: 16, StripDelimiter: true}))
		c.Pipeline().AddLast("app", lineApp{&errs})
	}))
	c, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, part := range []string{"he", "llo\nwor", "ld\n", strings.Repeat("x", 40), "\nok\n"} {
		c.Write([]byte(part))
		time.Sleep(5 * time.Millisecond)
	}
	want := "5:hello\n5:world\n2:ok\n"
	got := make([]byte, len(want))
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if n := errs.Load(); n != 1 {
		t.Errorf("%d errors reported, want 1 (the long line)", n)
	}
}
