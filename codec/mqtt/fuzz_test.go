package mqtt

import (
	"testing"

	"github.com/netkit/netkit/buf"
	"github.com/stretchr/testify/require"
)

// active returns the field of p that Type selects, as a value to compare.
func active(p *Packet) any {
	switch p.Type {
	case TypeConnect:
		return p.Connect
	case TypeConnack:
		return p.Connack
	case TypePublish:
		return p.Publish
	case TypePuback, TypePubrec, TypePubrel, TypePubcomp:
		return p.Ack
	case TypeSubscribe:
		return p.Subscribe
	case TypeSuback, TypeUnsuback:
		return p.Suback
	case TypeUnsubscribe:
		return p.Unsubscribe
	case TypeDisconnect:
		return p.Disconnect
	case TypeAuth:
		return p.Auth
	}
	return nil
}

// FuzzDecode decodes arbitrary bytes as a connection's packet in either
// version. Decoding never panics; what decodes re-encodes, and the
// re-encoding decodes to the same packet (decode∘encode is the identity on
// decoded packets) and encodes to the same bytes; and a Decoder over a
// composite split at an arbitrary point agrees with Decode on the slice.
func FuzzDecode(f *testing.F) {
	for _, v := range []Version{V31, V311, V5} {
		for _, p := range samples(v) {
			b, err := p.Append(nil)
			require.NoError(f, err)
			f.Add(b, byte(v), uint16(len(b)/2))
		}
	}
	for _, c := range violations {
		f.Add(must(hexBytes(c.in)), byte(c.v), uint16(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, vb byte, split uint16) {
		v := Version(vb)
		var p Packet
		n, err := DecodeBytes(data, v, &p)
		if err != nil {
			require.Equal(t, 0, n, "error %v with n=%d", err, n)
			if err != ErrShort {
				require.GreaterOrEqual(t, ReasonOf(err), ReasonCode(0x80), "error %v: its reason is not an error code", err)
			}
		} else {
			require.Greater(t, n, 0, "n=%d of %d", n, len(data))
			require.LessOrEqual(t, n, len(data), "n=%d of %d", n, len(data))
			b, err := p.Append(nil)
			require.NoError(t, err, "decoded %x (%v %v) does not encode", data[:n], p.Version, p.Type)
			var q Packet
			dv := v
			if p.Type == TypeConnect {
				dv = 0
			}
			m, err := DecodeBytes(b, dv, &q)
			require.NoError(t, err, "re-encoding %x of %x does not decode", b, data[:n])
			require.Equal(t, len(b), m, "re-encoding %x of %x decodes short", b, data[:n])
			require.Equal(t, p.Type, q.Type, "%x, re-encoded as %x", data[:n], b)
			require.Equal(t, p.Version, q.Version, "%x, re-encoded as %x", data[:n], b)
			require.Equal(t, active(&p), active(&q), "%x decodes as, its re-encoding %x as", data[:n], b)
			b2, _ := q.Append(nil)
			require.Equal(t, b2, b, "encoding is not stable: %x then %x", b, b2)
		}
		// The composite path agrees with the slice path.
		d := Decoder{Version: v}
		if len(data) > 0 && Type(data[0]>>4) == TypeConnect {
			d.Version = 0 // stateless Decode takes every CONNECT as the first
		}
		in := buf.NewComposite()
		defer in.Release()
		s := min(int(split), len(data))
		for _, part := range [][]byte{data[:s], data[s:]} {
			if len(part) > 0 {
				r := buf.Get(len(part))
				r.Write(part)
				in.Append(r)
			}
		}
		var c Packet
		cerr := d.Decode(in, &c)
		defer c.Release()
		if err != nil {
			require.EqualError(t, cerr, err.Error(), "Decoder.Decode, DecodeBytes")
			return
		}
		require.NoError(t, cerr, "Decoder.Decode, where DecodeBytes decodes")
		require.Equal(t, active(&p), active(&c), "Decoder.Decode, DecodeBytes")
		require.Equal(t, len(data)-n, in.Len(), "bytes the Decoder left")
	})
}

// FuzzCheckString compares the string, topic-name and topic-filter checks
// with their slow references.
func FuzzCheckString(f *testing.F) {
	for _, s := range []string{"", "a/b", "a/+/c", "#", "a/#", "a#", "+a", "$share/g/x", "$share/+/x", "$share//x", "$share/g/",
		"\x00", "caf\xc3\xa9", "\xed\xa0\x80", "\xc0\x80", "é+", "aaaaaaaa+", "aaaaaaa\x00é", "sensors/floor3/temp01"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, s []byte) {
		require.Same(t, stringRuleSlow(s, false), checkString(s), "checkString(%q)", s)
		require.Same(t, stringRuleSlow(s, true), checkTopic(s), "checkTopic(%q)", s)
		for _, v := range []Version{V311, V5} {
			gs, got := checkFilter(s, v)
			ws, want := checkFilterSlow(s, v)
			require.Same(t, want, got, "checkFilter(%q, %v) = %v %v, want %v %v", s, v, gs, got, ws, want)
			require.False(t, got == nil && gs != ws, "checkFilter(%q, %v) = %v %v, want %v %v", s, v, gs, got, ws, want)
		}
	})
}
