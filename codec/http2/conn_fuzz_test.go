package http2_test

import (
	"errors"
	"testing"

	"github.com/netkit/netkit/codec/http2"
)

// FuzzConn: any bytes, decoded as frames and fed to a server Conn the
// way a server does (Block.Next, Recv, Refuse for what the decoder and
// Block refuse), with the server answering every stream it is given
// and taking every body byte. The Conn never panics; everything it asks
// to send decodes as frames the peer accepts, one
// GOAWAY at most and nothing after it; the peer never holds more
// streams open than advertised, no window passes 2^31-1, and once
// failed the Conn stays failed.
//
// No differential here: x/net's server keeps its state inside its
// serving goroutine, with no sans-I/O surface to compare with; the
// frames themselves are compared with x/net's Framer in
// internal/peers/http2peers.
func FuzzConn(f *testing.F) {
	seed := func(frames ...[]byte) []byte {
		var p []byte
		for _, fr := range frames {
			p = append(p, fr...)
		}
		return p
	}
	f.Add(seed(http2.AppendSettings(nil), headers(1, false), data(1, true, 10), wu(0, 100), wu(1, 5)), uint8(0))
	f.Add(seed(headers(1, false), rst(1, http2.CodeCancel), data(1, false, 1), headers(3, true), headers(5, true), headers(7, true)), uint8(1))
	f.Add(seed(http2.AppendSettings(nil, http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1}), headers(1, true),
		http2.AppendSettings(nil, http2.Setting{ID: http2.SettingMaxFrameSize, Val: 20000}), wu(1, 1<<20), http2.AppendPing(nil, false, [8]byte{})), uint8(2))
	f.Add(seed(must(http2.AppendHeaders(nil, 1, false, false, []byte{0x82})), must(http2.AppendContinuation(nil, 1, true, []byte{0x84})), data(1, false, 70000)), uint8(3))
	f.Add(seed(headers(3, true), headers(1, true), must(http2.AppendGoAway(nil, 0, http2.CodeNo, nil))), uint8(4))
	f.Fuzz(func(t *testing.T, p []byte, mode uint8) {
		cfg := http2.Config{MaxStreams: uint32(mode&3) + 1, StreamWindow: uint32(mode>>2&3) * 30000, MaxClosed: int(mode>>4) + 1}
		c := http2.NewConn(cfg)
		d := http2.Decoder{MaxFrameSize: c.Local().MaxFrameSize}
		var b http2.Block
		var fr http2.Frame
		var out []byte
		failed := false
		for len(p) > 0 {
			n, err := d.DecodeBytes(p, &fr)
			if errors.Is(err, http2.ErrShort) {
				break
			}
			p = p[n:]
			if n == 0 {
				// Refused from its header (too long): a connection
				// error, and nothing more can be read.
				c.Refuse(fr.StreamID, err)
				if c.Err() == nil {
					t.Fatalf("%v consumed nothing and left the Conn running", err)
				}
				failed = true
				out = c.Pending(out)
				break
			}
			if err == nil {
				_, _, err = b.Next(&fr)
			}
			var ev http2.Event
			if err != nil {
				c.Refuse(fr.StreamID, err)
			} else {
				ev, err = c.Recv(&fr)
			}
			if failed && err == nil {
				t.Fatalf("a failed Conn took %v", fr.Type)
			}
			if c.Err() != nil {
				failed = true
			}
			out = c.Pending(out)
			switch ev {
			case http2.EventStream:
				out, _ = c.AppendHeaders(out, fr.StreamID, []byte{0x88}, false)
				out, _, _ = c.AppendData(out, fr.StreamID, make([]byte, 20000), true)
			case http2.EventData:
				c.Consumed(fr.StreamID, len(fr.Data))
			case http2.EventWindow:
				if fr.StreamID != 0 {
					out, _, _ = c.AppendData(out, fr.StreamID, make([]byte, 1000), false)
				}
			}
			if peer, _ := c.Streams(); peer > int(c.Local().MaxConcurrentStreams) {
				t.Fatalf("%d streams open, %d advertised", peer, c.Local().MaxConcurrentStreams)
			}
			for _, id := range []uint32{0, fr.StreamID} {
				send, recv, _ := c.Windows(id)
				if send > http2.MaxWindow || recv > http2.MaxWindow || recv < 0 {
					t.Fatalf("stream %d: windows %d, %d", id, send, recv)
				}
			}
			if failed {
				if _, err := c.Recv(&fr); err == nil {
					t.Fatal("a failed Conn took a frame")
				}
			}
		}
		// What the Conn sent: frames the peer decodes, and
		// nothing after a GOAWAY that carries an error.
		pd := http2.Decoder{MaxFrameSize: http2.MaxFrameSizeLimit}
		var g http2.Frame
		goAways := 0
		for len(out) > 0 {
			n, err := pd.DecodeBytes(out, &g)
			if err != nil {
				t.Fatalf("sent a frame the peer refuses: %v", err)
			}
			out = out[n:]
			if goAways > 0 && failed {
				t.Fatalf("%v sent after GOAWAY", g.Type)
			}
			if g.Type == http2.FrameGoAway {
				goAways++
			}
		}
	})
}
