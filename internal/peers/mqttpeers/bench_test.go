package mqttpeers

import (
	"bytes"
	"testing"

	pp "github.com/eclipse/paho.golang/packets"
	p3 "github.com/eclipse/paho.mqtt.golang/packets"
	mp "github.com/mochi-mqtt/server/v2/packets"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/codec/mqtt"
)

// The packets of the benchmarks.
//
// PUBLISH: QoS 1, a 21-byte topic, a 64-byte payload; in 5.0 with three
// properties: Content Type "application/json", Message Expiry Interval
// 3600 and one User Property trace=4bf92f3577b34da6 (benchPublishProps).
//
// CONNECT: clean, keep alive 30, a 16-byte client identifier, user name and
// password; in 5.0 with Session Expiry Interval 3600 and Receive Maximum 100.
//
// SUBSCRIBE: four filters (two with wildcards) at QoS 1; in 5.0 with a
// subscription identifier and No Local on one filter.
var (
	benchPublish311 = Packet{Type: Publish, Version: V311, QoS: 1, Topic: benchTopic, PacketID: 7, Payload: benchPayload}
	benchPublish5   = Packet{Type: Publish, Version: V5, QoS: 1, Topic: benchTopic, PacketID: 7, Payload: benchPayload,
		Props: benchPublishProps}
	benchConnect311 = Packet{Type: Connect, Version: V311, ProtocolName: "MQTT", CleanStart: true, KeepAlive: 30,
		ClientID: "sensor-gw-000042", HasUsername: true, Username: "gateway", HasPassword: true, Password: "correct horse battery"}
	benchConnect5 = Packet{Type: Connect, Version: V5, ProtocolName: "MQTT", CleanStart: true, KeepAlive: 30,
		ClientID: "sensor-gw-000042", HasUsername: true, Username: "gateway", HasPassword: true, Password: "correct horse battery",
		Props: []Prop{num(PropSessionExpiry, 3600), num(PropReceiveMaximum, 100)}}
	benchSubscribe311 = Packet{Type: Subscribe, Version: V311, PacketID: 3, Subs: []Sub{
		{Filter: "sensors/+/temperature", QoS: 1}, {Filter: "sensors/+/humidity", QoS: 1},
		{Filter: "alerts/#", QoS: 1}, {Filter: "config/sensor-gw-000042", QoS: 1}}}
	benchSubscribe5 = Packet{Type: Subscribe, Version: V5, PacketID: 3, Props: []Prop{num(PropSubscriptionID, 42)}, Subs: []Sub{
		{Filter: "sensors/+/temperature", QoS: 1}, {Filter: "sensors/+/humidity", QoS: 1},
		{Filter: "alerts/#", QoS: 1, NoLocal: true}, {Filter: "config/sensor-gw-000042", QoS: 1}}}
)

// Sinks keep the benchmarks' results alive (b.Loop keeps them too).
var (
	sinkMochi  mp.Packet
	sinkPaho   *pp.ControlPacket
	sinkPahoV3 p3.ControlPacket
	sinkErr    error
)

// benchInput returns netkit's encoding of p, the bytes every decoder of a
// benchmark reads.
func benchInput(tb testing.TB, p *Packet) []byte {
	b, err := Netkit.Encode(p)
	require.NoError(tb, err)
	return b
}

// benchDecode runs a decode benchmark of in (the encoding of one packet of
// protocol level v) for each implementation that speaks v. What each
// measures is what the implementation does with the bytes in real use:
//
//   - netkit: mqtt.Decode of the []byte into a reused mqtt.Packet (version 0
//     for a CONNECT, which carries its own).
//   - mochi: FixedHeader.Decode of the first byte, DecodeLength from a
//     reused bytes.Reader, and the type's …Decode of the remaining []byte
//     into a new packets.Packet, as its server decodes each packet into a
//     new one. It does not count the two copies of the packet its server
//     makes first (Client.ReadPacket: make, then append), which would add
//     two allocations of the packet's size.
//   - paho, pahov3: packets.ReadPacket from a bytes.Reader reset to in, as
//     each reads from its connection.
func benchDecode(b *testing.B, v byte, in []byte) {
	typ := in[0] >> 4
	b.Run("impl=netkit", func(b *testing.B) {
		var pk mqtt.Packet
		nv := mqtt.Version(v)
		if typ == Connect {
			nv = 0
		}
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := mqtt.DecodeBytes(in, nv, &pk); err != nil {
				b.Fatal(err)
			}
		}
	})
	if Mochi.Speaks(v) {
		b.Run("impl=mochi", func(b *testing.B) {
			r := bytes.NewReader(nil)
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				pk := mp.Packet{ProtocolVersion: v}
				if err := pk.FixedHeader.Decode(in[0]); err != nil {
					b.Fatal(err)
				}
				r.Reset(in[1:])
				rem, n, err := mp.DecodeLength(r)
				if err != nil {
					b.Fatal(err)
				}
				pk.FixedHeader.Remaining = rem
				if err := mochiDecodeBody(&pk, in[1+n:]); err != nil {
					b.Fatal(err)
				}
				sinkMochi = pk
			}
		})
	}
	if Paho.Speaks(v) {
		b.Run("impl=paho", func(b *testing.B) {
			r := bytes.NewReader(nil)
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				r.Reset(in)
				cp, err := pp.ReadPacket(r)
				if err != nil {
					b.Fatal(err)
				}
				sinkPaho = cp
			}
		})
	}
	if PahoV3.Speaks(v) {
		b.Run("impl=pahov3", func(b *testing.B) {
			r := bytes.NewReader(nil)
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				r.Reset(in)
				cp, err := p3.ReadPacket(r)
				if err != nil {
					b.Fatal(err)
				}
				sinkPahoV3 = cp
			}
		})
	}
}

func BenchmarkPublishDecode(b *testing.B) {
	b.Run("v=311", func(b *testing.B) { benchDecode(b, V311, benchInput(b, &benchPublish311)) })
	b.Run("v=5", func(b *testing.B) { benchDecode(b, V5, benchInput(b, &benchPublish5)) })
}

func BenchmarkConnectDecode(b *testing.B) {
	b.Run("v=311", func(b *testing.B) { benchDecode(b, V311, benchInput(b, &benchConnect311)) })
	b.Run("v=5", func(b *testing.B) { benchDecode(b, V5, benchInput(b, &benchConnect5)) })
}

func BenchmarkSubscribeDecode(b *testing.B) {
	b.Run("v=311", func(b *testing.B) { benchDecode(b, V311, benchInput(b, &benchSubscribe311)) })
	b.Run("v=5", func(b *testing.B) { benchDecode(b, V5, benchInput(b, &benchSubscribe5)) })
}

// BenchmarkPublishEncode encodes the benchmark PUBLISH into a reused
// buffer: netkit appends to dst[:0]; mochi (PublishEncode), paho (WriteTo)
// and pahov3 (Write) write into a bytes.Buffer reset each time. Each
// encodes from its own packet value, built once.
func BenchmarkPublishEncode(b *testing.B) {
	for _, p := range []*Packet{&benchPublish311, &benchPublish5} {
		name := "v=311"
		if p.Version == V5 {
			name = "v=5"
		}
		size := int64(len(benchInput(b, p)))
		b.Run(name, func(b *testing.B) {
			b.Run("impl=netkit", func(b *testing.B) {
				e := mqtt.Encoder{Version: mqtt.Version(p.Version)}
				pub := ToNetkit(p).Publish
				dst := make([]byte, 0, 256)
				b.SetBytes(size)
				b.ReportAllocs()
				for b.Loop() {
					var err error
					if dst, err = e.AppendPublish(dst[:0], pub); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("impl=mochi", func(b *testing.B) {
				pk := mp.Packet{ProtocolVersion: p.Version, TopicName: p.Topic, PacketID: p.PacketID, Payload: []byte(p.Payload),
					FixedHeader: mp.FixedHeader{Type: Publish, Qos: p.QoS}}
				if err := toMochiProps(&pk.Properties, Publish, p.Props); err != nil {
					b.Fatal(err)
				}
				var w bytes.Buffer
				b.SetBytes(size)
				b.ReportAllocs()
				for b.Loop() {
					w.Reset()
					if err := pk.PublishEncode(&w); err != nil {
						b.Fatal(err)
					}
				}
			})
			if p.Version == V5 {
				b.Run("impl=paho", func(b *testing.B) {
					props, err := toPahoProps(Publish, p.Props)
					if err != nil {
						b.Fatal(err)
					}
					pub := &pp.Publish{QoS: p.QoS, Topic: p.Topic, PacketID: p.PacketID, Properties: props, Payload: []byte(p.Payload)}
					var w bytes.Buffer
					b.SetBytes(size)
					b.ReportAllocs()
					for b.Loop() {
						w.Reset()
						if _, err := pub.WriteTo(&w); err != nil {
							b.Fatal(err)
						}
					}
				})
			} else {
				b.Run("impl=pahov3", func(b *testing.B) {
					pub := p3.NewControlPacket(Publish).(*p3.PublishPacket)
					pub.Qos, pub.TopicName, pub.MessageID, pub.Payload = p.QoS, p.Topic, p.PacketID, []byte(p.Payload)
					var w bytes.Buffer
					b.SetBytes(size)
					b.ReportAllocs()
					for b.Loop() {
						w.Reset()
						if err := pub.Write(&w); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

// attackHeader is a CONNECT fixed header announcing a Remaining Length of
// 268,435,455 bytes (256 MiB − 1).
var attackHeader = []byte{0x10, 0xFF, 0xFF, 0xFF, 0x7F}

// BenchmarkRemainingLength measures what reading attackHeader, followed by
// endless zero bytes, costs each implementation with its default
// configuration; B/op is the number to read.
//
//   - netkit: mqtt.Decode of the 5 bytes (default maximum packet size,
//     1 MiB): rejected with ErrPacketTooLarge.
//   - netkit-decoder: a server's Decoder over a buf.Composite fed 4 KiB
//     reads of the stream, as a connection's handler does: rejected after
//     the first read.
//   - mochi: a client of a default mochi server (no maximum packet size)
//     reads the stream with ReadFixedHeader and ReadPacket; each op counts
//     the client's creation too (about 70 KiB, mostly its outbound queue).
//   - paho, pahov3: packets.ReadPacket of the stream.
//
// The peers read and decode a 256 MiB CONNECT of zeros, which they accept.
func BenchmarkRemainingLength(b *testing.B) {
	b.Run("impl=netkit", func(b *testing.B) {
		var pk mqtt.Packet
		b.ReportAllocs()
		for b.Loop() {
			_, sinkErr = mqtt.DecodeBytes(attackHeader, 0, &pk)
		}
		require.Error(b, sinkErr, "netkit accepted the header")
	})
	b.Run("impl=netkit-decoder", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, sinkErr = Netkit.ReadFrom(Endless(attackHeader), V311)
		}
		require.Error(b, sinkErr, "netkit accepted the header")
	})
	b.Run("impl=mochi", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkMochi, sinkErr = MochiRead(NewMochiClient(Endless(attackHeader), V311))
		}
	})
	b.Run("impl=paho", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkPaho, sinkErr = pp.ReadPacket(Endless(attackHeader))
		}
	})
	b.Run("impl=pahov3", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkPahoV3, sinkErr = p3.ReadPacket(Endless(attackHeader))
		}
	})
}

// TestBenchInputs checks that every implementation of a benchmark decodes
// its input to the benchmark's packet, so that the benchmarks measure
// decoding what they claim; and that each encoder writes the same packet
// (paho writes the CONNECT's properties in another order).
func TestBenchInputs(t *testing.T) {
	for _, p := range []*Packet{&benchPublish311, &benchPublish5, &benchConnect311, &benchConnect5, &benchSubscribe311, &benchSubscribe5} {
		in := benchInput(t, p)
		for _, impl := range []*Impl{Netkit, Mochi, Paho, PahoV3} {
			if !impl.Speaks(p.Version) {
				continue
			}
			got, n, err := impl.Decode(in, p.Version)
			if err != nil || n != len(in) || !Equal(got, p) {
				t.Errorf("%s: % X: %v (%d of %d bytes)\n got %v\nwant %v", impl.Name, in, err, n, len(in), got, p)
			}
			b, err := impl.Encode(p)
			if err != nil {
				t.Errorf("%s cannot encode %v: %v", impl.Name, p, err)
				continue
			}
			if got, n, err := Netkit.Decode(b, p.Version); err != nil || n != len(b) || !Equal(got, p) {
				t.Errorf("%s encodes %v\nas % X, which netkit decodes to %v (%v)", impl.Name, p, b, got, err)
			}
		}
	}
	assert.Len(t, benchTopic, 21, "benchmark topic and payload are %d and %d bytes, want 21 and 64", len(benchTopic), len(benchPayload))
	assert.Len(t, benchPayload, 64, "benchmark topic and payload are %d and %d bytes, want 21 and 64", len(benchTopic), len(benchPayload))
}

// TestNetkitBenchNoAllocs checks that netkit decodes and encodes the
// benchmarks' packets with no allocation, which allocs/op (an integer
// division) cannot show.
func TestNetkitBenchNoAllocs(t *testing.T) {
	for _, p := range []*Packet{&benchPublish311, &benchPublish5, &benchConnect311, &benchConnect5, &benchSubscribe311, &benchSubscribe5} {
		in := benchInput(t, p)
		v := mqtt.Version(p.Version)
		if p.Type == Connect {
			v = 0
		}
		var pk mqtt.Packet
		assert.Zero(t, testing.AllocsPerRun(100, func() { mqtt.DecodeBytes(in, v, &pk) }), "decoding %s v%d: allocs", TypeName(p.Type), p.Version)
		e := mqtt.Encoder{Version: mqtt.Version(p.Version)}
		np := ToNetkit(p)
		dst := make([]byte, 0, 256)
		assert.Zero(t, testing.AllocsPerRun(100, func() { dst, _ = e.Append(dst[:0], np) }), "encoding %s v%d: allocs", TypeName(p.Type), p.Version)
	}
	var pk mqtt.Packet
	n := testing.AllocsPerRun(100, func() { mqtt.DecodeBytes(attackHeader, 0, &pk) })
	assert.LessOrEqual(t, n, float64(1), "rejecting the 256 MiB header: %v allocs, want at most 1", n)
}
