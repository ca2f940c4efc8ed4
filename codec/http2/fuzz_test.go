package http2_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec/http2"
)

// FuzzDecode: any input, decoded from one slice with DecodeBytes and from
// a Composite cut into pieces of the input's chosen sizes with Decode,
// gives the same frames and the same error, and never panics. Each frame
// accepted re-encodes, through its type's encoder where it has one, to a
// frame that decodes to the same values.
func FuzzDecode(f *testing.F) {
	f.Add([]byte{0, 0, 4, 0, 1, 0, 0, 0, 1, 'b', 'o', 'd', 'y'}, uint8(3))
	f.Add(http2.AppendSettings(nil, http2.Setting{ID: http2.SettingInitialWindowSize, Val: 65535}), uint8(1))
	f.Add(raw(http2.FrameHeaders, http2.FlagPadded|http2.FlagPriority|http2.FlagEndHeaders, 5, []byte{1, 0x80, 0, 0, 3, 15, 0x82, 0}), uint8(7))
	f.Add(append(http2.AppendPing(nil, false, [8]byte{1}), raw(http2.FrameWindowUpdate, 0, 1, []byte{0, 0, 0, 0})...), uint8(2))
	f.Add(raw(http2.FrameGoAway, 0, 0, []byte{0, 0, 0, 1, 0, 0, 0, 2, 'x'}), uint8(5))
	f.Fuzz(func(t *testing.T, p []byte, cut uint8) {
		var d http2.Decoder
		var fr http2.Frame
		var want []string
		var wantErr error
		for rest := p; ; {
			n, err := d.DecodeBytes(rest, &fr)
			if err != nil {
				if !errors.Is(err, http2.ErrShort) {
					wantErr = err
					if n > 0 { // consumed: a stream error goes on
						if v := http2.ViolationOf(err); v == nil {
							t.Fatalf("error %v is not a Violation", err)
						}
					}
				}
				break
			}
			if n < http2.HeaderLen || n > len(rest) {
				t.Fatalf("DecodeBytes used %d of %d bytes", n, len(rest))
			}
			want = append(want, describe(&fr))
			reencode(t, &fr)
			rest = rest[n:]
		}

		in := buf.NewComposite()
		defer in.Release()
		size := int(cut)%16 + 1
		var got []string
		var gotErr error
	feed:
		for off := 0; off < len(p); off += size {
			in.Append(buf.Wrap(append([]byte(nil), p[off:min(off+size, len(p))]...)))
			for {
				err := d.Decode(in, &fr)
				if errors.Is(err, http2.ErrShort) {
					break
				}
				if err != nil {
					gotErr = err
					break feed
				}
				got = append(got, describe(&fr))
			}
		}
		if len(got) != len(want) {
			t.Fatalf("Decode gave %d frames, DecodeBytes %d", len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("frame %d differs: %q vs %q", i, got[i], want[i])
			}
		}
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Fatalf("Decode error %v, DecodeBytes error %v", gotErr, wantErr)
		}
	})
}

// reencode writes an accepted frame again with its type's encoder and
// checks that it decodes to the same values (flags the type does not
// define and padding aside).
func reencode(t *testing.T, f *http2.Frame) {
	var out []byte
	var err error
	switch f.Type {
	case http2.FrameData:
		out, err = http2.AppendData(nil, f.StreamID, f.EndStream(), f.Data)
	case http2.FrameContinuation:
		out, err = http2.AppendContinuation(nil, f.StreamID, f.EndHeaders(), f.Data)
	case http2.FrameRSTStream:
		out, err = http2.AppendRSTStream(nil, f.StreamID, f.ErrCode)
	case http2.FramePing:
		out = http2.AppendPing(nil, f.Ack(), f.PingData)
	case http2.FrameGoAway:
		out, err = http2.AppendGoAway(nil, f.LastStreamID, f.ErrCode, f.Data)
	case http2.FrameWindowUpdate:
		out, err = http2.AppendWindowUpdate(nil, f.StreamID, f.Increment)
	case http2.FrameSettings:
		if f.Ack() {
			out = http2.AppendSettingsAck(nil)
			break
		}
		s := make([]http2.Setting, f.NumSettings())
		for i := range s {
			s[i] = f.Setting(i)
		}
		out = http2.AppendSettings(nil, s...)
	default:
		return
	}
	if err != nil {
		t.Fatalf("%v: the encoder refuses what the decoder accepted: %v", f.Type, err)
	}
	var d http2.Decoder
	var g http2.Frame
	n, err := d.DecodeBytes(out, &g)
	if err != nil || n != len(out) {
		t.Fatalf("%v re-encoded: %v (%d of %d bytes)", f.Type, err, n, len(out))
	}
	if g.Type != f.Type || g.StreamID != f.StreamID || !bytes.Equal(g.Data, f.Data) ||
		g.ErrCode != f.ErrCode || g.LastStreamID != f.LastStreamID || g.Increment != f.Increment ||
		g.PingData != f.PingData || g.EndStream() != f.EndStream() || g.EndHeaders() != f.EndHeaders() || g.Ack() != f.Ack() {
		t.Fatalf("%v re-encoded differs: %+v vs %+v", f.Type, g, *f)
	}
}
