package eventloop_test

import (
	"bytes"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/netkit/netkit/buf"
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
