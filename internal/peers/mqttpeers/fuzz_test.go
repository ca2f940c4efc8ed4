package mqttpeers

import (
	"testing"

	"github.com/netkit/netkit/codec/mqtt"
	"github.com/stretchr/testify/require"
)

// FuzzPeersDecode feeds arbitrary bytes to netkit and mochi on a 3.1.1 or
// a 5.0 connection. Netkit must not panic; what it accepts must encode,
// and decode again to the same fields (decode∘encode is the identity on
// the fields of what it accepts, and its encoding is a fixed point); and
// when mochi accepts the packet too, the two must agree on its fields, but
// for what mochi cannot hold (mochiView). Mochi's panics are not failures
// here: TestForbiddenPeers records them.
func FuzzPeersDecode(f *testing.F) {
	for _, c := range cases {
		if b, err := Netkit.Encode(&c.p); err == nil {
			f.Add(b, c.p.Version == V5)
		}
		if b, err := Mochi.Encode(&c.p); err == nil {
			f.Add(b, c.p.Version == V5)
		}
	}
	for _, c := range forbidden {
		f.Add(c.in, c.v == V5)
	}
	f.Fuzz(func(t *testing.T, in []byte, v5 bool) {
		v := V311
		if v5 {
			v = V5
		}
		nv := mqtt.Version(v)
		if len(in) > 0 && in[0]>>4 == Connect {
			nv = 0
		}
		var pk mqtt.Packet
		n, err := mqtt.DecodeBytes(in, nv, &pk)
		if err != nil {
			require.Equal(t, 0, n, "% X: error %v with n = %d", in, err, n)
			return
		}
		require.Greater(t, n, 0, "% X: n = %d of %d bytes", in, n, len(in))
		require.LessOrEqual(t, n, len(in), "% X: n = %d of %d bytes", in, n, len(in))
		got := FromNetkit(&pk)

		// decode∘encode is the identity on the fields.
		e := mqtt.Encoder{Version: pk.Version}
		enc, err := e.Append(nil, &pk)
		if err != nil {
			t.Fatalf("% X decodes to %v, which netkit cannot encode: %v", in[:n], got, err)
		}
		var pk2 mqtt.Packet
		if n2, err := mqtt.DecodeBytes(enc, nv, &pk2); err != nil || n2 != len(enc) {
			t.Fatalf("% X decodes to %v, encoded as % X, which does not decode: %v", in[:n], got, enc, err)
		}
		if again := FromNetkit(&pk2); !Equal(again, got) {
			t.Fatalf("% X decodes to %v,\nencoded as % X, which decodes to %v", in[:n], got, enc, again)
		}
		if enc2, err := e.Append(nil, &pk2); err != nil || string(enc2) != string(enc) {
			t.Fatalf("encoding is not a fixed point: % X, then % X (%v)", enc, enc2, err)
		}

		// Netkit and mochi agree on what both accept.
		mg, mn, err := Mochi.Decode(in, v)
		if err != nil {
			return
		}
		require.Equal(t, n, mn, "% X: netkit reads %d bytes, mochi %d", in, n, mn)
		if want := mochiView(got, in[:n]); !Equal(mg, want) {
			t.Fatalf("% X:\nmochi  %v\nnetkit %v", in[:n], mg, want)
		}
	})
}

// mochiView returns the netkit-decoded packet p of bytes in as mochi
// decodes it where mochi is documented to differ:
//   - mochi takes a zero value (or an empty string) of most properties for
//     an absent property (toMochiProps), so it drops those;
//   - mochi reads a 5.0 DISCONNECT's reason code only when the Remaining
//     Length is over 1.
func mochiView(p *Packet, in []byte) *Packet {
	q := *p
	q.Props = mochiProps(p.Props)
	if p.Will != nil {
		w := *p.Will
		w.Props = mochiProps(w.Props)
		q.Will = &w
	}
	if p.Type == Disconnect && len(in) == 3 {
		q.Reason = 0
	}
	return &q
}

func mochiProps(props []Prop) []Prop {
	var out []Prop
	for _, p := range props {
		if mochiHolds(p) {
			out = append(out, p)
		}
	}
	return out
}
