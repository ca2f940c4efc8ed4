package httpbench

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/netkit/netkit/internal/peers/benchproc"
	"github.com/valyala/fasthttp"
)

// The plaintext endpoint of the TechEmpower benchmarks: GET /plaintext
// answers 200 with Content-Type text/plain and the 13-byte body below, and
// a Server and a Date header.
const (
	Path        = "/plaintext"
	Body        = "Hello, World!"
	ContentType = "text/plain"
)

// starters holds every plaintext server this binary can run, by -impl
// name, each in the shape its library's documentation shows, with its
// defaults.
var starters = map[string]benchproc.Starter{
	"fasthttp": startFasthttp,
	"nethttp":  startNetHTTP,
}

// registry runs the starters, netkit, fasthttp and nethttp first.
var registry = benchproc.Registry{Starters: starters, First: []string{"netkit", "fasthttp", "nethttp", "netkit-adapt"}}

// Servers lists the -impl names: netkit, fasthttp, nethttp, netkit-adapt.
func Servers() []string { return registry.Names() }

// startFasthttp is a fasthttp.Server with its defaults; the handler sets
// the content type and the body, and fasthttp adds Server, Date and
// Content-Length.
func startFasthttp(addr string) (*benchproc.Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	body := []byte(Body)
	s := &fasthttp.Server{
		Name: "fasthttp",
		Handler: func(ctx *fasthttp.RequestCtx) {
			if string(ctx.Path()) != Path {
				ctx.Error("not found", fasthttp.StatusNotFound)
				return
			}
			ctx.SetContentType(ContentType)
			ctx.SetBody(body)
		},
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	stop := func() error {
		err := s.Shutdown()
		if serr := <-done; err == nil {
			err = serr
		}
		return err
	}
	return &benchproc.Server{Addr: ln.Addr().String(), Stop: stop}, nil
}

// plaintextMux is the net/http plaintext handler: a ServeMux route that
// sets Content-Type and Server and writes the body; the server adds Date
// and Content-Length.
func plaintextMux(server string) *http.ServeMux {
	body := []byte(Body)
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+Path, func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Content-Type"] = []string{ContentType}
		h["Server"] = []string{server}
		w.Write(body)
	})
	return mux
}

// startNetHTTP is an http.Server with its defaults; the handler sets
// Content-Type and Server and writes the body, and net/http adds Date and
// Content-Length.
func startNetHTTP(addr string) (*benchproc.Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &http.Server{Handler: plaintextMux("nethttp")}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	stop := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := s.Shutdown(ctx)
		if serr := <-done; err == nil && !errors.Is(serr, http.ErrServerClosed) {
			err = serr
		}
		return err
	}
	return &benchproc.Server{Addr: ln.Addr().String(), Stop: stop}, nil
}
