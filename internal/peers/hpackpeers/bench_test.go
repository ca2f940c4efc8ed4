package hpackpeers

import (
	"errors"
	"testing"

	xhpack "golang.org/x/net/http2/hpack"

	"github.com/netkit/netkit/codec/hpack"
)

// Benchmarks, named key=value for benchstat -col /impl:
//
//	BenchmarkDecode/state=warm|cold/impl=netkit|netkit-validating|xnet
//	BenchmarkEncode/state=warm|cold/impl=netkit|xnet
//	BenchmarkBomb/impl=netkit|xnet|xnet-decodefull
//
// Decode reads x/net's blocks of BenchRequest (BenchBlocks): warm, one
// decoder that read the first block decodes the second, all indexed, again
// and again; cold, a new decoder each time (made inside the timed loop)
// decodes the first. impl=netkit is the default configuration
// (new(Decoder), default limits), impl=netkit-validating &Decoder{Validate: Request}.
// The x/net side is in bench_xnet_test.go.
func BenchmarkDecode(b *testing.B) {
	for _, state := range []string{"warm", "cold"} {
		warm := state == "warm"
		b.Run("state="+state, func(b *testing.B) {
			b.Run("impl=netkit", func(b *testing.B) { benchDecodeNetkit(b, warm, hpack.NoValidation) })
			b.Run("impl=netkit-validating", func(b *testing.B) { benchDecodeNetkit(b, warm, hpack.Request) })
			b.Run("impl=xnet", func(b *testing.B) { benchDecodeXNet(b, warm) })
		})
	}
}

// BenchmarkEncode encodes BenchRequest: warm, one encoder, again and again
// into a reused buffer (all indexed after the first); cold, a new encoder
// each time, once. netkit appends to dst[:0] with AppendFields.
func BenchmarkEncode(b *testing.B) {
	for _, state := range []string{"warm", "cold"} {
		warm := state == "warm"
		b.Run("state="+state, func(b *testing.B) {
			b.Run("impl=netkit", func(b *testing.B) { benchEncodeNetkit(b, warm) })
			b.Run("impl=xnet", func(b *testing.B) { benchEncodeXNet(b, warm) })
		})
	}
}

// BenchmarkBomb decodes the HPACK bomb (BombBlock: 20 KiB that expand to a
// 64 MiB header list) with a new decoder each time; read B/op, and the
// "refused" column (1 when the decoder refused the list). netkit, default
// limits, must refuse it with ErrListTooLarge (a 64 KiB list budget).
func BenchmarkBomb(b *testing.B) {
	b.Run("impl=netkit", benchBombNetkit)
	b.Run("impl=xnet", func(b *testing.B) { benchBombXNet(b, false) })
	b.Run("impl=xnet-decodefull", func(b *testing.B) { benchBombXNet(b, true) })
}

var netkitSink int

func netkitEmit(name, value []byte, sensitive bool) error {
	netkitSink += len(name) + len(value)
	return nil
}

func benchDecodeNetkit(b *testing.B, warm bool, mode hpack.Mode) {
	cold, warmBlock := BenchBlocks()
	if warm {
		d := &hpack.Decoder{Validate: mode}
		if err := d.DecodeBlock(cold, netkitEmit); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(warmBlock)))
		b.ReportAllocs()
		for b.Loop() {
			if err := d.DecodeBlock(warmBlock, netkitEmit); err != nil {
				b.Fatal(err)
			}
		}
		return
	}
	b.SetBytes(int64(len(cold)))
	b.ReportAllocs()
	for b.Loop() {
		if err := (&hpack.Decoder{Validate: mode}).DecodeBlock(cold, netkitEmit); err != nil {
			b.Fatal(err)
		}
	}
}

func benchEncodeNetkit(b *testing.B, warm bool) {
	fields := NetkitFields(BenchRequest)
	var dst []byte
	if warm {
		e := new(hpack.Encoder)
		dst = e.AppendFields(dst[:0], fields)
		dst = e.AppendFields(dst[:0], fields)
		b.SetBytes(int64(len(dst)))
		b.ReportAllocs()
		for b.Loop() {
			dst = e.AppendFields(dst[:0], fields)
		}
		return
	}
	dst = new(hpack.Encoder).AppendFields(dst, fields)
	b.SetBytes(int64(len(dst)))
	b.ReportAllocs()
	for b.Loop() {
		dst = new(hpack.Encoder).AppendFields(dst[:0], fields)
	}
}

func benchBombNetkit(b *testing.B) {
	bomb := BombBlock()
	b.SetBytes(int64(len(bomb)))
	b.ReportAllocs()
	refused := 0
	for b.Loop() {
		err := new(hpack.Decoder).DecodeBlock(bomb, netkitEmit)
		if !errors.Is(err, hpack.ErrListTooLarge) {
			b.Fatalf("netkit decodes the bomb with %v, want ErrListTooLarge", err)
		}
		refused = 1
	}
	b.ReportMetric(float64(refused), "refused")
}

// TestBenchInputs checks the benchmarks' inputs: the request's sizes, that
// both decoders read both blocks as BenchRequest, that the warm block is
// all indexed (one byte a field), that both encoders' warm blocks are that
// too, and that netkit's default decoder refuses the bomb with
// ErrListTooLarge after reading it whole, while x/net's accepts it.
func TestBenchInputs(t *testing.T) {
	if n := len(BenchRequest); n != 10 {
		t.Fatalf("%d fields", n)
	}
	if n := len(BenchRequest[4].Value); BenchRequest[4].Name != "user-agent" || n != 97 {
		t.Errorf("user-agent of %d bytes, want 97", n)
	}
	if n := len(BenchRequest[8].Value); BenchRequest[8].Name != "cookie" || n != 60 {
		t.Errorf("cookie of %d bytes, want 60", n)
	}
	cold, warm := BenchBlocks()
	if len(warm) != len(BenchRequest) {
		t.Errorf("warm block % x is not all indexed", warm)
	}
	d, e := newDecoders(), newXNetEnc(4096)
	checkBlock(t, "cold", d, e, cold, BenchRequest)
	checkBlock(t, "warm", d, e, warm, BenchRequest)
	vd := &hpack.Decoder{Validate: hpack.Request}
	for _, b := range [][]byte{cold, warm} {
		l, err := NetkitDecode(vd, b)
		if err != nil || Diff(l, BenchRequest) != "" {
			t.Fatalf("validating decoder: %v%s", err, ListString(l))
		}
	}
	ne := new(hpack.Encoder)
	ne.AppendFields(nil, NetkitFields(BenchRequest))
	if w := ne.AppendFields(nil, NetkitFields(BenchRequest)); string(w) != string(warm) {
		t.Errorf("netkit's warm block % x, x/net's % x", w, warm)
	}

	bomb := BombBlock()
	n := 0
	err := new(hpack.Decoder).DecodeBlock(bomb, func(name, value []byte, sensitive bool) error { n++; return nil })
	if !errors.Is(err, hpack.ErrListTooLarge) || !hpack.IsStreamError(err) {
		t.Fatalf("netkit decodes the bomb with %v, want a stream error of ErrListTooLarge", err)
	}
	if max := 64 << 10 / (1 + BombValueLen + 32); n > max {
		t.Errorf("netkit emitted %d fields of the bomb, more than fit in 64 KiB (%d)", n, max)
	}
	xl, err := XNetDecode(xhpack.NewDecoder(4096, nil), bomb)
	if err != nil || len(xl) != 1+BombRefs {
		t.Errorf("x/net decodes the bomb to %d fields, error %v", len(xl), err)
	}
}

// TestAllocs: netkit decodes the warm block and encodes the request warm
// without allocating, and a new decoder costs at most 2 allocations.
func TestAllocs(t *testing.T) {
	cold, warm := BenchBlocks()
	d := new(hpack.Decoder)
	if err := d.DecodeBlock(cold, netkitEmit); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { d.DecodeBlock(warm, netkitEmit) }); n != 0 {
		t.Errorf("warm decode: %v allocations, want 0", n)
	}
	if n := testing.AllocsPerRun(100, func() { new(hpack.Decoder).DecodeBlock(cold, netkitEmit) }); n > 2 {
		t.Errorf("cold decode: %v allocations, want at most 2", n)
	}
	fields := NetkitFields(BenchRequest)
	e := new(hpack.Encoder)
	dst := e.AppendFields(nil, fields)
	if n := testing.AllocsPerRun(100, func() { dst = e.AppendFields(dst[:0], fields) }); n != 0 {
		t.Errorf("warm encode: %v allocations, want 0", n)
	}
}
