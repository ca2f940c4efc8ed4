package httpserver_test

import (
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/netkit/netkit/codec/http1"
	"github.com/netkit/netkit/eventloop"
	"github.com/netkit/netkit/eventloop/httpserver"
)

// BenchmarkPlaintext measures a plaintext round trip over loopback, one
// request per write and 16 pipelined, client and server in this process
// (the numbers include both sides and the system calls; make bench-http
// measures the server alone, as a process).
func BenchmarkPlaintext(b *testing.B) {
	benchPlaintext(b, func(w *http1.ResponseWriter, req *http1.Request) {
		w.Respond(&plainHeader, hello)
	})
}

// BenchmarkAdaptPlaintext is BenchmarkPlaintext through Adapt: a ServeMux
// route on the adapter's goroutines, with net/http's Request and
// ResponseWriter (its allocs/op are the adapter's per request).
func BenchmarkAdaptPlaintext(b *testing.B) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /plaintext", func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Content-Type"] = []string{"text/plain"}
		h["Server"] = []string{"netkit"}
		w.Write(hello)
	})
	benchPlaintext(b, httpserver.Adapt(mux))
}

func benchPlaintext(b *testing.B, h httpserver.Handler) {
	for _, depth := range []int{1, 16} {
		b.Run("depth="+strconv.Itoa(depth), func(b *testing.B) {
			g, err := eventloop.NewGroup(eventloop.Config{Loops: 1})
			if err != nil {
				b.Fatal(err)
			}
			defer g.Close()
			srv, err := httpserver.Listen(g, "127.0.0.1:0", h)
			if err != nil {
				b.Fatal(err)
			}
			defer srv.Close()
			c, err := net.Dial("tcp", srv.Addr().String())
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			req := []byte(strings.Repeat("GET /plaintext HTTP/1.1\r\nHost: localhost\r\nAccept: text/plain\r\nConnection: keep-alive\r\n\r\n", depth))
			one := len("HTTP/1.1 200 OK\r\nDate: Mon, 02 Jan 2006 15:04:05 GMT\r\nServer: netkit\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, World!")
			got := make([]byte, one*depth)
			b.ReportAllocs()
			b.SetBytes(int64(len(got)))
			for b.Loop() {
				if _, err := c.Write(req); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(c, got); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*depth), "ns/req")
		})
	}
}
