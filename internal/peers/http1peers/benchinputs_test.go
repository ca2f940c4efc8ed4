package http1peers

import (
	"bufio"
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"
)

// TestBenchInputs checks that every impl of BenchmarkParse reads both
// inputs whole, as the same method, target, fields and body, and the way
// the benchmark drives it reads them too.
func TestBenchInputs(t *testing.T) {
	bodies := map[string]string{
		"get10":       "",
		"chunkedpost": `{"event":"click","id":123456789}{"event":"view","id":1234567890}{"event":"buy","id":12345678901}`,
	}
	for _, in := range benchInputs {
		t.Run(in.name, func(t *testing.T) {
			p := []byte(in.in)
			nk, err := NetkitParse(p)
			if err != nil {
				t.Fatalf("netkit: %v", err)
			}
			if nk.Body != bodies[in.name] || nk.N != len(p) {
				t.Fatalf("netkit reads %d bytes of %d, body %q", nk.N, len(p), nk.Body)
			}
			for _, peer := range []struct {
				name string
				read func([]byte) (*Parsed, error)
			}{{"nethttp", NetHTTPRead}, {"fasthttp", FastHTTPRead}} {
				got, err := peer.read(p)
				if err != nil {
					t.Fatalf("%s: %v", peer.name, err)
				}
				if d := Diff(nk, got); d != "" {
					t.Errorf("netkit vs %s: %s", peer.name, d)
				}
			}

			// fasthttp-header, as the benchmark drives it: the head only.
			var h fasthttp.RequestHeader
			br := bufio.NewReader(bytes.NewReader(p))
			if err := h.Read(br); err != nil {
				t.Fatalf("fasthttp-header: %v", err)
			}
			if string(h.Method()) != nk.Method || string(h.RequestURI()) != nk.Target {
				t.Errorf("fasthttp-header reads %s %s", h.Method(), h.RequestURI())
			}
			var fields []Field
			for name, value := range h.AllInOrder() {
				if l := strings.ToLower(string(name)); !skipped(l) {
					fields = append(fields, Field{l, string(value)})
				}
			}
			if !slices.Equal(sorted(fields), sorted(nk.Headers)) {
				t.Errorf("fasthttp-header reads the fields %q, netkit %q", sorted(fields), sorted(nk.Headers))
			}
			if head := strings.Index(in.in, "\r\n\r\n") + 4; len(p)-br.Buffered() != head {
				t.Errorf("fasthttp-header reads %d bytes, the head is %d", len(p)-br.Buffered(), head)
			}
		})
	}
}
