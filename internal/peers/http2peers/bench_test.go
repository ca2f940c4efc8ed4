package http2peers

import (
	"bytes"
	"io"
	"testing"

	"github.com/netkit/netkit/buf"
	nk "github.com/netkit/netkit/codec/http2"
	"golang.org/x/net/http2"
)

// pair is a HEADERS frame (a browser-sized 120-byte block) and a 1 KiB
// DATA frame on stream 1: what a request with a small body brings.
func pair() []byte {
	p, _ := nk.AppendHeaders(nil, 1, false, true, bytes.Repeat([]byte{0x82}, 120))
	p, _ = nk.AppendData(p, 1, true, bytes.Repeat([]byte("d"), 1024))
	return p
}

// BenchmarkDecodePair decodes a HEADERS+DATA pair: netkit's Decoder from
// a Composite, and x/net's Framer.ReadFrame from a reader, both reading
// the same bytes each iteration (benchstat -col /impl).
func BenchmarkDecodePair(b *testing.B) {
	p := pair()
	b.Run("impl=netkit", func(b *testing.B) {
		var d nk.Decoder
		var f nk.Frame
		in := buf.NewComposite()
		defer in.Release()
		src := buf.Get(len(p))
		defer src.Release()
		src.Write(p)
		b.ReportAllocs()
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			in.Append(src.Retain())
			for range 2 {
				if err := d.Decode(in, &f); err != nil {
					b.Fatal(err)
				}
			}
			in.Discard(0)
		}
	})
	b.Run("impl=xnet", func(b *testing.B) {
		r := bytes.NewReader(p)
		fr := http2.NewFramer(io.Discard, r)
		b.ReportAllocs()
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			r.Reset(p)
			for range 2 {
				if _, err := fr.ReadFrame(); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
