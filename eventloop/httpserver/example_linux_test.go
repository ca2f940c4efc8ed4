package httpserver_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/netkit/netkit/codec/http1"
	"github.com/netkit/netkit/eventloop"
	"github.com/netkit/netkit/eventloop/httpserver"
)

// ExampleListen serves "Hello, World!" on one loop and asks for it with
// net/http's client.
func ExampleListen() {
	g, err := eventloop.NewGroup(eventloop.Config{Loops: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close()

	// One header for every response: read-only, shared.
	plaintext := http1.ResponseHeader{ContentType: "text/plain", Server: "netkit"}
	hello := []byte("Hello, World!")
	srv, err := httpserver.Listen(g, "127.0.0.1:0", func(w *http1.ResponseWriter, req *http1.Request) {
		h := plaintext
		h.Close = !req.KeepAlive // tell the client when the connection will close
		w.Respond(&h, hello)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Shutdown(context.Background())

	resp, err := http.Get("http://" + srv.Addr().String() + "/plaintext")
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.Status, resp.Header.Get("Content-Type"), resp.Header.Get("Server"), resp.Header.Get("Date") != "")
	fmt.Printf("%s\n", body)
	// Output:
	// 200 OK text/plain netkit true
	// Hello, World!
}

// ExampleDetach answers a request from a goroutine, as a handler that
// waits on a database or another service would: the handler copies what
// it needs, detaches, and returns at once; the goroutine answers.
func ExampleDetach() {
	g, err := eventloop.NewGroup(eventloop.Config{Loops: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close()

	srv, err := httpserver.Listen(g, "127.0.0.1:0", func(w *http1.ResponseWriter, req *http1.Request) {
		name := string(req.Path) // req is the handler's only during the call
		d := httpserver.Detach(w)
		go func() {
			select {
			case <-time.After(time.Millisecond): // the slow work
			case <-d.Context().Done(): // the client went away
			}
			h := http1.ResponseHeader{ContentType: "text/plain"}
			d.Respond(&h, []byte("looked up "+name))
		}()
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Shutdown(context.Background())

	resp, err := http.Get("http://" + srv.Addr().String() + "/users/42")
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.Status)
	fmt.Printf("%s\n", body)
	// Output:
	// 200 OK
	// looked up /users/42
}

// ExampleAdapt serves a net/http ServeMux, with Go 1.22 patterns, from the
// event loop: each request runs on a goroutine of a bounded pool.
func ExampleAdapt() {
	g, err := eventloop.NewGroup(eventloop.Config{Loops: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close()

	mux := http.NewServeMux()
	mux.HandleFunc("GET /users/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":%q}`, r.PathValue("id"))
	})
	srv, err := httpserver.Listen(g, "127.0.0.1:0", httpserver.Adapt(mux))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Shutdown(context.Background())

	resp, err := http.Get("http://" + srv.Addr().String() + "/users/42")
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.Status, resp.Header.Get("Content-Type"), resp.ContentLength)
	fmt.Printf("%s\n", body)
	// Output:
	// 200 OK application/json 11
	// {"id":"42"}
}

// ExampleWithH2C serves one handler over HTTP/1.1 and HTTP/2 on one
// port: Go's client asks once with HTTP/2 without TLS (prior knowledge),
// once with HTTP/1.1.
func ExampleWithH2C() {
	g, err := eventloop.NewGroup(eventloop.Config{Loops: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close()

	text := http1.ResponseHeader{ContentType: "text/plain"}
	srv, err := httpserver.Listen(g, "127.0.0.1:0", func(w *http1.ResponseWriter, req *http1.Request) {
		w.Respond(&text, []byte("hello from "+string(req.Path)))
	}, httpserver.WithH2C())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Shutdown(context.Background())

	var h2 http.Protocols
	h2.SetUnencryptedHTTP2(true)
	for _, c := range []*http.Client{{Transport: &http.Transport{Protocols: &h2}}, http.DefaultClient} {
		resp, err := c.Get("http://" + srv.Addr().String() + "/greeting")
		if err != nil {
			fmt.Println(err)
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Printf("%s %s: %s\n", resp.Proto, resp.Status, body)
	}
	// Output:
	// HTTP/2.0 200 OK: hello from /greeting
	// HTTP/1.1 200 OK: hello from /greeting
}
