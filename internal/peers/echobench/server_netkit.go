package echobench

import (
	"errors"

	"github.com/netkit/netkit/eventloop"
	"github.com/netkit/netkit/internal/peers/benchproc"
)

// netkitEcho is the smallest netkit echo handler: OnRead hands the inbound
// composite to Write, which moves its bytes to the outbound queue without
// a copy; OnReadComplete flushes once per read batch.
type netkitEcho struct{}

func (netkitEcho) OnRead(ctx *eventloop.Context, msg any) {
	if err := ctx.Write(msg); err != nil {
		ctx.Close()
	}
}

func (netkitEcho) OnReadComplete(ctx *eventloop.Context) { ctx.Flush() }

func init() { starters["netkit"] = startNetkit }

func startNetkit(addr string) (*benchproc.Server, error) {
	g, err := eventloop.NewGroup(eventloop.Config{})
	if err != nil {
		return nil, err
	}
	srv, err := eventloop.Listen(g, "tcp", addr, netkitEcho{})
	if err != nil {
		g.Close()
		return nil, err
	}
	stop := func() error { return errors.Join(srv.Close(), g.Close()) }
	return &benchproc.Server{Addr: srv.Addr().String(), Stop: stop}, nil
}
