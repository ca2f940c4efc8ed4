package http2

import (
	"math"
)

// ClientPreface is what a client sends before its first frame (RFC 9113
// §3.4); a server reads it before its Decoder sees a frame.
const ClientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// Limits and windows a Conn uses when its Config leaves them zero.
const (
	// DefaultMaxStreams is the SETTINGS_MAX_CONCURRENT_STREAMS a Conn
	// advertises: the RFC's recommended floor (§6.5.2).
	DefaultMaxStreams = 100
	// DefaultStreamWindow is the SETTINGS_INITIAL_WINDOW_SIZE a Conn
	// advertises: how much of one stream's body the peer may send ahead
	// of the application's reading.
	DefaultStreamWindow = 256 << 10
	// DefaultConnWindow is the connection's receive window: how much of
	// all streams' bodies together the peer may send ahead.
	DefaultConnWindow = 1 << 20
	// DefaultMaxHeaderList is the SETTINGS_MAX_HEADER_LIST_SIZE a Conn
	// advertises (the HPACK decoder enforces it; see hpack's limits).
	DefaultMaxHeaderList = 64 << 10
	// DefaultMaxClosed is how many closed streams a Conn remembers, to
	// judge late frames on them by how they closed (§5.1).
	DefaultMaxClosed = 32

	initialWindow = 65535 // every window before SETTINGS says otherwise (§6.9.2)
	noLimit       = math.MaxUint32
)

// Settings are one endpoint's SETTINGS parameters (RFC 9113 §6.5.2).
type Settings struct {
	HeaderTableSize      uint32
	EnablePush           bool
	MaxConcurrentStreams uint32 // math.MaxUint32: no limit
	InitialWindowSize    uint32
	MaxFrameSize         uint32
	MaxHeaderListSize    uint32 // math.MaxUint32: no limit
}

// DefaultSettings are the values every endpoint assumes of its peer until
// the peer's SETTINGS say otherwise (RFC 9113 §6.5.2).
func DefaultSettings() Settings {
	return Settings{
		HeaderTableSize:      4096,
		EnablePush:           true,
		MaxConcurrentStreams: noLimit,
		InitialWindowSize:    initialWindow,
		MaxFrameSize:         DefaultMaxFrameSize,
		MaxHeaderListSize:    noLimit,
	}
}

func (s *Settings) apply(st Setting) {
	switch st.ID {
	case SettingHeaderTableSize:
		s.HeaderTableSize = st.Val
	case SettingEnablePush:
		s.EnablePush = st.Val == 1
	case SettingMaxConcurrentStreams:
		s.MaxConcurrentStreams = st.Val
	case SettingInitialWindowSize:
		s.InitialWindowSize = st.Val
	case SettingMaxFrameSize:
		s.MaxFrameSize = st.Val
	case SettingMaxHeaderListSize:
		s.MaxHeaderListSize = st.Val
	}
}

// Config configures a Conn. The zero Config is a server with the
// defaults above.
type Config struct {
	// Client makes the Conn a client's: it opens odd streams and the
	// peer may open none (push is refused). Otherwise it is a server's:
	// the peer opens odd streams and this end opens none.
	Client bool
	// MaxStreams is the SETTINGS_MAX_CONCURRENT_STREAMS advertised (0:
	// DefaultMaxStreams). A HEADERS frame that would open one stream more
	// is refused with RST_STREAM(REFUSED_STREAM); its header block must
	// still go through the HPACK decoder.
	MaxStreams uint32
	// StreamWindow is the SETTINGS_INITIAL_WINDOW_SIZE advertised (0:
	// DefaultStreamWindow; at most MaxWindow).
	StreamWindow uint32
	// ConnWindow is the connection's receive window (0:
	// DefaultConnWindow; at least 65535, at most MaxWindow).
	ConnWindow uint32
	// MaxFrameSize is the SETTINGS_MAX_FRAME_SIZE advertised (0:
	// DefaultMaxFrameSize): set the Decoder's MaxFrameSize to the same.
	MaxFrameSize uint32
	// MaxHeaderList is the SETTINGS_MAX_HEADER_LIST_SIZE advertised (0:
	// DefaultMaxHeaderList). The Conn only announces it; the HPACK
	// decoder's limit enforces it.
	MaxHeaderList uint32
	// MaxClosed is how many closed streams are remembered (0:
	// DefaultMaxClosed). A frame on a stream closed longer ago is judged
	// as if the peer had reset it: a late RST_STREAM, WINDOW_UPDATE or
	// PRIORITY is ignored, DATA gets RST_STREAM(STREAM_CLOSED), HEADERS
	// is a connection error of type PROTOCOL_ERROR (as for a stream ID
	// below the last that was never used, which the Conn cannot tell
	// from it).
	MaxClosed int
}

// Event says what a received frame means for the caller (see Conn.Recv).
type Event uint8

// The events of Conn.Recv.
const (
	// EventNone: nothing for the caller; the Conn has done what the
	// frame asks (a PING answered, a late frame dropped). A header
	// block still goes through the HPACK decoder.
	EventNone Event = iota
	// EventStream: a HEADERS frame opened the stream (a request, on a
	// server). Its block follows through Block and the HPACK decoder.
	EventStream
	// EventHeaders: a HEADERS frame on a stream already open: trailers
	// (with END_STREAM), or a response after 1xx on a client.
	EventHeaders
	// EventData: a DATA frame for the stream's body. Call Consumed when
	// the application has taken its Data, so the windows reopen.
	EventData
	// EventReset: the peer reset a stream that was open (the frame's
	// ErrCode says why): stop working on it.
	EventReset
	// EventWindow: a WINDOW_UPDATE grew the send window of the
	// connection (stream 0) or of a stream: data held back may go.
	EventWindow
	// EventSettings: the peer's SETTINGS were applied (and acknowledged
	// in Pending): see Peer for the header table size and frame size.
	EventSettings
	// EventSettingsAck: the peer acknowledged this end's SETTINGS.
	EventSettingsAck
	// EventPingAck: the answer to a PING this end sent.
	EventPingAck
	// EventGoAway: the peer is going away; streams above the frame's
	// LastStreamID were not processed and may be retried.
	EventGoAway
)

// Connection-level violations found by a Conn.
var (
	ErrStreamIDOrder      = connErr(CodeProtocol, "RFC 9113 §5.1.1", "new stream ID not above every earlier one of its initiator")
	ErrStreamIDParity     = connErr(CodeProtocol, "RFC 9113 §5.1.1", "stream ID of the wrong parity for its initiator")
	ErrPushRefused        = connErr(CodeProtocol, "RFC 9113 §8.4", "PUSH_PROMISE the receiver did not allow")
	ErrConnWindow         = connErr(CodeFlowControl, "RFC 9113 §6.9.1", "DATA beyond the connection's flow-control window")
	ErrConnWindowGrowth   = connErr(CodeFlowControl, "RFC 9113 §6.9.1", "WINDOW_UPDATE takes the connection's window above 2^31-1")
	ErrSettingsOverflow   = connErr(CodeFlowControl, "RFC 9113 §6.9.2", "SETTINGS_INITIAL_WINDOW_SIZE takes a stream's window above 2^31-1")
	ErrStreamWindow       = streamErr(CodeFlowControl, "RFC 9113 §6.9.1", "DATA beyond the stream's flow-control window")
	ErrStreamWindowGrowth = streamErr(CodeFlowControl, "RFC 9113 §6.9.1", "WINDOW_UPDATE takes the stream's window above 2^31-1")
	ErrRefusedStream      = streamErr(CodeRefusedStream, "RFC 9113 §5.1.2", "stream beyond the advertised SETTINGS_MAX_CONCURRENT_STREAMS")
)

// Misuse by the caller, returned by Conn's sending methods.
var (
	// ErrSendState: the stream's state does not allow the frame (a
	// response on a stream that is closed or reset, say).
	ErrSendState = connErr(CodeInternal, "RFC 9113 §5.1", "frame the stream's state does not allow sending")
	// ErrConnFailed: a connection error ended the Conn (or GoAway with
	// an error code did); nothing more is sent but what Pending holds.
	ErrConnFailed = connErr(CodeInternal, "RFC 9113 §5.4.1", "the connection has failed")
	// ErrStreamLimit: the peer's SETTINGS_MAX_CONCURRENT_STREAMS, its
	// GOAWAY or the stream IDs left allow no new stream.
	ErrStreamLimit = connErr(CodeRefusedStream, "RFC 9113 §5.1.2", "no new stream allowed")
)

type stream struct {
	id          uint32
	state       StreamState
	peerOpened  bool
	sendWin     int64
	recvWin     int64 // what the peer may still send
	recvUnacked int64 // consumed, not yet given back by WINDOW_UPDATE
}

type closedStream struct {
	id    uint32
	state StreamState
}

// A Conn is one endpoint's state of an HTTP/2 connection, without I/O
// (RFC 9113 §5, §6.5, §6.8, §6.9): stream IDs, each stream's life cycle
// (StreamState), flow-control windows both ways with WINDOW_UPDATE sent
// by itself, SETTINGS and their acknowledgement, the concurrency limit,
// PING answers and GOAWAY.
//
// Feed it every frame decoded, in order, through Recv (after Block.Next,
// which owns the order of header blocks); write what Pending appends
// (SETTINGS and its ACK, PING answers, WINDOW_UPDATE, RST_STREAM for a
// stream error, GOAWAY for a connection error) before or with the frames
// the caller sends; send HEADERS and DATA through AppendHeaders and
// AppendData, which split to the peer's frame size and the windows.
//
// A Conn is not safe for concurrent use. Streams are held in a map and
// their records reused: a warm Conn allocates nothing per stream.
type Conn struct {
	client        bool
	local         Settings // as advertised
	peer          Settings
	streamWindow  int64
	connWindow    int64
	streams       map[uint32]*stream
	free          []*stream
	closed        []closedStream // a ring of the last closed, grown up to maxClosed
	closedNext    int
	maxClosed     int
	lastPeer      uint32 // highest stream ID the peer opened or tried
	nextLocal     uint32 // next stream ID this end opens
	peerOpen      int
	localOpen     int
	sendWin       int64
	recvWin       int64
	recvUnacked   int64
	settingsOwed  int // our SETTINGS not yet acknowledged
	goAwaySent    bool
	goAwayLast    uint32
	peerGoAway    bool
	peerGoAwayMax uint32
	err           *Violation
	pending       []byte
}

// NewConn returns a Conn whose Pending holds this end's SETTINGS (and a
// WINDOW_UPDATE opening the connection's window, when ConnWindow is above
// 65535): a server sends them first, a client after ClientPreface.
func NewConn(cfg Config) *Conn {
	c := &Conn{
		client:    cfg.Client,
		peer:      DefaultSettings(),
		streams:   make(map[uint32]*stream),
		nextLocal: 1,
		sendWin:   initialWindow,
	}
	if !cfg.Client {
		c.nextLocal = 2
	}
	c.local = DefaultSettings()
	c.local.EnablePush = false
	c.local.MaxConcurrentStreams = orDefault(cfg.MaxStreams, DefaultMaxStreams)
	c.local.InitialWindowSize = min(orDefault(cfg.StreamWindow, DefaultStreamWindow), MaxWindow)
	c.local.MaxFrameSize = min(max(orDefault(cfg.MaxFrameSize, DefaultMaxFrameSize), DefaultMaxFrameSize), MaxFrameSizeLimit)
	c.local.MaxHeaderListSize = orDefault(cfg.MaxHeaderList, DefaultMaxHeaderList)
	c.streamWindow = int64(c.local.InitialWindowSize)
	c.connWindow = int64(min(max(orDefault(cfg.ConnWindow, DefaultConnWindow), initialWindow), MaxWindow))
	c.recvWin = c.connWindow
	n := cfg.MaxClosed
	if n <= 0 {
		n = DefaultMaxClosed
	}
	c.maxClosed = n

	settings := [...]Setting{
		{SettingEnablePush, 0},
		{SettingMaxConcurrentStreams, c.local.MaxConcurrentStreams},
		{SettingInitialWindowSize, c.local.InitialWindowSize},
		{SettingMaxFrameSize, c.local.MaxFrameSize},
		{SettingMaxHeaderListSize, c.local.MaxHeaderListSize},
	}
	s := settings[:]
	if !cfg.Client {
		s = s[1:] // ENABLE_PUSH is a client's to send (§6.5.2)
	}
	c.pending = AppendSettings(c.pending, s...)
	c.settingsOwed = 1
	if c.connWindow > initialWindow {
		c.pending, _ = AppendWindowUpdate(c.pending, 0, uint32(c.connWindow-initialWindow))
	}
	return c
}

func orDefault(v, d uint32) uint32 {
	if v == 0 {
		return d
	}
	return v
}

// Local returns the settings this end advertised.
func (c *Conn) Local() Settings { return c.local }

// Peer returns the peer's settings as last received (DefaultSettings
// before its first SETTINGS).
func (c *Conn) Peer() Settings { return c.peer }

// Err returns the connection error that ended the Conn, or nil.
func (c *Conn) Err() error {
	if c.err == nil {
		return nil
	}
	return c.err
}

// Pending appends what the Conn owes the peer to dst and forgets it: the
// frames to write next, before any the caller appends after them.
func (c *Conn) Pending(dst []byte) []byte {
	dst = append(dst, c.pending...)
	c.pending = c.pending[:0]
	return dst
}

// PendingLen is the length of what Pending would append.
func (c *Conn) PendingLen() int { return len(c.pending) }

// State returns a stream's state: Idle for one not yet opened, and for a
// closed stream the Conn no longer remembers, StateClosedByLocalReset or
// the way it closed.
func (c *Conn) State(id uint32) StreamState {
	if s := c.streams[id]; s != nil {
		return s.state
	}
	return c.closedState(id)
}

// Streams returns how many streams are open or half-closed: those the
// peer opened, and those this end opened.
func (c *Conn) Streams() (peer, local int) { return c.peerOpen, c.localOpen }

// LastPeerStream is the highest stream ID the peer has opened (or tried
// to): the Last-Stream-ID of a GOAWAY.
func (c *Conn) LastPeerStream() uint32 { return c.lastPeer }

func (c *Conn) peerInitiated(id uint32) bool { return id&1 == 1 != c.client }

func (c *Conn) isIdle(id uint32) bool {
	if c.peerInitiated(id) {
		return id > c.lastPeer
	}
	return id >= c.nextLocal
}

func (c *Conn) closedState(id uint32) StreamState {
	if id == 0 || c.isIdle(id) {
		return StateIdle
	}
	for _, cs := range c.closed {
		if cs.id == id {
			return cs.state
		}
	}
	return StateClosedByLocalReset
}

// forgotten reports whether a closed stream is no longer remembered.
func (c *Conn) forgotten(id uint32) bool {
	for _, cs := range c.closed {
		if cs.id == id {
			return false
		}
	}
	return true
}

func (c *Conn) newStream(id uint32, peerOpened bool) *stream {
	var s *stream
	if n := len(c.free); n > 0 {
		s = c.free[n-1]
		c.free = c.free[:n-1]
	} else {
		s = new(stream)
	}
	*s = stream{id: id, state: StateIdle, peerOpened: peerOpened,
		sendWin: int64(c.peer.InitialWindowSize), recvWin: c.streamWindow}
	if c.settingsOwed > 0 && s.recvWin < initialWindow {
		// The peer may send at the old size until it has read our
		// SETTINGS.
		s.recvWin = initialWindow
	}
	c.streams[id] = s
	if peerOpened {
		c.peerOpen++
	} else {
		c.localOpen++
	}
	return s
}

// setState moves s to st, forgetting it when closed.
func (c *Conn) setState(s *stream, st StreamState) {
	s.state = st
	if !st.Closed() {
		return
	}
	delete(c.streams, s.id)
	if s.peerOpened {
		c.peerOpen--
	} else {
		c.localOpen--
	}
	if len(c.closed) < c.maxClosed {
		c.closed = append(c.closed, closedStream{id: s.id, state: st})
	} else {
		c.closed[c.closedNext] = closedStream{id: s.id, state: st}
		c.closedNext = (c.closedNext + 1) % len(c.closed)
	}
	c.free = append(c.free, s)
}

// fail ends the Conn with a connection error: GOAWAY goes to Pending.
func (c *Conn) fail(v *Violation) *Violation {
	if c.err != nil {
		return c.err
	}
	c.err = v
	c.pending, _ = AppendGoAway(c.pending, c.lastPeer, v.Code, []byte(v.Msg))
	c.goAwaySent = true
	c.goAwayLast = min(c.goAwayLast, c.lastPeer)
	return v
}

// Fail ends the Conn with a connection error of the code (a GOAWAY with
// the debug text goes to Pending) and returns ErrConnFailed's kin: the
// caller writes Pending and closes. Use it for what Recv cannot see: an
// HPACK decoding error (COMPRESSION_ERROR), a flood (ENHANCE_YOUR_CALM).
// A Conn that has already failed keeps its first error.
func (c *Conn) Fail(code ErrCode, debug string) error {
	if c.err != nil {
		return c.err
	}
	return c.fail(connErr(code, "RFC 9113 §5.4.1", debug))
}

// Refuse applies an error the Decoder or a Block returned for a frame on
// stream id: a stream error resets the stream (RST_STREAM to Pending), a
// connection error fails the Conn; it returns err for the caller to
// report. Any other error fails the Conn with INTERNAL_ERROR.
func (c *Conn) Refuse(id uint32, err error) error {
	v := ViolationOf(err)
	switch {
	case v == nil:
		c.Fail(CodeInternal, err.Error())
	case v.Stream && id != 0:
		c.Reset(id, v.Code)
	default:
		c.fail(v)
	}
	return err
}

// Reset resets a stream with code: RST_STREAM goes to Pending and the
// stream is closed (frames the peer sent before it saw the reset are
// dropped by Recv). On a closed stream it sends RST_STREAM and changes
// nothing (a stream error found on a late frame); an idle stream of the
// peer's counts as opened and closed (a refused stream); on an idle
// stream of this end's it does nothing.
func (c *Conn) Reset(id uint32, code ErrCode) {
	if c.err != nil || id == 0 {
		return
	}
	s := c.streams[id]
	if s == nil {
		if !c.isIdle(id) {
			// Closed already: the RST_STREAM tells the peer of its
			// error all the same (§5.4.2); the state stays.
			c.pending, _ = AppendRSTStream(c.pending, id, code)
			return
		}
		if !c.peerInitiated(id) {
			return
		}
		c.lastPeer = id
		s = c.newStream(id, true)
	}
	c.pending, _ = AppendRSTStream(c.pending, id, code)
	c.setState(s, StateClosedByLocalReset)
}

// GoAway sends GOAWAY with code and debug, naming lastStream (at most
// the last stream the peer opened) as the last processed. The peer's
// streams above it are then ignored: their frames dropped, their header
// blocks still decoded. Graceful shutdown sends one with MaxStreamID and
// CodeNo, waits a round trip (a PING), then one with LastPeerStream
// (RFC 9113 §6.8). A code other than CodeNo ends the Conn as Fail does.
func (c *Conn) GoAway(lastStream uint32, code ErrCode, debug []byte) {
	if c.err != nil {
		return
	}
	if code != CodeNo {
		c.err = connErr(code, "RFC 9113 §6.8", "GOAWAY sent")
	}
	if c.goAwaySent {
		lastStream = min(lastStream, c.goAwayLast) // never raised (§6.8)
	}
	c.goAwaySent = true
	c.goAwayLast = lastStream
	c.pending, _ = AppendGoAway(c.pending, min(lastStream, MaxStreamID), code, debug)
}

// Ping appends a PING with data to Pending; its answer comes back as
// EventPingAck.
func (c *Conn) Ping(data [8]byte) {
	c.pending = AppendPing(c.pending, false, data)
}

// Upgrade starts a server's Conn from an HTTP/1.1 request upgraded to
// h2c (RFC 7540 §3.2, which RFC 9113 §3.1 deprecates but clients still
// send): settings is the request's HTTP2-Settings field, base64url-decoded
// (a SETTINGS frame's payload), applied as the client's settings with no
// ACK (the 101 response acknowledges them); the request becomes stream 1,
// half-closed (remote), answered on the new connection. Call it before
// Recv sees a frame. The error is a *Violation (a connection error: do
// not upgrade, or fail the Conn) for a payload that is not a SETTINGS
// payload or carries a value RFC 9113 §6.5.2 refuses, and ErrSendState
// on a client's Conn or one that has begun.
func (c *Conn) Upgrade(settings []byte) error {
	if c.client || c.lastPeer != 0 || c.err != nil {
		return ErrSendState
	}
	if len(settings)%6 != 0 {
		return ErrSettingsSize
	}
	f := Frame{FrameHeader: FrameHeader{Type: FrameSettings, Length: uint32(len(settings))}, Data: settings}
	for i := range f.NumSettings() {
		st := f.Setting(i)
		if err := st.Valid(); err != nil {
			return err
		}
		c.peer.apply(st)
	}
	c.lastPeer = 1
	s := c.newStream(1, true)
	s.sendWin = int64(c.peer.InitialWindowSize)
	c.setState(s, StateHalfClosedRemote)
	return nil
}

// Recv applies a decoded frame to the connection's state and says what it
// means for the caller (see Event). Call it for every frame the Decoder
// returns without error, after Block.Next. A CONTINUATION frame is the
// Block's and changes nothing here.
//
// The error is a *Violation. A stream error (Stream true) has reset the
// stream (RST_STREAM is in Pending) and the connection goes on. A
// connection error has failed the Conn: GOAWAY is in Pending; write it
// and close. Either way the caller still hands a HEADERS frame's block to
// the HPACK decoder, whose state the whole connection shares; on a
// connection error nothing more need be decoded.
func (c *Conn) Recv(f *Frame) (Event, error) {
	if c.err != nil {
		return EventNone, c.err
	}
	switch f.Type {
	case FrameSettings:
		return c.recvSettings(f)
	case FramePing:
		if f.Ack() {
			return EventPingAck, nil
		}
		c.pending = AppendPing(c.pending, true, f.PingData)
		return EventNone, nil
	case FrameGoAway:
		if !c.peerGoAway || f.LastStreamID < c.peerGoAwayMax {
			c.peerGoAwayMax = f.LastStreamID
		}
		c.peerGoAway = true
		return EventGoAway, nil
	case FramePushPromise:
		// Neither end allows push: a server cannot receive one, and a
		// client advertises ENABLE_PUSH 0 (§6.5.2, §8.4).
		return EventNone, c.fail(ErrPushRefused)
	case FrameData:
		return c.recvData(f)
	case FrameHeaders:
		return c.recvHeaders(f)
	case FrameWindowUpdate:
		return c.recvWindow(f)
	case FrameRSTStream:
		s := c.streams[f.StreamID]
		if s == nil {
			if c.isIdle(f.StreamID) {
				return EventNone, c.fail(ErrIdleFrame)
			}
			return EventNone, nil // late: the stream is closed
		}
		if s.state == StateIdle {
			return EventNone, c.fail(ErrIdleFrame)
		}
		c.setState(s, StateClosedByPeerReset)
		return EventReset, nil
	}
	// PRIORITY (§5.3.2: parsed, ignored), CONTINUATION (the Block's),
	// and unknown types (§5.5).
	return EventNone, nil
}

func (c *Conn) recvSettings(f *Frame) (Event, error) {
	if f.Ack() {
		if c.settingsOwed > 0 {
			c.settingsOwed--
		}
		return EventSettingsAck, nil
	}
	for i := range f.NumSettings() {
		st := f.Setting(i)
		if err := st.Valid(); err != nil {
			return EventNone, c.fail(ViolationOf(err))
		}
		if st.ID == SettingEnablePush && st.Val == 1 && c.client {
			// Only a client may enable push (§6.5.2).
			return EventNone, c.fail(ErrSettingPush)
		}
		if st.ID == SettingInitialWindowSize {
			delta := int64(st.Val) - int64(c.peer.InitialWindowSize)
			for _, s := range c.streams {
				if s.sendWin+delta > MaxWindow {
					return EventNone, c.fail(ErrSettingsOverflow)
				}
			}
			for _, s := range c.streams {
				s.sendWin += delta
			}
		}
		c.peer.apply(st)
	}
	c.pending = AppendSettingsAck(c.pending)
	return EventSettings, nil
}

// late returns what a frame on a closed stream the Conn has forgotten
// does: DATA is answered with RST_STREAM(STREAM_CLOSED), HEADERS is a
// connection error (ErrStreamIDOrder), the rest is ignored.
func (c *Conn) late(f *Frame) error {
	switch f.Type {
	case FrameHeaders:
		return c.fail(ErrStreamIDOrder)
	case FrameData:
		c.pending, _ = AppendRSTStream(c.pending, f.StreamID, CodeStreamClosed)
		return ErrAfterReset
	}
	return nil
}

// recvClosed judges a frame on a stream that is not in the map: idle or
// closed.
func (c *Conn) recvClosed(f *Frame) error {
	if c.goAwaySent && c.peerInitiated(f.StreamID) && f.StreamID > c.goAwayLast {
		return nil // §6.8: the peer's streams after our GOAWAY are ignored
	}
	st := c.closedState(f.StreamID)
	if st == StateClosedByLocalReset && c.forgotten(f.StreamID) {
		return c.late(f)
	}
	_, err := st.Recv(f.Type, f.EndStream())
	if err == nil {
		return nil
	}
	v := ViolationOf(err)
	if !v.Stream {
		return c.fail(v)
	}
	c.pending, _ = AppendRSTStream(c.pending, f.StreamID, v.Code)
	return v
}

// streamFail resets s for the stream error v.
func (c *Conn) streamFail(s *stream, v *Violation) error {
	c.pending, _ = AppendRSTStream(c.pending, s.id, v.Code)
	c.setState(s, StateClosedByLocalReset)
	return v
}

// recvOn moves a stream the map holds by the frame.
func (c *Conn) recvOn(s *stream, f *Frame) error {
	st, err := s.state.Recv(f.Type, f.EndStream())
	if err != nil {
		v := ViolationOf(err)
		if !v.Stream {
			return c.fail(v)
		}
		return c.streamFail(s, v)
	}
	c.setState(s, st)
	return nil
}

func (c *Conn) recvHeaders(f *Frame) (Event, error) {
	id := f.StreamID
	if s := c.streams[id]; s != nil {
		if s.state == StateIdle {
			// A stream this end opened but has not sent on: the peer
			// cannot have seen it.
			return EventNone, c.fail(ErrIdleFrame)
		}
		if err := c.recvOn(s, f); err != nil {
			return EventNone, err
		}
		return EventHeaders, nil
	}
	if !c.peerInitiated(id) {
		if c.isIdle(id) {
			return EventNone, c.fail(ErrStreamIDParity)
		}
		return EventNone, c.recvClosed(f)
	}
	if !c.isIdle(id) {
		return EventNone, c.recvClosed(f)
	}
	c.lastPeer = id
	if c.goAwaySent && id > c.goAwayLast {
		return EventNone, nil // §6.8: not processed
	}
	if uint32(c.peerOpen) >= c.local.MaxConcurrentStreams {
		s := c.newStream(id, true)
		return EventNone, c.streamFail(s, ErrRefusedStream)
	}
	s := c.newStream(id, true)
	if err := c.recvOn(s, f); err != nil {
		return EventNone, err
	}
	return EventStream, nil
}

func (c *Conn) recvData(f *Frame) (Event, error) {
	n := int64(f.FlowLength())
	if n > c.recvWin {
		return EventNone, c.fail(ErrConnWindow)
	}
	c.recvWin -= n
	s := c.streams[f.StreamID]
	if s == nil || s.state == StateIdle {
		var err error
		if s != nil || c.isIdle(f.StreamID) {
			err = c.fail(ErrIdleFrame)
		} else {
			err = c.recvClosed(f)
		}
		c.consumeConn(n)
		return EventNone, err
	}
	if c.goAwaySent && s.peerOpened && s.id > c.goAwayLast {
		c.consumeConn(n)
		return EventNone, nil
	}
	if n > s.recvWin {
		c.consumeConn(n)
		return EventNone, c.streamFail(s, ErrStreamWindow)
	}
	if err := c.recvOn(s, f); err != nil {
		c.consumeConn(n)
		return EventNone, err
	}
	s.recvWin -= n
	if pad := n - int64(len(f.Data)); pad > 0 {
		c.consumed(s, pad)
	}
	return EventData, nil
}

func (c *Conn) recvWindow(f *Frame) (Event, error) {
	inc := int64(f.Increment)
	if f.StreamID == 0 {
		if c.sendWin+inc > MaxWindow {
			return EventNone, c.fail(ErrConnWindowGrowth)
		}
		c.sendWin += inc
		return EventWindow, nil
	}
	s := c.streams[f.StreamID]
	if s == nil || s.state == StateIdle {
		if s != nil || c.isIdle(f.StreamID) {
			return EventNone, c.fail(ErrIdleFrame)
		}
		return EventNone, c.recvClosed(f)
	}
	if err := c.recvOn(s, f); err != nil {
		return EventNone, err
	}
	if s.sendWin+inc > MaxWindow {
		return EventNone, c.streamFail(s, ErrStreamWindowGrowth)
	}
	s.sendWin += inc
	return EventWindow, nil
}

// Consumed tells the Conn the application has taken n bytes of a DATA
// frame's Data on stream id: once half a window has been taken, a
// WINDOW_UPDATE giving it back goes to Pending, for the stream (while the
// peer may still send on it) and for the connection. A stream closed
// since gives its bytes back to the connection only.
func (c *Conn) Consumed(id uint32, n int) {
	if n <= 0 || c.err != nil {
		return
	}
	if s := c.streams[id]; s != nil {
		c.consumed(s, int64(n))
		return
	}
	c.consumeConn(int64(n))
}

func (c *Conn) consumed(s *stream, n int64) {
	c.consumeConn(n)
	if s.state != StateOpen && s.state != StateHalfClosedLocal {
		return // the peer sends no more on it
	}
	s.recvUnacked += n
	if s.recvUnacked >= c.streamWindow/2 {
		c.pending, _ = AppendWindowUpdate(c.pending, s.id, uint32(s.recvUnacked))
		s.recvWin += s.recvUnacked
		s.recvUnacked = 0
	}
}

func (c *Conn) consumeConn(n int64) {
	if n <= 0 || c.err != nil {
		return
	}
	c.recvUnacked += n
	if c.recvUnacked >= c.connWindow/2 {
		c.pending, _ = AppendWindowUpdate(c.pending, 0, uint32(c.recvUnacked))
		c.recvWin += c.recvUnacked
		c.recvUnacked = 0
	}
}

// SendWindow returns how many body bytes stream id may send now: the
// smaller of its window and the connection's (0 when either is spent or
// negative, or the stream cannot send DATA).
func (c *Conn) SendWindow(id uint32) int {
	s := c.streams[id]
	if s == nil || c.err != nil {
		return 0
	}
	if _, ok := s.state.Send(FrameData, false); !ok || s.state == StateIdle {
		return 0
	}
	return int(max(min(s.sendWin, c.sendWin), 0))
}

// OpenStream returns the ID of a new stream this end opens (a client's
// request), idle until AppendHeaders sends on it; ErrStreamLimit when
// the peer's concurrency limit, its GOAWAY or the IDs allow none.
func (c *Conn) OpenStream() (uint32, error) {
	if c.err != nil {
		return 0, ErrConnFailed
	}
	if c.peerGoAway || uint32(c.localOpen) >= c.peer.MaxConcurrentStreams || c.nextLocal > MaxStreamID {
		return 0, ErrStreamLimit
	}
	id := c.nextLocal
	c.nextLocal += 2
	c.newStream(id, false)
	return id, nil
}

// AppendHeaders appends a header block on stream id to dst: one HEADERS
// frame, and CONTINUATION frames after it when the block is longer than
// the peer's SETTINGS_MAX_FRAME_SIZE, with END_STREAM when endStream is
// set. It moves the stream's state; ErrSendState when the state does not
// allow HEADERS (dst is unchanged then).
func (c *Conn) AppendHeaders(dst []byte, id uint32, block []byte, endStream bool) ([]byte, error) {
	if c.err != nil {
		return dst, ErrConnFailed
	}
	s := c.streams[id]
	if s == nil {
		return dst, ErrSendState
	}
	st, ok := s.state.Send(FrameHeaders, endStream)
	if !ok {
		return dst, ErrSendState
	}
	max := int(c.peer.MaxFrameSize)
	first := block[:min(len(block), max)]
	rest := block[len(first):]
	dst, _ = AppendHeaders(dst, id, endStream, len(rest) == 0, first)
	for len(rest) > 0 {
		frag := rest[:min(len(rest), max)]
		rest = rest[len(frag):]
		dst, _ = AppendContinuation(dst, id, len(rest) == 0, frag)
	}
	c.setState(s, st)
	return dst, nil
}

// AppendData appends DATA frames on stream id carrying as much of data as
// the windows allow, each at most the peer's SETTINGS_MAX_FRAME_SIZE, and
// returns how many bytes of data went. END_STREAM goes on the last frame
// when endStream is set and all of data went (an empty data with
// endStream appends one empty frame, which no window limits). ErrSendState
// when the stream cannot send DATA.
func (c *Conn) AppendData(dst []byte, id uint32, data []byte, endStream bool) ([]byte, int, error) {
	if c.err != nil {
		return dst, 0, ErrConnFailed
	}
	s := c.streams[id]
	if s == nil || s.state == StateIdle {
		return dst, 0, ErrSendState
	}
	st, ok := s.state.Send(FrameData, endStream)
	if !ok {
		return dst, 0, ErrSendState
	}
	n := min(len(data), int(max(min(s.sendWin, c.sendWin), 0)))
	max := int(c.peer.MaxFrameSize)
	sent := 0
	for {
		k := min(n-sent, max)
		last := sent+k == n
		end := endStream && last && n == len(data)
		if k == 0 && !end {
			break
		}
		dst, _ = AppendData(dst, id, end, data[sent:sent+k])
		sent += k
		if last {
			break
		}
	}
	s.sendWin -= int64(sent)
	c.sendWin -= int64(sent)
	if endStream && sent == len(data) {
		c.setState(s, st)
	}
	return dst, sent, nil
}

// AppendReset is Reset for a caller that writes its own frames: the
// RST_STREAM goes to dst, not Pending.
func (c *Conn) AppendReset(dst []byte, id uint32, code ErrCode) []byte {
	s := c.streams[id]
	if s == nil || c.err != nil {
		return dst
	}
	dst, _ = AppendRSTStream(dst, id, code)
	c.setState(s, StateClosedByLocalReset)
	return dst
}
