package httpbench

import (
	"context"
	"errors"
	"time"

	"github.com/netkit/netkit/codec/http1"
	"github.com/netkit/netkit/eventloop"
	"github.com/netkit/netkit/eventloop/httpserver"
	"github.com/netkit/netkit/internal/peers/benchproc"
)

func init() {
	starters["netkit"] = startNetkit
	starters["netkit-adapt"] = startNetkitAdapt
}

// The netkit answers: one header per endpoint shared by every response,
// and a 404 for other paths.
var (
	nkPlaintext = http1.ResponseHeader{ContentType: ContentType, Server: "netkit"}
	nkJSON      = http1.ResponseHeader{ContentType: JSONType, Server: "netkit"}
	nkNotFound  = http1.ResponseHeader{Status: 404, ContentType: ContentType, Server: "netkit"}
	nkBody      = []byte(Body)
)

func netkitHandler(w *http1.ResponseWriter, req *http1.Request) {
	h, body := &nkPlaintext, nkBody
	var delay bool
	switch string(req.Path) {
	case Path:
	case JSONPath:
		h, body = &nkJSON, jsonMessage()
	case DelayPath:
		delay = true
	default:
		h, body = &nkNotFound, nil
	}
	if !req.KeepAlive {
		c := *h
		c.Close = true
		h = &c
	}
	if delay {
		// The request outlives the handler: answer it from a goroutine.
		d := httpserver.Detach(w)
		go func() {
			time.Sleep(Delay)
			d.Respond(h, body)
		}()
		return
	}
	w.Respond(h, body)
}

// startNetkit serves the plaintext endpoint with eventloop/httpserver on
// one loop per GOMAXPROCS (one loop in the benchmark, which runs the
// server with GOMAXPROCS=1 on one CPU).
func startNetkit(addr string) (*benchproc.Server, error) {
	g, err := eventloop.NewGroup(eventloop.Config{})
	if err != nil {
		return nil, err
	}
	return serveNetkit(g, addr, netkitHandler)
}

// startNetkitAdapt serves nethttp's handler, a ServeMux route, with
// eventloop/httpserver through Adapt: each request on the adapter's pool
// of goroutines, with net/http's Request and ResponseWriter.
func startNetkitAdapt(addr string) (*benchproc.Server, error) {
	g, err := eventloop.NewGroup(eventloop.Config{})
	if err != nil {
		return nil, err
	}
	return serveNetkit(g, addr, httpserver.Adapt(benchMux("netkit-adapt")))
}

// serveNetkit runs h on g's loops at addr.
func serveNetkit(g *eventloop.Group, addr string, h httpserver.Handler, opts ...httpserver.Option) (*benchproc.Server, error) {
	srv, err := httpserver.Listen(g, addr, h, opts...)
	if err != nil {
		g.Close()
		return nil, err
	}
	stop := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return errors.Join(srv.Shutdown(ctx), g.Close())
	}
	return &benchproc.Server{Addr: srv.Addr().String(), Stop: stop}, nil
}
