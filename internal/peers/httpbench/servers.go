package httpbench

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"slices"
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

// The JSON endpoint of the TechEmpower benchmarks: GET /json answers 200
// with Content-Type application/json and JSONBody, the message object
// serialized for each request with encoding/json by every server.
const (
	JSONPath = "/json"
	JSONBody = `{"message":"Hello, World!"}`
	JSONType = "application/json"
)

// The slow endpoint: GET /delay waits Delay (a stand-in for a database or
// an outbound call), then answers as /plaintext does. net/http and
// fasthttp sleep in their handler's goroutine; netkit's handler detaches
// the request and answers from a goroutine that sleeps.
const (
	DelayPath = "/delay"
	Delay     = time.Millisecond
)

// message is the JSON endpoint's object.
type message struct {
	Message string `json:"message"`
}

// jsonMessage serializes the JSON endpoint's object, as each server does
// per request.
func jsonMessage() []byte {
	b, err := json.Marshal(&message{Message: Body})
	if err != nil {
		panic(err) // a fixed struct of one string cannot fail
	}
	return b
}

// starters holds every plaintext server this binary can run, by -impl
// name, each in the shape its library's documentation shows, with its
// defaults.
var starters = map[string]benchproc.Starter{
	"fasthttp": startFasthttp,
	"nethttp":  startNetHTTP,
}

// registry runs the starters, netkit, fasthttp and nethttp first.
var registry = benchproc.Registry{Starters: starters, First: []string{"netkit", "fasthttp", "nethttp", "netkit-adapt"}}

// Servers lists the HTTP/1.1 benchmark's -impl names: netkit, fasthttp,
// nethttp, netkit-adapt (the h2c servers, h2Servers, are httpbench h2's).
func Servers() []string {
	var out []string
	for _, n := range registry.Names() {
		if !slices.Contains(h2Servers, n) {
			out = append(out, n)
		}
	}
	return out
}

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
			switch string(ctx.Path()) {
			case Path:
			case JSONPath:
				ctx.SetContentType(JSONType)
				ctx.SetBody(jsonMessage())
				return
			case DelayPath:
				time.Sleep(Delay)
			default:
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

// benchMux is the net/http handler: ServeMux routes that set Content-Type
// and Server and write the body; the server adds Date and Content-Length.
func benchMux(server string) *http.ServeMux {
	body := []byte(Body)
	plain := func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Content-Type"] = []string{ContentType}
		h["Server"] = []string{server}
		w.Write(body)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+Path, plain)
	mux.HandleFunc("GET "+JSONPath, func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Content-Type"] = []string{JSONType}
		h["Server"] = []string{server}
		w.Write(jsonMessage())
	})
	mux.HandleFunc("GET "+DelayPath, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(Delay)
		plain(w, r)
	})
	return mux
}

// startNetHTTP is an http.Server with its defaults; the handler sets
// Content-Type and Server and writes the body, and net/http adds Date and
// Content-Length.
func startNetHTTP(addr string) (*benchproc.Server, error) {
	return serveNetHTTP(addr, &http.Server{Handler: benchMux("nethttp")})
}

// serveNetHTTP runs s on addr until the returned Server's Stop, which
// shuts it down.
func serveNetHTTP(addr string, s *http.Server) (*benchproc.Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
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
