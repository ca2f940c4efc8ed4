package http1peers

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/netkit/netkit/codec/http1"
	"github.com/netkit/netkit/internal/httpreq"
)

// benchInputs are the requests of BenchmarkParse, by the name of their
// sub-benchmark.
var benchInputs = []struct{ name, in string }{
	{"get10", httpreq.GET10},
	{"chunkedpost", httpreq.ChunkedPOST},
}

// BenchmarkParse parses the requests of internal/httpreq, named key=value
// for benchstat -col /impl:
//
//	BenchmarkParse/req=get10|chunkedpost/impl=netkit|fasthttp-header|fasthttp|nethttp
//
// Every impl moves the input's bytes once per request: the readers copy
// them from a reset bytes.Reader into a reused bufio.Reader's buffer, as a
// server copies them from the socket; netkit copies them into a reused
// scratch slice (its chunked parse rewrites the body in place). Nothing
// else is set up inside the loop.
//
//   - netkit: http1.Decoder.DecodeBytes (the zero Decoder) into a reused Request, head and body.
//   - fasthttp-header: a reused fasthttp.RequestHeader's Read: the head
//     only (for chunkedpost it leaves the body unread).
//   - fasthttp: a reused fasthttp.Request's Read: head and body
//     (de-chunked), as fasthttp's server reads a request.
//   - nethttp: http.ReadRequest, then io.Copy(io.Discard, req.Body): head
//     and body (de-chunked), as net/http's server reads a request.
func BenchmarkParse(b *testing.B) {
	for _, in := range benchInputs {
		b.Run("req="+in.name, func(b *testing.B) {
			b.Run("impl=netkit", func(b *testing.B) { benchNetkit(b, in.in) })
			b.Run("impl=fasthttp-header", func(b *testing.B) { benchFastHTTPHeader(b, in.in) })
			b.Run("impl=fasthttp", func(b *testing.B) { benchFastHTTP(b, in.in) })
			b.Run("impl=nethttp", func(b *testing.B) { benchNetHTTP(b, in.in) })
		})
	}
}

// reader returns in as bytes, a bytes.Reader over them and a bufio.Reader
// over it, both to be reset before each request.
func reader(in string) ([]byte, *bytes.Reader, *bufio.Reader) {
	p := []byte(in)
	src := bytes.NewReader(p)
	return p, src, bufio.NewReaderSize(src, 4096)
}

func benchFastHTTPHeader(b *testing.B, in string) {
	p, src, br := reader(in)
	var h fasthttp.RequestHeader
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		src.Reset(p)
		br.Reset(src)
		if err := h.Read(br); err != nil {
			b.Fatal(err)
		}
	}
}

func benchFastHTTP(b *testing.B, in string) {
	p, src, br := reader(in)
	var req fasthttp.Request
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		src.Reset(p)
		br.Reset(src)
		if err := req.Read(br); err != nil {
			b.Fatal(err)
		}
	}
}

func benchNetHTTP(b *testing.B, in string) {
	p, src, br := reader(in)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		src.Reset(p)
		br.Reset(src)
		req, err := http.ReadRequest(br)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, req.Body); err != nil {
			b.Fatal(err)
		}
	}
}

func benchNetkit(b *testing.B, in string) {
	var d http1.Decoder
	var req http1.Request
	scratch := make([]byte, len(in))
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		copy(scratch, in)
		n, err := d.DecodeBytes(scratch, &req)
		if err != nil || n != len(in) {
			b.Fatal(n, err)
		}
	}
}
