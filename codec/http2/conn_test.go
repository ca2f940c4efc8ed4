package http2_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/codec/http2"
	"github.com/netkit/netkit/internal/testenv"
)

// summary names each frame of p in a line: type, stream and what matters.
func summary(t testing.TB, p []byte) []string {
	t.Helper()
	d := http2.Decoder{MaxFrameSize: http2.MaxFrameSizeLimit}
	var f http2.Frame
	var out []string
	for len(p) > 0 {
		n, err := d.DecodeBytes(p, &f)
		require.NoError(t, err)
		p = p[n:]
		s := fmt.Sprintf("%v %d", f.Type, f.StreamID)
		switch f.Type {
		case http2.FrameSettings:
			if f.Ack() {
				s += " ACK"
			}
			for i := range f.NumSettings() {
				st := f.Setting(i)
				s += fmt.Sprintf(" %d=%d", st.ID, st.Val)
			}
		case http2.FrameWindowUpdate:
			s += fmt.Sprintf(" +%d", f.Increment)
		case http2.FrameRSTStream:
			s += " " + f.ErrCode.String()
		case http2.FrameGoAway:
			s += fmt.Sprintf(" last=%d %v", f.LastStreamID, f.ErrCode)
		case http2.FramePing:
			if f.Ack() {
				s += " ACK"
			}
		case http2.FrameData, http2.FrameHeaders, http2.FrameContinuation:
			s += fmt.Sprintf(" len=%d", len(f.Data))
			if f.EndStream() {
				s += " END_STREAM"
			}
			if f.EndHeaders() {
				s += " END_HEADERS"
			}
		}
		out = append(out, s)
	}
	return out
}

// peer drives a Conn with frames the test writes raw.
type peer struct {
	t *testing.T
	c *http2.Conn
	d http2.Decoder
}

func newPeer(t *testing.T, cfg http2.Config) *peer {
	p := &peer{t: t, c: http2.NewConn(cfg)}
	p.c.Pending(nil) // the preface
	return p
}

// send decodes one frame and hands it to Recv.
func (p *peer) send(frame []byte) (http2.Event, error) {
	p.t.Helper()
	var f http2.Frame
	n, err := p.d.DecodeBytes(frame, &f)
	require.NoError(p.t, err)
	require.Equal(p.t, len(frame), n)
	return p.c.Recv(&f)
}

// ok sends frame, which must give ev without error.
func (p *peer) ok(frame []byte, ev http2.Event) {
	p.t.Helper()
	got, err := p.send(frame)
	require.NoError(p.t, err)
	require.Equal(p.t, ev, got)
}

// out is what the Conn owes, summarised.
func (p *peer) out() []string { return summary(p.t, p.c.Pending(nil)) }

func headers(stream uint32, end bool) []byte {
	return must(http2.AppendHeaders(nil, stream, end, true, []byte{0x82}))
}

func data(stream uint32, end bool, n int) []byte {
	return must(http2.AppendData(nil, stream, end, make([]byte, n)))
}

func wu(stream, inc uint32) []byte { return must(http2.AppendWindowUpdate(nil, stream, inc)) }

func rst(stream uint32, code http2.ErrCode) []byte {
	return must(http2.AppendRSTStream(nil, stream, code))
}

// TestConnPreface: a server's first frames are its SETTINGS and the
// connection window's opening; a client's announce no push.
func TestConnPreface(t *testing.T) {
	c := http2.NewConn(http2.Config{})
	assert.Equal(t, []string{
		"SETTINGS 0 3=100 4=262144 5=16384 6=65536",
		"WINDOW_UPDATE 0 +983041",
	}, summary(t, c.Pending(nil)))
	assert.Zero(t, c.PendingLen())

	c = http2.NewConn(http2.Config{Client: true, MaxStreams: 7, StreamWindow: 1000, ConnWindow: 1000, MaxFrameSize: 1 << 20})
	assert.Equal(t, []string{"SETTINGS 0 2=0 3=7 4=1000 5=1048576 6=65536"}, summary(t, c.Pending(nil)))
	assert.Equal(t, uint32(1<<20), c.Local().MaxFrameSize)
	assert.Equal(t, http2.DefaultSettings(), c.Peer())
}

// TestConnSettings: the peer's SETTINGS are applied and acknowledged;
// ours are acknowledged by an ACK; an INITIAL_WINDOW_SIZE change moves
// every stream's send window, and one that overflows one is a connection
// error.
func TestConnSettings(t *testing.T) {
	p := newPeer(t, http2.Config{})
	p.ok(http2.AppendSettings(nil, http2.Setting{ID: http2.SettingMaxFrameSize, Val: 1 << 15},
		http2.Setting{ID: http2.SettingHeaderTableSize, Val: 100}, http2.Setting{ID: 0x99, Val: 1}), http2.EventSettings)
	assert.Equal(t, []string{"SETTINGS 0 ACK"}, p.out())
	assert.Equal(t, uint32(1<<15), p.c.Peer().MaxFrameSize)
	assert.Equal(t, uint32(100), p.c.Peer().HeaderTableSize)
	p.ok(http2.AppendSettingsAck(nil), http2.EventSettingsAck)

	p.ok(headers(1, false), http2.EventStream)
	assert.Equal(t, 65535, p.c.SendWindow(1))
	p.ok(http2.AppendSettings(nil, http2.Setting{ID: http2.SettingInitialWindowSize, Val: 10}), http2.EventSettings)
	assert.Equal(t, 10, p.c.SendWindow(1))
	// The connection's window is not moved by SETTINGS (§6.9.2).
	p.ok(wu(0, 100), http2.EventWindow)
	p.ok(wu(1, 100), http2.EventWindow)
	assert.Equal(t, 110, p.c.SendWindow(1))
	p.out()

	p.ok(wu(1, http2.MaxWindow-110), http2.EventWindow)
	_, err := p.send(http2.AppendSettings(nil, http2.Setting{ID: http2.SettingInitialWindowSize, Val: 11}))
	require.ErrorIs(t, err, http2.ErrSettingsOverflow)
	assert.Equal(t, []string{"GOAWAY 0 last=1 FLOW_CONTROL_ERROR"}, p.out())
	_, err = p.send(headers(3, true))
	require.ErrorIs(t, err, http2.ErrSettingsOverflow, "a failed Conn stays failed")
}

// TestConnPing: a PING is answered with its data; the answer to ours is
// an event.
func TestConnPing(t *testing.T) {
	p := newPeer(t, http2.Config{})
	p.ok(http2.AppendPing(nil, false, [8]byte{1, 2, 3}), http2.EventNone)
	out := p.c.Pending(nil)
	f := decodeOne(t, out)
	assert.True(t, f.Ack())
	assert.Equal(t, [8]byte{1, 2, 3}, f.PingData)
	p.c.Ping([8]byte{9})
	assert.Equal(t, []string{"PING 0"}, p.out())
	p.ok(http2.AppendPing(nil, true, [8]byte{9}), http2.EventPingAck)
}

// TestConnStreamIDs: RFC 9113 §5.1.1 on a server: odd IDs, rising; a
// skipped ID is closed; HEADERS on a smaller ID is a connection error.
func TestConnStreamIDs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		frames [][]byte
		err    *http2.Violation
	}{
		{"even", [][]byte{headers(2, true)}, http2.ErrStreamIDParity},
		{"smaller", [][]byte{headers(5, true), headers(3, true)}, http2.ErrStreamIDOrder},
		{"data on idle", [][]byte{data(1, false, 1)}, http2.ErrIdleFrame},
		{"window on idle", [][]byte{wu(3, 1)}, http2.ErrIdleFrame},
		{"reset idle", [][]byte{rst(1, http2.CodeCancel)}, http2.ErrIdleFrame},
		{"push to a server", [][]byte{must(http2.AppendHeaders(nil, 1, false, true, nil)),
			{0, 0, 4, byte(http2.FramePushPromise), byte(http2.FlagEndHeaders), 0, 0, 0, 1, 0, 0, 0, 2}}, http2.ErrPushRefused},
		{"after END_STREAM", [][]byte{headers(1, true), data(1, false, 1)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPeer(t, http2.Config{})
			var err error
			for _, fr := range tc.frames {
				_, err = p.send(fr)
			}
			if tc.err == nil {
				v := http2.ViolationOf(err)
				require.NotNil(t, v)
				assert.True(t, v.Stream)
				return
			}
			require.ErrorIs(t, err, tc.err)
			out := p.out()
			require.NotEmpty(t, out)
			assert.Contains(t, out[len(out)-1], "GOAWAY 0")
			assert.Contains(t, out[len(out)-1], tc.err.Code.String())
		})
	}
}

// TestConnLateFrames: frames on closed streams, by how they closed.
func TestConnLateFrames(t *testing.T) {
	p := newPeer(t, http2.Config{})
	// Stream 1: the peer resets it; DATA after that is a stream error.
	p.ok(headers(1, false), http2.EventStream)
	p.ok(rst(1, http2.CodeCancel), http2.EventReset)
	assert.Empty(t, p.out())
	_, err := p.send(data(1, false, 3))
	require.ErrorIs(t, err, http2.ErrAfterReset)
	assert.Equal(t, []string{"RST_STREAM 1 STREAM_CLOSED"}, p.out())
	_, err = p.send(wu(1, 5))
	require.ErrorIs(t, err, http2.ErrAfterReset)
	p.ok(raw(http2.FramePriority, 0, 1, make([]byte, 5)), http2.EventNone)
	assert.Equal(t, []string{"RST_STREAM 1 STREAM_CLOSED"}, p.out())

	// Stream 3: we reset it; what the peer sent before it saw that is
	// dropped, and its DATA still gives the connection window back.
	p.ok(headers(3, false), http2.EventStream)
	p.c.Reset(3, http2.CodeCancel)
	assert.Equal(t, []string{"RST_STREAM 3 CANCEL"}, p.out())
	for range 64 {
		p.ok(data(3, false, 16384), http2.EventNone)
	}
	p.ok(headers(3, true), http2.EventNone)
	// (+3: stream 1's refused DATA counted too.)
	assert.Equal(t, []string{"WINDOW_UPDATE 0 +524291", "WINDOW_UPDATE 0 +524288"}, p.out())

	// Stream 5: both ends ended it; DATA after END_STREAM is a
	// connection error.
	p.ok(headers(5, true), http2.EventStream)
	b, err := p.c.AppendHeaders(nil, 5, []byte{0x88}, true)
	require.NoError(t, err)
	assert.Equal(t, []string{"HEADERS 5 len=1 END_STREAM END_HEADERS"}, summary(t, b))
	assert.Equal(t, http2.StateClosedByEndStream, p.c.State(5))
	p.ok(wu(5, 1), http2.EventNone)
	p.ok(rst(5, http2.CodeCancel), http2.EventNone)
	_, err = p.send(data(5, false, 1))
	require.ErrorIs(t, err, http2.ErrAfterEndStream)
}

// TestConnForgets: past MaxClosed closed streams, a late frame is judged
// as on a stream the peer reset, but HEADERS as on a smaller ID.
func TestConnForgets(t *testing.T) {
	p := newPeer(t, http2.Config{MaxClosed: 2})
	for id := uint32(1); id <= 7; id += 2 {
		p.ok(headers(id, true), http2.EventStream)
		_, err := p.c.AppendHeaders(nil, id, []byte{0x88}, true)
		require.NoError(t, err)
	}
	assert.Equal(t, http2.StateClosedByEndStream, p.c.State(7))
	assert.Equal(t, http2.StateClosedByLocalReset, p.c.State(1), "forgotten")
	p.ok(wu(1, 1), http2.EventNone)
	p.ok(rst(1, http2.CodeCancel), http2.EventNone)
	_, err := p.send(data(1, false, 0))
	require.ErrorIs(t, err, http2.ErrAfterReset)
	assert.Equal(t, []string{"RST_STREAM 1 STREAM_CLOSED"}, p.out())
	// A stream error found on a late frame still resets the stream.
	p.c.Reset(1, http2.CodeFrameSize)
	assert.Equal(t, []string{"RST_STREAM 1 FRAME_SIZE_ERROR"}, p.out())
	assert.Equal(t, http2.StateClosedByLocalReset, p.c.State(1))
	_, err = p.send(headers(1, true))
	require.ErrorIs(t, err, http2.ErrStreamIDOrder)
}

// TestConnRecvWindows: DATA is counted against both windows, padding
// included; the application's Consumed gives them back by WINDOW_UPDATE
// once half a window is taken; past a window is an error of its level.
func TestConnRecvWindows(t *testing.T) {
	p := newPeer(t, http2.Config{StreamWindow: 1000, ConnWindow: 70000})
	p.ok(headers(1, false), http2.EventStream)
	// Before the peer has acknowledged our SETTINGS the stream may take
	// the default 65535.
	p.ok(data(1, false, 2000), http2.EventData)
	p.c.Consumed(1, 2000)
	assert.Equal(t, []string{"WINDOW_UPDATE 1 +2000"}, p.out())
	p.ok(http2.AppendSettingsAck(nil), http2.EventSettingsAck)

	p.ok(headers(3, false), http2.EventStream)
	p.ok(data(3, false, 499), http2.EventData)
	p.c.Consumed(3, 499)
	assert.Empty(t, p.out())
	// 1 byte of data and 10 of padding (pad length byte included): the
	// padding is consumed at once.
	padded := raw(http2.FrameData, http2.FlagPadded, 3, append([]byte{9, 'x'}, make([]byte, 9)...))
	p.ok(padded, http2.EventData)
	assert.Equal(t, []string{"WINDOW_UPDATE 3 +509"}, p.out())
	// 1000 - 499 - 11 + 509 left.
	p.ok(data(3, false, 999), http2.EventData)
	_, err := p.send(data(3, false, 1))
	require.ErrorIs(t, err, http2.ErrStreamWindow)
	assert.Equal(t, []string{"RST_STREAM 3 FLOW_CONTROL_ERROR"}, p.out())
	p.c.Consumed(3, 999) // after the reset: the connection's only

	// The connection's 70000: 2000+499+11+999+1 taken, all but the 1
	// byte of 'x' given back, so 69999 left: 70 streams of 999.
	for id := uint32(5); id < 200; id += 2 {
		p.ok(headers(id, false), http2.EventStream)
		ev, err := p.send(data(id, false, 999))
		if err != nil {
			require.ErrorIs(t, err, http2.ErrConnWindow)
			assert.Equal(t, []string{"GOAWAY 0 last=" + fmt.Sprint(id) + " FLOW_CONTROL_ERROR"}, p.out())
			return
		}
		require.Equal(t, http2.EventData, ev)
	}
	t.Fatal("the connection's window never ran out")
}

// TestConnSendWindows: AppendData sends what the windows and the frame
// size allow; WINDOW_UPDATE opens them; END_STREAM only with the last
// byte.
func TestConnSendWindows(t *testing.T) {
	p := newPeer(t, http2.Config{})
	p.ok(http2.AppendSettings(nil, http2.Setting{ID: http2.SettingInitialWindowSize, Val: 40000}), http2.EventSettings)
	p.out()
	p.ok(headers(1, true), http2.EventStream)
	p.ok(headers(3, true), http2.EventStream)
	body := make([]byte, 100000)
	b, n, err := p.c.AppendData(nil, 1, body, true)
	require.NoError(t, err)
	assert.Equal(t, 40000, n)
	assert.Equal(t, []string{"DATA 1 len=16384", "DATA 1 len=16384", "DATA 1 len=7232"}, summary(t, b))
	b, n, err = p.c.AppendData(nil, 3, body, true)
	require.NoError(t, err)
	assert.Equal(t, 25535, n, "the connection's window: 65535")
	assert.Len(t, summary(t, b), 2)
	assert.Equal(t, 0, p.c.SendWindow(3))
	b, n, err = p.c.AppendData(nil, 3, body[n:], true)
	require.NoError(t, err)
	assert.Zero(t, n)
	assert.Empty(t, b)

	p.ok(wu(0, 1<<20), http2.EventWindow)
	assert.Equal(t, 40000-25535, p.c.SendWindow(3))
	p.ok(wu(1, 59999), http2.EventWindow)
	b, n, err = p.c.AppendData(nil, 1, body[40000:], true)
	require.NoError(t, err)
	assert.Equal(t, 59999, n)
	assert.NotContains(t, strings.Join(summary(t, b), ","), "END_STREAM")
	assert.Equal(t, http2.StateHalfClosedRemote, p.c.State(1))
	_, err = p.send(wu(1, 1))
	require.NoError(t, err)
	b, n, err = p.c.AppendData(nil, 1, body[:1], true)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.Equal(t, []string{"DATA 1 len=1 END_STREAM"}, summary(t, b))
	assert.Equal(t, http2.StateClosedByEndStream, p.c.State(1))
	_, _, err = p.c.AppendData(nil, 1, nil, true)
	require.ErrorIs(t, err, http2.ErrSendState)

	// An empty DATA with END_STREAM needs no window.
	p.ok(headers(5, true), http2.EventStream)
	p.ok(http2.AppendSettings(nil, http2.Setting{ID: http2.SettingInitialWindowSize, Val: 0}), http2.EventSettings)
	b, n, err = p.c.AppendData(nil, 5, nil, true)
	require.NoError(t, err)
	assert.Zero(t, n)
	assert.Equal(t, []string{"DATA 5 len=0 END_STREAM"}, summary(t, b))

	// Windows that overflow: the stream's is a stream error, the
	// connection's a connection error.
	p.ok(headers(7, true), http2.EventStream)
	_, err = p.send(wu(7, http2.MaxWindow))
	require.NoError(t, err)
	_, err = p.send(wu(7, 1))
	require.ErrorIs(t, err, http2.ErrStreamWindowGrowth)
	_, err = p.send(wu(0, http2.MaxWindow))
	require.ErrorIs(t, err, http2.ErrConnWindowGrowth)
}

// TestConnHeadersSplit: a block longer than the peer's frame size goes
// in HEADERS and CONTINUATION frames.
func TestConnHeadersSplit(t *testing.T) {
	p := newPeer(t, http2.Config{})
	p.ok(headers(1, true), http2.EventStream)
	b, err := p.c.AppendHeaders(nil, 1, make([]byte, 40000), false)
	require.NoError(t, err)
	assert.Equal(t, []string{"HEADERS 1 len=16384", "CONTINUATION 1 len=16384", "CONTINUATION 1 len=7232 END_HEADERS"}, summary(t, b))
	b, err = p.c.AppendHeaders(b[:0], 1, []byte{1}, true)
	require.NoError(t, err)
	assert.Equal(t, []string{"HEADERS 1 len=1 END_STREAM END_HEADERS"}, summary(t, b))
	_, err = p.c.AppendHeaders(nil, 1, []byte{1}, true)
	require.ErrorIs(t, err, http2.ErrSendState)
	_, err = p.c.AppendHeaders(nil, 9, []byte{1}, true)
	require.ErrorIs(t, err, http2.ErrSendState)
}

// TestConnConcurrency: the stream past MaxStreams is refused with
// REFUSED_STREAM; once one closes, a new one is taken.
func TestConnConcurrency(t *testing.T) {
	p := newPeer(t, http2.Config{MaxStreams: 3})
	for id := uint32(1); id <= 5; id += 2 {
		p.ok(headers(id, false), http2.EventStream)
	}
	_, err := p.send(headers(7, false))
	require.ErrorIs(t, err, http2.ErrRefusedStream)
	assert.Equal(t, []string{"RST_STREAM 7 REFUSED_STREAM"}, p.out())
	assert.Equal(t, http2.StateClosedByLocalReset, p.c.State(7))
	p.ok(data(7, true, 10), http2.EventNone) // sent before it saw the refusal
	peerN, _ := p.c.Streams()
	assert.Equal(t, 3, peerN)
	p.ok(rst(3, http2.CodeCancel), http2.EventReset)
	p.ok(headers(9, false), http2.EventStream)
	// A stream half closed both ways... closes when both ends ended.
	p.ok(data(9, true, 0), http2.EventData)
	_, err = p.c.AppendHeaders(nil, 9, []byte{0x88}, true)
	require.NoError(t, err)
	p.ok(headers(11, false), http2.EventStream)
	_, err = p.send(headers(13, false))
	require.ErrorIs(t, err, http2.ErrRefusedStream)
}

// TestConnGoAway: after our GOAWAY, the peer's new streams above its
// last are ignored; the peer's GOAWAY stops our new streams.
func TestConnGoAway(t *testing.T) {
	p := newPeer(t, http2.Config{})
	p.ok(headers(1, false), http2.EventStream)
	p.c.GoAway(http2.MaxStreamID, http2.CodeNo, nil)
	p.ok(headers(3, false), http2.EventStream)
	p.c.GoAway(p.c.LastPeerStream(), http2.CodeNo, []byte("bye"))
	p.c.GoAway(http2.MaxStreamID, http2.CodeNo, nil) // never raised
	assert.Equal(t, []string{"GOAWAY 0 last=2147483647 NO_ERROR", "GOAWAY 0 last=3 NO_ERROR", "GOAWAY 0 last=3 NO_ERROR"}, p.out())
	p.ok(headers(5, false), http2.EventNone)
	p.ok(data(5, false, 100), http2.EventNone)
	p.ok(data(3, true, 100), http2.EventData)
	require.NoError(t, p.c.Err())

	c := http2.NewConn(http2.Config{Client: true})
	id, err := c.OpenStream()
	require.NoError(t, err)
	assert.Equal(t, uint32(1), id)
	var f http2.Frame
	_, err = new(http2.Decoder).DecodeBytes(must(http2.AppendGoAway(nil, 0, http2.CodeNo, nil)), &f)
	require.NoError(t, err)
	ev, err := c.Recv(&f)
	require.NoError(t, err)
	assert.Equal(t, http2.EventGoAway, ev)
	_, err = c.OpenStream()
	require.ErrorIs(t, err, http2.ErrStreamLimit)

	c.GoAway(0, http2.CodeProtocol, nil)
	require.Error(t, c.Err())
}

// TestConnRefuse: decoder errors are applied by their level.
func TestConnRefuse(t *testing.T) {
	p := newPeer(t, http2.Config{})
	p.ok(headers(1, false), http2.EventStream)
	require.ErrorIs(t, p.c.Refuse(1, http2.ErrWindowZeroStream), http2.ErrWindowZeroStream)
	assert.Equal(t, []string{"RST_STREAM 1 PROTOCOL_ERROR"}, p.out())
	p.c.Refuse(3, http2.ErrSelfDependency) // on an idle stream: refused
	assert.Equal(t, []string{"RST_STREAM 3 PROTOCOL_ERROR"}, p.out())
	require.NoError(t, p.c.Err())
	p.c.Refuse(0, http2.ErrFrameTooLarge)
	assert.Equal(t, []string{"GOAWAY 0 last=3 FRAME_SIZE_ERROR"}, p.out())
	require.ErrorIs(t, p.c.Err(), http2.ErrFrameTooLarge)
	require.Error(t, p.c.Fail(http2.CodeCompression, "x"))
	assert.Empty(t, p.out(), "one GOAWAY")
}

// TestConnAllocs: a warm Conn allocates nothing for a stream's whole
// life: opened, its body received and taken, answered, closed.
func TestConnAllocs(t *testing.T) {
	testenv.SkipAllocs(t)
	c := http2.NewConn(http2.Config{})
	var d http2.Decoder
	var f http2.Frame
	in := make([]byte, 0, 256)
	out := make([]byte, 0, 64<<10)
	body := make([]byte, 100)
	id := uint32(1)
	recv := func(p []byte) http2.Event {
		_, err := d.DecodeBytes(p, &f)
		if err != nil {
			panic(err)
		}
		ev, err := c.Recv(&f)
		if err != nil {
			panic(err)
		}
		return ev
	}
	one := func() {
		in, _ = http2.AppendHeaders(in[:0], id, false, true, []byte{0x82})
		recv(in)
		in, _ = http2.AppendData(in[:0], id, true, body)
		recv(in)
		c.Consumed(id, len(body))
		in, _ = http2.AppendWindowUpdate(in[:0], 0, uint32(len(body)))
		recv(in)
		out = c.Pending(out[:0])
		out, _ = c.AppendHeaders(out, id, []byte{0x88}, false)
		out, _, _ = c.AppendData(out, id, body, true)
		id += 2
	}
	for range 1000 {
		one()
	}
	assert.Zero(t, testing.AllocsPerRun(1000, one))
	assert.Equal(t, http2.StateClosedByEndStream, c.State(id-2))
}

// TestConnUpgrade: an h2c upgrade's HTTP2-Settings become the client's
// settings, unacknowledged, and the request stream 1, half-closed
// (remote); bad payloads are refused.
func TestConnUpgrade(t *testing.T) {
	c := http2.NewConn(http2.Config{})
	c.Pending(nil)
	payload := http2.AppendSettings(nil, http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1000},
		http2.Setting{ID: http2.SettingMaxFrameSize, Val: 20000})[http2.HeaderLen:]
	require.NoError(t, c.Upgrade(payload))
	assert.Empty(t, c.Pending(nil), "no ACK: the 101 acknowledges them")
	assert.Equal(t, uint32(20000), c.Peer().MaxFrameSize)
	assert.Equal(t, http2.StateHalfClosedRemote, c.State(1))
	assert.Equal(t, 1000, c.SendWindow(1))
	assert.Equal(t, uint32(1), c.LastPeerStream())
	b, err := c.AppendHeaders(nil, 1, []byte{0x88}, true)
	require.NoError(t, err)
	assert.Equal(t, []string{"HEADERS 1 len=1 END_STREAM END_HEADERS"}, summary(t, b))
	require.ErrorIs(t, c.Upgrade(payload), http2.ErrSendState, "once")

	require.ErrorIs(t, http2.NewConn(http2.Config{}).Upgrade([]byte{1, 2, 3}), http2.ErrSettingsSize)
	require.ErrorIs(t, http2.NewConn(http2.Config{}).Upgrade([]byte{0, 2, 0, 0, 0, 2}), http2.ErrSettingPush)
	require.ErrorIs(t, http2.NewConn(http2.Config{Client: true}).Upgrade(nil), http2.ErrSendState)
}
