package eventloop_test

import (
	"fmt"
	"net"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec/frame"
	"github.com/netkit/netkit/eventloop"
)

// lines prints each line the decoder handler fires, and releases it.
type lines struct{ got chan<- string }

func (l lines) OnRead(x *eventloop.Context, msg any) {
	b := msg.(*buf.Buffer) // a frame decoder fires *buf.Buffer frames the handler owns
	l.got <- string(b.Bytes())
	b.Release()
}

// A DecoderHandler runs any codec's stream decoder over the bytes read, so
// the next handler receives whole messages however the reads cut them:
// here frame.Line, one decoder per connection, built by an Initializer.
func ExampleNewDecoderHandler() {
	g, err := eventloop.NewGroup(eventloop.Config{Loops: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close()
	got := make(chan string, 3)
	srv, err := eventloop.Listen(g, "tcp", "127.0.0.1:0", eventloop.Initializer(func(c *eventloop.Conn) {
		c.Pipeline().AddLast("lines", eventloop.NewDecoderHandler(&frame.Line{StripDelimiter: true}))
		c.Pipeline().AddLast("app", lines{got})
	}))
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := net.Dial("tcp", srv.Addr().String())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	c.Write([]byte("first\r\nsec"))
	fmt.Println(<-got)
	c.Write([]byte("ond\nthird\n"))
	fmt.Println(<-got)
	fmt.Println(<-got)
	// Output:
	// first
	// second
	// third
}
