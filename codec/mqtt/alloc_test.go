package mqtt

import (
	"fmt"
	"testing"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDecodeAllocs checks that decoding allocates nothing in steady state:
// PUBLISH (with properties, user properties and subscription identifiers in
// 5.0), the acknowledgements, SUBSCRIBE with 16 filters, CONNECT with a
// will, from a []byte and from a composite; and that encoding into a
// large-enough dst allocates nothing.
func TestDecodeAllocs(t *testing.T) {
	testenv.SkipAllocs(t)
	for _, v := range []Version{V311, V5} {
		var ps []Packet
		for _, p := range samples(v) {
			switch p.Type {
			case TypePublish, TypePuback, TypePubrec, TypePubrel, TypePubcomp, TypeConnect, TypeSubscribe, TypeUnsubscribe, TypeSuback:
				ps = append(ps, p)
			}
		}
		sub := newPacket(TypeSubscribe, v)
		sub.Subscribe.PacketID = 9
		for i := range 16 {
			sub.Subscribe.Subscriptions = append(sub.Subscribe.Subscriptions, Subscription{Filter: fmt.Appendf(nil, "site/%d/+/temp", i), QoS: byte(i % 3)})
		}
		ps = append(ps, sub)
		for _, p := range ps {
			b := mustEncode(t, &p)
			dv := v
			if p.Type == TypeConnect {
				dv = 0
			}
			var pk Packet
			n := testing.AllocsPerRun(100, func() {
				_, err := DecodeBytes(b, dv, &pk)
				require.NoError(t, err)
			})
			assert.Zero(t, n, "%v %v: DecodeBytes allocations", v, p.Type)
			e := Encoder{Version: v}
			dst := make([]byte, 0, len(b))
			n = testing.AllocsPerRun(100, func() {
				_, err := e.Append(dst[:0], &pk)
				require.NoError(t, err)
			})
			assert.Zero(t, n, "%v %v: Append allocations", v, p.Type)
			// From a composite: the packet alone in a read, and split
			// across two reads (a pooled copy).
			for _, split := range []int{0, len(b) / 2} {
				in := buf.NewComposite()
				n = testing.AllocsPerRun(100, func() {
					d := Decoder{Version: dv}
					for _, part := range [][]byte{b[:split], b[split:]} {
						if len(part) > 0 {
							r := buf.Get(len(part))
							r.Write(part)
							in.Append(r)
						}
					}
					require.NoError(t, d.Decode(in, &pk))
					pk.Release()
				})
				assert.Zero(t, n, "%v %v split %d: Decoder.Decode allocations", v, p.Type, split)
				in.Release()
			}
		}
	}
}
