package hpackpeers

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/http2/hpack"
)

// The x/net side of the benchmarks. x/net's barest decoding path is
// Decoder.Write of the block then Close, with the emit function set once
// (as its HTTP/2 Framer does with SetEmitFunc): DecodeFull would add a
// closure and the []HeaderField it returns. The emit function only adds
// up the lengths, the same work the netkit side's does.

var xnetSink int

func xnetEmit(f hpack.HeaderField) { xnetSink += len(f.Name) + len(f.Value) }

func benchDecodeXNet(b *testing.B, warm bool) {
	cold, warmBlock := BenchBlocks()
	if warm {
		d := hpack.NewDecoder(4096, xnetEmit)
		xnetWriteClose(b, d, cold)
		b.SetBytes(int64(len(warmBlock)))
		b.ReportAllocs()
		for b.Loop() {
			xnetWriteClose(b, d, warmBlock)
		}
		return
	}
	b.SetBytes(int64(len(cold)))
	b.ReportAllocs()
	for b.Loop() {
		d := hpack.NewDecoder(4096, xnetEmit)
		xnetWriteClose(b, d, cold)
	}
}

func xnetWriteClose(b *testing.B, d *hpack.Decoder, block []byte) {
	_, err := d.Write(block)
	require.NoError(b, err)
	require.NoError(b, d.Close())
}

// benchEncodeXNet encodes BenchRequest a field at a time with WriteField
// into a reused bytes.Buffer, as x/net's HTTP/2 client does.
func benchEncodeXNet(b *testing.B, warm bool) {
	fields := make([]hpack.HeaderField, len(BenchRequest))
	for i, f := range BenchRequest {
		fields[i] = hpack.HeaderField(f)
	}
	var buf bytes.Buffer
	encode := func(e *hpack.Encoder) {
		buf.Reset()
		for _, f := range fields {
			if err := e.WriteField(f); err != nil {
				b.Fatal(err)
			}
		}
	}
	if warm {
		e := hpack.NewEncoder(&buf)
		encode(e)
		encode(e)
		b.SetBytes(int64(buf.Len()))
		b.ReportAllocs()
		for b.Loop() {
			encode(e)
		}
		return
	}
	encode(hpack.NewEncoder(&buf))
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		encode(hpack.NewEncoder(&buf))
	}
}

// benchBombXNet decodes the bomb with a fresh decoder each time. full
// selects DecodeFull, which returns the list (64 MiB of header list in
// 16 Ki HeaderFields sharing one value string); otherwise Write and Close
// with the counting emit function. x/net's decoder has no list budget
// (its Framer applies one, by SetEmitEnabled(false) once over): it
// accepts the bomb either way.
func benchBombXNet(b *testing.B, full bool) {
	bomb := BombBlock()
	b.SetBytes(int64(len(bomb)))
	b.ReportAllocs()
	refused := 0
	for b.Loop() {
		d := hpack.NewDecoder(4096, xnetEmit)
		var err error
		if full {
			_, err = d.DecodeFull(bomb)
		} else if _, err = d.Write(bomb); err == nil {
			err = d.Close()
		}
		if err != nil {
			refused = 1
		}
	}
	b.ReportMetric(float64(refused), "refused")
}
