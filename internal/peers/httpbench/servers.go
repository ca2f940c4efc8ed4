package httpbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"time"

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

// A server is a running plaintext server: its bound address and a way to
// stop it.
type server struct {
	addr string
	stop func() error
}

// starters holds every plaintext server this binary can run, by -impl
// name, each in the shape its library's documentation shows, with its
// defaults.
var starters = map[string]func(addr string) (*server, error){
	"fasthttp": startFasthttp,
	"nethttp":  startNetHTTP,
}

// Servers lists the -impl names: netkit, fasthttp, nethttp.
func Servers() []string {
	var names []string
	for n := range starters {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return order(names[i]) < order(names[j]) })
	return names
}

func order(name string) string {
	switch name {
	case "netkit":
		return "0"
	case "fasthttp":
		return "1"
	case "nethttp":
		return "2"
	}
	return "3" + name
}

func startServer(impl, addr string) (*server, error) {
	start, ok := starters[impl]
	if !ok {
		return nil, fmt.Errorf("unknown -impl %q (have %v)", impl, Servers())
	}
	return start(addr)
}

// startFasthttp is a fasthttp.Server with its defaults; the handler sets
// the content type and the body, and fasthttp adds Server, Date and
// Content-Length.
func startFasthttp(addr string) (*server, error) {
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
	return &server{addr: ln.Addr().String(), stop: stop}, nil
}

// startNetHTTP is an http.Server with its defaults; the handler sets
// Content-Type and Server and writes the body, and net/http adds Date and
// Content-Length.
func startNetHTTP(addr string) (*server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	body := []byte(Body)
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+Path, func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Content-Type"] = []string{ContentType}
		h["Server"] = []string{"nethttp"}
		w.Write(body)
	})
	s := &http.Server{Handler: mux}
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
	return &server{addr: ln.Addr().String(), stop: stop}, nil
}

// serve runs one server until stop is closed, after printing
// "listening <addr>" as its only line on stdout.
func serve(stdout io.Writer, impl, addr string, stop <-chan struct{}) error {
	srv, err := startServer(impl, addr)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(stdout, "listening %s\n", srv.addr); err != nil {
		srv.stop()
		return err
	}
	<-stop
	if err := srv.stop(); err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("%s: stop: %w", impl, err)
	}
	return nil
}
