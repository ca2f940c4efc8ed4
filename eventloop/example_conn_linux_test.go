package eventloop_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec/frame"
	"github.com/netkit/netkit/eventloop"
)

// Echo is the smallest server: one handler, shared by every connection,
// that moves what it reads to the outbound queue (no copy) and flushes
// once per read event.
type Echo struct{}

func (Echo) OnRead(x *eventloop.Context, msg any) { x.Write(msg) }
func (Echo) OnReadComplete(x *eventloop.Context)  { x.Flush() }

func ExampleListen() {
	g, _ := eventloop.NewGroup(eventloop.Config{}) // one loop per GOMAXPROCS
	defer g.Close()
	srv, err := eventloop.Listen(g, "tcp", "127.0.0.1:0", Echo{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Shutdown(context.Background())

	c, _ := net.Dial("tcp", srv.Addr().String())
	defer c.Close()
	fmt.Fprintf(c, "hello\n")
	line, _ := bufio.NewReader(c).ReadString('\n')
	fmt.Print(line)
	// Output: hello
}

// Upper answers each line in upper case; it sees whole lines because a
// FrameDecoder before it in the pipeline splits the bytes read.
type Upper struct{}

func (Upper) OnRead(x *eventloop.Context, msg any) {
	line := msg.(*eventloop.Frame) // lent until OnRead returns (Retain keeps one)
	out := buf.Get(line.Len())
	out.WriteString(strings.ToUpper(string(line.Bytes())))
	x.Write(out) // the connection owns out now
}
func (Upper) OnReadComplete(x *eventloop.Context) { x.Flush() }

// A pipeline per connection, built by an Initializer: a line decoder (which
// keeps state, so each connection gets its own) and the application.
func ExamplePipeline() {
	g, _ := eventloop.NewGroup(eventloop.Config{Loops: 1})
	defer g.Close()
	srv, err := eventloop.Listen(g, "tcp", "127.0.0.1:0", eventloop.Initializer(func(c *eventloop.Conn) {
		c.Pipeline().AddLast("lines", eventloop.NewFrameDecoder(&frame.Line{MaxFrameLength: 1024}))
		c.Pipeline().AddLast("upper", Upper{})
	}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	c, _ := net.Dial("tcp", srv.Addr().String())
	defer c.Close()
	fmt.Fprintf(c, "split ")
	fmt.Fprintf(c, "line\nsecond\n")
	r := bufio.NewReader(c)
	for range 2 {
		line, _ := r.ReadString('\n')
		fmt.Print(line)
	}
	// Output:
	// SPLIT LINE
	// SECOND
}
