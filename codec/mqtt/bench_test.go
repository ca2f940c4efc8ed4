package mqtt

import (
	"bytes"
	"strings"
	"testing"

	"github.com/netkit/netkit/buf"
	"github.com/stretchr/testify/require"
)

// benchPublish is the PUBLISH the benchmarks (and the peers') measure: a 21-byte topic, a
// 64-byte payload, QoS 1; in MQTT 5.0 with three properties (content
// type, message expiry, one user property).
func benchPublish(v Version) *Publish {
	p := &Publish{QoS: 1, PacketID: 7, Topic: []byte("sensors/floor3/temp01"), Payload: bytes.Repeat([]byte("p"), 64)}
	if v == V5 {
		p.Props.ContentType = []byte("application/json")
		p.Props.MessageExpiry = 300
		p.Props.Present.Add(PropContentType)
		p.Props.Present.Add(PropMessageExpiry)
		p.Props.User = []UserProperty{{[]byte("trace"), []byte("a1b2c3")}}
	}
	return p
}

func BenchmarkPublishDecode(b *testing.B) {
	for _, v := range []Version{V311, V5} {
		b.Run("v="+v.String(), func(b *testing.B) {
			e := Encoder{Version: v}
			in, err := e.AppendPublish(nil, benchPublish(v))
			require.NoError(b, err)
			var pk Packet
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				// A plain check in the timed loop: require calls
				// b.Helper, which costs more than the decode.
				if _, err := DecodeBytes(in, v, &pk); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkPublishEncode(b *testing.B) {
	for _, v := range []Version{V311, V5} {
		b.Run("v="+v.String(), func(b *testing.B) {
			e := Encoder{Version: v}
			p := benchPublish(v)
			dst := make([]byte, 0, 256)
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if dst, err = e.AppendPublish(dst[:0], p); err != nil {
					b.Fatal(err) // not require: see BenchmarkPublishDecode
				}
			}
			b.SetBytes(int64(len(dst)))
		})
	}
}

// BenchmarkDecoderComposite decodes PUBLISH packets from a composite of
// 16 KiB reads, as a connection's handler does.
func BenchmarkDecoderComposite(b *testing.B) {
	e := Encoder{Version: V311}
	pkt, _ := e.AppendPublish(nil, benchPublish(V311))
	read := bytes.Repeat(pkt, 16384/len(pkt))
	d := Decoder{Version: V311}
	var pk Packet
	in := buf.NewComposite()
	defer in.Release()
	b.SetBytes(int64(len(pkt)))
	b.ReportAllocs()
	for b.Loop() {
		err := d.Decode(in, &pk)
		if err == ErrShort {
			rb := buf.Get(len(read))
			rb.Write(read)
			in.Append(rb)
			err = d.Decode(in, &pk)
		}
		if err != nil {
			b.Fatal(err) // not require: see BenchmarkPublishDecode
		}
	}
	pk.Release()
}

// BenchmarkClone clones decoded packets (clonePackets): a retained 5-byte
// PUBLISH, a 5.0 PUBLISH with properties, a 5.0 SUBSCRIBE, a CONNECT.
func BenchmarkClone(b *testing.B) {
	names, ps := clonePackets(b)
	for i, p := range ps {
		b.Run(strings.ReplaceAll(names[i], " ", "_"), func(b *testing.B) {
			b.ReportAllocs()
			var sink *Packet
			for b.Loop() {
				sink = p.Clone()
			}
			_ = sink
		})
	}
}
