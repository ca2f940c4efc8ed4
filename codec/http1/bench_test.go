package http1

import (
	"testing"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/internal/httpreq"
)

// BenchmarkParse parses the two requests internal/peers parses with
// fasthttp and net/http. A chunked body is de-chunked in place, so each
// iteration of req=chunkedpost first restores the input (a 300-byte copy,
// included in the time).
func BenchmarkParse(b *testing.B) {
	for _, tc := range []struct{ name, in string }{
		{"get10", httpreq.GET10},
		{"chunkedpost", httpreq.ChunkedPOST},
	} {
		b.Run("req="+tc.name+"/impl=netkit", func(b *testing.B) {
			src := []byte(tc.in)
			p := make([]byte, len(src))
			copy(p, src)
			var d Decoder
			var req Request
			chunked := tc.name == "chunkedpost"
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				if chunked {
					copy(p, src)
				}
				_, err := d.DecodeBytes(p, &req)
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecode decodes the GET from a composite, as a server does: one
// read holding the request, appended and consumed each iteration.
func BenchmarkDecode(b *testing.B) {
	b.Run("req=get10/impl=netkit", func(b *testing.B) {
		src := []byte(httpreq.GET10)
		d := new(Decoder)
		in := buf.NewComposite()
		defer in.Release()
		var req Request
		b.SetBytes(int64(len(src)))
		b.ReportAllocs()
		for b.Loop() {
			r := buf.Get(len(src))
			r.Write(src)
			in.Append(r)
			if err := d.Decode(in, &req); err != nil {
				b.Fatal(err)
			}
		}
		req.Release()
	})
}
