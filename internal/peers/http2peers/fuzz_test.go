package http2peers

import (
	"testing"

	nk "github.com/netkit/netkit/codec/http2"
)

func seedFrames() [][]byte {
	var s [][]byte
	d, _ := nk.AppendData(nil, 1, true, []byte("body"))
	s = append(s, d)
	h, _ := nk.AppendHeaders(nil, 1, false, false, []byte{0x82})
	c, _ := nk.AppendContinuation(h, 1, true, []byte{0x84})
	s = append(s, c)
	s = append(s, nk.AppendSettings(nil, nk.Setting{ID: nk.SettingMaxConcurrentStreams, Val: 100}))
	s = append(s, nk.AppendPing(nk.AppendSettingsAck(nil), false, [8]byte{7}))
	g, _ := nk.AppendGoAway(nil, 3, nk.CodeProtocol, []byte("bye"))
	s = append(s, g)
	w, _ := nk.AppendWindowUpdate(nil, 0, 1)
	s = append(s, w)
	return s
}

// FuzzFramer: netkit's Decoder with a Block and x/net's Framer read the
// same bytes to the same frames and errors, but for the documented
// differences.
func FuzzFramer(f *testing.F) {
	for _, s := range seedFrames() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		x, n := XNet(p), Netkit(p)
		if why := differs(p, x, n); why != "" {
			t.Fatalf("%s\n x/net:  %+v\n netkit: %+v", why, x, n)
		}
	})
}
