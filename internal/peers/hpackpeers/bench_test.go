package hpackpeers

import (
	"errors"
	"testing"

	xhpack "golang.org/x/net/http2/hpack"

	"github.com/netkit/netkit/codec/hpack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		require.NoError(b, d.DecodeBlock(cold, netkitEmit))
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
	require.Len(t, BenchRequest, 10, "fields")
	assert.Equal(t, "user-agent", BenchRequest[4].Name, "field 4")
	assert.Len(t, BenchRequest[4].Value, 97, "user-agent bytes")
	assert.Equal(t, "cookie", BenchRequest[8].Name, "field 8")
	assert.Len(t, BenchRequest[8].Value, 60, "cookie bytes")
	cold, warm := BenchBlocks()
	assert.Equal(t, len(BenchRequest), len(warm), "warm block % x is not all indexed", warm)
	d, e := newDecoders(), newXNetEnc(4096)
	checkBlock(t, "cold", d, e, cold, BenchRequest)
	checkBlock(t, "warm", d, e, warm, BenchRequest)
	vd := (&hpack.Decoder{Validate: hpack.Request})
	for _, b := range [][]byte{cold, warm} {
		l, err := NetkitDecode(vd, b)
		require.NoError(t, err, "validating decoder%s", ListString(l))
		require.Empty(t, Diff(l, BenchRequest), "validating decoder%s", ListString(l))
	}
	ne := new(hpack.Encoder)
	ne.AppendFields(nil, NetkitFields(BenchRequest))
	w := ne.AppendFields(nil, NetkitFields(BenchRequest))
	assert.Equal(t, string(warm), string(w), "netkit's warm block % x, x/net's % x", w, warm)

	bomb := BombBlock()
	n := 0
	err := new(hpack.Decoder).DecodeBlock(bomb, func(name, value []byte, sensitive bool) error { n++; return nil })
	require.ErrorIs(t, err, hpack.ErrListTooLarge, "netkit decodes the bomb")
	require.True(t, hpack.IsStreamError(err), "netkit decodes the bomb with %v, want a stream error", err)
	max := 64 << 10 / (1 + BombValueLen + 32)
	assert.LessOrEqual(t, n, max, "netkit emitted %d fields of the bomb, more than fit in 64 KiB (%d)", n, max)
	xl, err := XNetDecode(xhpack.NewDecoder(4096, nil), bomb)
	assert.NoError(t, err, "x/net decodes the bomb")
	assert.Len(t, xl, 1+BombRefs, "x/net decodes the bomb to every field")
}

// TestAllocs: netkit decodes the warm block and encodes the request warm
// without allocating, and a new decoder costs at most 2 allocations.
func TestAllocs(t *testing.T) {
	cold, warm := BenchBlocks()
	d := new(hpack.Decoder)
	require.NoError(t, d.DecodeBlock(cold, netkitEmit))
	n := testing.AllocsPerRun(100, func() { d.DecodeBlock(warm, netkitEmit) })
	assert.Zero(t, n, "warm decode: allocations")
	assert.LessOrEqual(t, testing.AllocsPerRun(100, func() { new(hpack.Decoder).DecodeBlock(cold, netkitEmit) }), float64(2), "cold decode: allocations")
	fields := NetkitFields(BenchRequest)
	e := new(hpack.Encoder)
	dst := e.AppendFields(nil, fields)
	assert.Zero(t, testing.AllocsPerRun(100, func() { dst = e.AppendFields(dst[:0], fields) }), "warm encode: allocations")
}
