package mqtt

import (
	"testing"

	"github.com/netkit/netkit/buf"
	"github.com/stretchr/testify/require"
)

// TestDecoderComposite feeds a stream of every sample packet to a Decoder
// in reads of every size from 1 to 17 bytes, so packets straddle reads in
// every way, and checks each decoded packet re-encodes to its bytes.
func TestDecoderComposite(t *testing.T) {
	for _, v := range []Version{V311, V5} {
		conn := samples(v)[0]
		var stream []byte
		var want [][]byte
		for _, p := range append([]Packet{conn}, samples(v)[2:]...) {
			b := mustEncode(t, &p)
			stream = append(stream, b...)
			want = append(want, b)
		}
		for chunk := 1; chunk <= 17; chunk++ {
			var d Decoder
			var pk Packet
			in := buf.NewComposite()
			got := 0
			for off := 0; off < len(stream); off += chunk {
				b := buf.Get(chunk)
				b.Write(stream[off:min(off+chunk, len(stream))])
				in.Append(b)
				for {
					err := d.Decode(in, &pk)
					if err == ErrShort {
						break
					}
					require.NoError(t, err, "%v chunk %d packet %d", v, chunk, got)
					re := mustEncode(t, &pk)
					require.Equal(t, want[got], re, "%v chunk %d packet %d: %x, want %x", v, chunk, got, re, want[got])
					got++
				}
			}
			pk.Release()
			require.Equal(t, len(want), got, "%v chunk %d: packets", v, chunk)
			require.Equal(t, 0, in.Len(), "%v chunk %d: bytes left", v, chunk)
			require.Equal(t, v, d.Version, "%v chunk %d: version", v, chunk)
			in.Release()
		}
	}
}

// TestDecoderTooLarge checks that a fixed header announcing more than the
// limit is rejected before the packet's bytes arrive.
func TestDecoderTooLarge(t *testing.T) {
	d := Decoder{Version: V311}
	in := buf.NewComposite()
	defer in.Release()
	b := buf.Get(5)
	b.Write([]byte{0x10 | 0x20, 0xff, 0xff, 0xff, 0x7f})
	in.Append(b)
	var pk Packet
	err := d.Decode(in, &pk)
	var se *SyntaxError
	require.ErrorIs(t, err, ErrPacketTooLarge, "err = %v", err)
	require.ErrorAs(t, err, &se)
	require.Equal(t, PacketTooLarge, ReasonOf(err), "err = %v", err)
	d.MaxPacketSize = MaxPacketSize
	require.ErrorIs(t, d.Decode(in, &pk), ErrShort, "at the protocol's maximum")
}
