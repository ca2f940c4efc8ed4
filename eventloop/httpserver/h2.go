package httpserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec/hpack"
	"github.com/netkit/netkit/codec/http1"
	"github.com/netkit/netkit/codec/http2"
	"github.com/netkit/netkit/eventloop"
)

// WithH2C serves HTTP/2 over cleartext TCP (h2c, RFC 9113 §3.3) beside
// HTTP/1.1: a connection whose first bytes are HTTP/2's client preface
// ("prior knowledge") speaks HTTP/2 from then on, and so does one whose
// HTTP/1.1 request asks for it with "Upgrade: h2c" and one HTTP2-Settings
// field (RFC 7540 §3.2; curl --http2 does): the server answers 101, then
// the request is stream 1 of the HTTP/2 connection. A connection whose
// first line is neither HTTP/1.x nor the preface is closed unanswered.
// An HTTP/2 connection with no stream open for the idle timeout
// (WithIdleTimeout), or whose preface has not come within the header
// timeout (WithReadHeaderTimeout), is closed with GOAWAY; Server.Shutdown sends GOAWAY to every
// HTTP/2 connection and closes each once its streams are done. Each request, from any
// of its streams, goes to the same Handler as an HTTP/1.1 request: an
// http1.Request (Minor 1, with the :authority as Host) and an
// http1.ResponseWriter, whose response the server sends as HEADERS and
// DATA frames within the peer's flow-control windows. The limits are
// codec/http2's defaults: 100 concurrent streams, a 256 KiB stream
// window and 1 MiB for the connection, 64 KiB header blocks and lists,
// and the http1.Decoder's MaxBodySize for a request body.
//
// Detach works as over HTTP/1.1, streams too (Detached.Write and Flush
// block the producer until the client's windows have taken what it
// wrote), and so does Adapt: net/http handlers see Proto "HTTP/2.0". Not
// over HTTP/2: WithStreamedBodies (a body comes whole, up to MaxBodySize),
// Upgrade (it returns an error), and 1xx responses (dropped).
func WithH2C() Option { return func(o *options) { o.h2c = true } }

// prefaceState says whether in starts with HTTP/2's client preface.
func prefaceState(in *buf.Composite) int {
	const p = http2.ClientPreface
	n := 0
	for off := 0; off < in.Len() && n < len(p); {
		s := in.Span(off)
		k := min(len(s), len(p)-n)
		if string(s[:k]) != p[n:n+k] {
			return prefaceNo
		}
		n += k
		off += len(s)
	}
	if n < len(p) {
		return prefaceShort
	}
	return prefaceYes
}

// http1Line reports whether in's first line, as far as its first
// component holds it, ends like an HTTP/1.x request line.
func http1Line(in *buf.Composite) bool {
	p := in.Span(0)
	if i := bytes.IndexByte(p, '\n'); i >= 0 {
		p = bytes.TrimSuffix(p[:i], []byte("\r"))
	} else {
		return true // not all there: let HTTP/1.1 answer
	}
	return bytes.HasSuffix(p, []byte(" HTTP/1.1")) || bytes.HasSuffix(p, []byte(" HTTP/1.0"))
}

const (
	prefaceNo = iota
	prefaceShort
	prefaceYes
)

// switchH2 turns the connection over to HTTP/2: in starts with the
// preface.
func (c *conn) switchH2(x *eventloop.Context, in *buf.Composite) {
	h := c.toH2(x, newH2Conn(c.s, x.Conn()))
	if h != nil {
		h.OnRead(h.x, in)
	}
}

// toH2 puts h in the HTTP/1 handler's place in the pipeline; nil when it
// cannot (the connection is closed then).
func (c *conn) toH2(x *eventloop.Context, h *h2conn) *h2conn {
	c.upgraded = true
	if c.timerAt != 0 {
		c.timer.Cancel()
		c.timerAt = 0
	}
	c.releasePending()
	c.req.Release()
	c.dec, c.req = nil, http1.Request{} // HTTP/1's state is not needed again
	p := x.Conn().Pipeline()
	if err := p.AddLast("h2", h); err != nil {
		x.Conn().Close()
		return nil
	}
	p.Remove("http1")
	h.x = p.Context("h2")
	return h
}

// h2cSettings returns the decoded HTTP2-Settings of a request that asks to
// upgrade to h2c (RFC 7540 §3.2): an Upgrade field naming h2c and exactly
// one HTTP2-Settings field, base64url.
func h2cSettings(req *http1.Request) ([]byte, bool) {
	if !req.Upgrade || req.Minor != 1 || req.BodyFollows {
		return nil, false
	}
	var settings []byte
	n, h2c := 0, false
	for _, f := range req.Headers {
		switch {
		case equalFold(f.Name, "http2-settings"):
			n++
			settings = f.Value
		case equalFold(f.Name, "upgrade"):
			for _, tok := range bytes.Split(f.Value, []byte(",")) {
				if equalFold(bytes.TrimSpace(tok), "h2c") {
					h2c = true
				}
			}
		}
	}
	if !h2c || n != 1 {
		return nil, false
	}
	p, err := base64.RawURLEncoding.DecodeString(string(bytes.TrimRight(settings, "=")))
	return p, err == nil
}

// equalFold reports whether b is s in any ASCII case (s lower-case).
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

var upgradeH2C = http1.ResponseHeader{Status: 101, Headers: []http1.Header{
	{Name: []byte("Connection"), Value: []byte("Upgrade")}, {Name: []byte("Upgrade"), Value: []byte("h2c")}}}

// upgradeH2 switches to HTTP/2 after the request being served, which asked
// for h2c with settings: a 101, then the server's SETTINGS, and the request
// answered as stream 1. It returns false, having done nothing, when the
// settings are refused: the request is then served as HTTP/1.1.
func (c *conn) upgradeH2(x *eventloop.Context, in *buf.Composite, settings []byte) bool {
	h := newH2Conn(c.s, x.Conn())
	if h.c.Upgrade(settings) != nil {
		return false
	}
	w := &c.w
	w.Begin(&c.req)
	if w.WriteHeader(&upgradeH2C) != nil {
		w.AbortResponse()
		return false
	}
	c.take(w)
	c.reqs++
	s := h.streamFromHTTP1(&c.req)
	if c.toH2(x, h) == nil {
		return true
	}
	h.out = h.c.Pending(h.out[:0]) // the server's SETTINGS first
	h.ready(s)
	h.flush(h.x)
	if in.Len() > 0 {
		h.OnRead(h.x, in) // the client's preface, if it came already
	}
	return true
}

// streamFromHTTP1 makes stream 1 of an upgraded connection from the
// HTTP/1.1 request, whose fields are copied (connection-specific ones and
// Host, which becomes the authority, left out).
func (h *h2conn) streamFromHTTP1(req *http1.Request) *h2stream {
	s := &h2stream{id: 1, cl: -1}
	h.addStream(s)
	h.hs, h.kind = s, hpack.Headers
	h.emit([]byte(":method"), req.RawMethod, false)
	h.emit([]byte(":scheme"), []byte("http"), false)
	h.emit([]byte(":path"), req.Target, false)
	h.emit([]byte(":authority"), req.Host, false)
	var lower []byte
	for _, f := range req.Headers {
		lower = append(lower[:0], f.Name...)
		for i, b := range lower {
			if 'A' <= b && b <= 'Z' {
				lower[i] = b + 'a' - 'A'
			}
		}
		switch string(lower) {
		case "connection", "upgrade", "http2-settings", "keep-alive", "proxy-connection", "transfer-encoding", "te", "host":
			continue
		}
		h.emit(lower, f.Value, false)
	}
	h.hs = nil
	s.body = append([]byte(nil), req.Body...)
	h.bodyBytes += len(s.body)
	if s.cl >= 0 && s.cl != int64(len(s.body)) {
		s.cl = int64(len(s.body)) // a chunked body, de-chunked
	}
	s.headed, s.ended = true, true
	return s
}

// h2conn serves one HTTP/2 connection.
type h2conn struct {
	s   *Server
	cn  *eventloop.Conn
	c   *http2.Conn
	blk http2.Block
	hd  hpack.Decoder
	he  hpack.Encoder

	maxBody int64
	streams map[uint32]*h2stream
	blocked []*h2stream // streams with body bytes waiting for a window

	// The header block being decoded: its stream (nil: decoded and
	// dropped), its kind (below), the first field error.
	hs   *h2stream
	herr error

	*h2Scratch // the loop's: used within one event only
	x          *eventloop.Context

	// The Handler running, for Detach (see detachH2).
	running *h2stream
	current *Detached
	ctx     context.Context // cancelled when the connection closes; made at the first use
	cancel  context.CancelFunc
	remote  string

	// Limits (see the max… constants).
	empty     int // empty DATA frames in a row
	resets    int // streams the client reset while they were worked on, less those answered since
	bodyBytes int // request body bytes buffered
	pendBytes int // response body bytes waiting for windows
	unholds   int // Holds to undo at the next flush

	// The idle timeout: the connection closes, with GOAWAY, after the
	// server's idle timeout with no stream open (the header timeout
	// until the client's preface has come).
	idleSince int64
	timer     eventloop.Timer
	timerAt   int64
	pending   *buf.Composite // input kept while reading is paused

	// The small fields together, unpadded: 10,000 idle connections are
	// 2.5 MiB heavier when the struct passes 2 KiB (the next size class).
	dec       http2.Decoder
	kind      hpack.Block
	preface   bool
	paused    bool
	closing   bool
	dead      bool // the connection has closed
	inHandler bool
	timerOn   bool
}

// Limits of an HTTP/2 connection.
const (
	// maxEmptyFrames bounds the empty DATA frames without END_STREAM a
	// client may send in a row (ENHANCE_YOUR_CALM beyond).
	maxEmptyFrames = 100
	// maxResets bounds the streams a client may reset while they are
	// worked on, less one for each stream answered (ENHANCE_YOUR_CALM
	// beyond).
	maxResets = 1000
	// maxConnBodies bounds the request bodies a connection buffers, all
	// streams together; a stream that would pass it is refused
	// (REFUSED_STREAM, which a client may retry).
	maxConnBodies = 16 << 20
	// maxPendingOut bounds the response bytes a connection holds for the
	// client's windows: above it new streams are refused.
	maxPendingOut = 4 << 20
)

// h2Scratch is what an h2conn needs during one event only, shared by the
// connections of a loop (one event runs at a time on a loop): idle
// connections hold none of it.
type h2Scratch struct {
	out    []byte // frames to send, gathered during one event
	resp   []byte // the response the Handler wrote, as HTTP/1.1
	fields []hpack.Field
	block  []byte
	w      http1.ResponseWriter
}

// h2stream is one request's state.
type h2stream struct {
	id        uint32
	req       http1.Request
	arena     []byte  // header names and values, copied out of the decoder
	spans     []int32 // per field: name start, name end, value end
	tspans    []int32 // trailer fields, the same way
	pseudo    [4][2]int32
	body      []byte
	cl        int64 // the content-length field, -1 when none
	headed    bool  // the request's header block is complete
	ended     bool  // END_STREAM arrived
	handled   bool
	pend      []byte        // response body bytes waiting for window
	pendFinal bool          // the body ends with them
	trail     []hpack.Field // trailers to send after the body
	headSent  bool          // the response's HEADERS went
	chunked   bool          // the response, as written, is chunked
	noBody    bool          // HEAD, 204, 304: no DATA
	d         *Detached     // the Detached answering it, until Done's response is sent
}

const (
	psMethod = iota
	psPath
	psAuthority
	psScheme
)

func newH2Conn(s *Server, cn *eventloop.Conn) *h2conn {
	h := &h2conn{s: s, cn: cn, c: http2.NewConn(http2.Config{}), streams: make(map[uint32]*h2stream)}
	h.dec.MaxFrameSize = h.c.Local().MaxFrameSize
	h.hd.Validate = hpack.Request
	h.hd.MaxHeaderListSize = int(h.c.Local().MaxHeaderListSize)
	var d http1.Decoder
	for _, set := range s.opts.decoder {
		set(&d)
	}
	h.maxBody = d.MaxBodySize
	if h.maxBody <= 0 {
		h.maxBody = http1.DefaultMaxBodySize
	}
	st := s.loops[cn.Loop()]
	if st.h2 == nil {
		st.h2 = &h2Scratch{}
		st.h2conns = make(map[*h2conn]struct{})
		st.h2.w.Dates = &st.dates
		st.h2.w.BufferSize = responseBuffer
	}
	h.h2Scratch = st.h2
	st.h2conns[h] = struct{}{}
	h.idleSince = cn.Loop().Now().UnixNano()
	h.arm(s.timeouts.header)
	return h
}

// OnRead serves the frames in in.
func (h *h2conn) OnRead(x *eventloop.Context, msg any) {
	in, ok := msg.(*buf.Composite)
	if !ok {
		x.FireRead(msg)
		return
	}
	if h.closing {
		in.Discard(in.Len())
		return
	}
	if h.pending != nil {
		moveAll(h.pending, in)
		in = h.pending
	}
	h.read(x, in)
}

// read serves the frames in in; what is left when reading pauses is
// kept in pending.
func (h *h2conn) read(x *eventloop.Context, in *buf.Composite) {
	h.out = h.out[:0] // the loop's: every event ends with flush

	if !h.preface {
		switch prefaceState(in) {
		case prefaceShort:
			return
		case prefaceNo:
			h.c.Fail(http2.CodeProtocol, "no client preface")
			h.fail(x)
			return
		}
		in.Discard(len(http2.ClientPreface))
		h.preface = true
	}
	var f http2.Frame
	for !h.closing && !h.paused {
		err := h.dec.Decode(in, &f)
		if err == http2.ErrShort {
			break
		}
		if err == nil {
			err = h.frame(&f)
		} else if v := http2.ViolationOf(err); v != nil && v.Stream {
			// The frame was consumed; its place in a block still counts.
			if _, _, berr := h.blk.Next(&f); berr != nil {
				err = berr
			}
			h.c.Refuse(f.StreamID, err)
			h.drop(f.StreamID)
			err = nil
		}
		if err != nil {
			h.c.Refuse(f.StreamID, err)
		}
		if h.c.Err() != nil {
			h.fail(x)
			return
		}
	}
	h.flush(x)
	if h.paused && in != h.pending && in.Len() > 0 {
		h.pending = buf.NewComposite()
		moveAll(h.pending, in)
	} else if in == h.pending && in.Len() == 0 {
		h.pending.Release()
		h.pending = nil
	}
}

// frame handles one decoded frame; a returned error ends the connection.
func (h *h2conn) frame(f *http2.Frame) error {
	frag, end, err := h.blk.Next(f)
	if err != nil {
		return err
	}
	ev, err := h.c.Recv(f)
	// What the Conn owes (an ACK, say) goes before what this frame
	// makes the server send.
	h.out = h.c.Pending(h.out)
	if err != nil && http2.ViolationOf(err).Stream {
		h.drop(f.StreamID)
		err = nil
	}
	if err != nil {
		return err
	}
	switch f.Type {
	case http2.FrameHeaders:
		h.hs, h.kind, h.herr = nil, hpack.Headers, nil
		switch ev {
		case http2.EventStream:
			h.empty = 0
			s := &h2stream{id: f.StreamID, cl: -1}
			h.addStream(s)
			h.hs = s
			if h.pendBytes > maxPendingOut {
				// Responses wait for the client's windows: take no new
				// request until they go (it may be retried).
				h.reset(s.id, http2.CodeRefusedStream)
			}
		case http2.EventHeaders:
			h.kind = hpack.Trailers
			if s := h.streams[f.StreamID]; s != nil && s.headed && !s.ended {
				h.hs = s
			}
			if !f.EndStream() {
				// A second header block must end the stream (§8.1).
				h.reset(f.StreamID, http2.CodeProtocol)
			}
		}
		if h.hs != nil && f.EndStream() {
			h.hs.ended = true
		}
		return h.fragment(frag, end)
	case http2.FrameContinuation:
		return h.fragment(frag, end)
	case http2.FrameData:
		s := h.streams[f.StreamID]
		if ev != http2.EventData || s == nil {
			return nil
		}
		if len(f.Data) == 0 && !f.EndStream() {
			// An empty DATA frame moves nothing: many in a row are a
			// flood (CVE-2019-9518).
			h.empty++
			if h.empty > maxEmptyFrames {
				return h.c.Fail(http2.CodeEnhanceYourCalm, "too many empty DATA frames")
			}
			return nil
		}
		h.empty = 0
		h.c.Consumed(f.StreamID, len(f.Data))
		if int64(len(s.body)+len(f.Data)) > h.maxBody {
			h.respondStatus(s, 413)
			return nil
		}
		if h.bodyBytes+len(f.Data) > maxConnBodies {
			// The bodies buffered on this connection are at their
			// bound: this stream may be retried.
			h.reset(s.id, http2.CodeRefusedStream)
			return nil
		}
		h.bodyBytes += len(f.Data)
		s.body = append(s.body, f.Data...)
		if f.EndStream() {
			s.ended = true
			h.ready(s)
		}
	case http2.FrameSettings:
		if ev == http2.EventSettings {
			h.he.SetMaxTableSize(int(h.c.Peer().HeaderTableSize))
			h.unblock() // SETTINGS_INITIAL_WINDOW_SIZE may have grown the windows
		}
	case http2.FrameRSTStream:
		if ev == http2.EventReset && h.streams[f.StreamID] != nil {
			// A stream reset while the server still worked on it:
			// streams opened and reset faster than they are answered
			// are a flood (CVE-2023-44487). Each answered stream earns
			// one back.
			h.resets++
			if h.resets > maxResets {
				return h.c.Fail(http2.CodeEnhanceYourCalm, "too many streams reset")
			}
			h.drop(f.StreamID)
		}
	case http2.FrameWindowUpdate:
		if ev == http2.EventWindow {
			h.unblock()
		}
	case http2.FrameGoAway:
		// The client stops; streams it opened still get answers.
	}
	return nil
}

// fragment feeds a header block fragment to the HPACK decoder, which the
// whole connection shares: even a dropped stream's block is decoded.
func (h *h2conn) fragment(frag []byte, end bool) error {
	err := h.hd.DecodeFragment(h.kind, frag, end, h.emit)
	if err != nil && !hpack.IsStreamError(err) {
		return h.c.Fail(http2.CodeCompression, err.Error())
	}
	if err != nil && h.herr == nil {
		h.herr = err
	}
	if !end {
		return nil
	}
	s := h.hs
	h.hs = nil
	if s == nil {
		return nil
	}
	if h.herr != nil {
		if h.kind == hpack.Headers && errorsIsList(h.herr) {
			h.respondStatus(s, 431)
			return nil
		}
		h.reset(s.id, http2.CodeProtocol)
		return nil
	}
	if h.kind == hpack.Headers {
		s.headed = true
	}
	if s.ended {
		h.ready(s)
	}
	return nil
}

func errorsIsList(err error) bool {
	var fe *hpack.FieldError
	if e, ok := err.(*hpack.FieldError); ok {
		fe = e
	}
	return fe != nil && (fe.Kind == hpack.ErrListTooLarge || fe.Kind == hpack.ErrTooManyFields)
}

// emit copies one decoded field into the stream's arena.
func (h *h2conn) emit(name, value []byte, _ bool) error {
	s := h.hs
	if s == nil {
		return nil
	}
	start := int32(len(s.arena))
	s.arena = append(s.arena, name...)
	s.arena = append(s.arena, value...)
	nameEnd, valEnd := start+int32(len(name)), int32(len(s.arena))
	if h.kind == hpack.Trailers {
		s.tspans = append(s.tspans, start, nameEnd, valEnd)
		return nil
	}
	if len(name) > 0 && name[0] == ':' {
		i := -1
		switch string(name) {
		case ":method":
			i = psMethod
		case ":path":
			i = psPath
		case ":authority":
			i = psAuthority
		case ":scheme":
			i = psScheme
		}
		if i >= 0 {
			s.pseudo[i] = [2]int32{nameEnd, valEnd}
		}
		return nil
	}
	if string(name) == "content-length" {
		n, err := strconv.ParseInt(string(value), 10, 64)
		if err != nil || n < 0 || s.cl >= 0 && s.cl != n {
			return errBadLength
		}
		s.cl = n
	}
	s.spans = append(s.spans, start, nameEnd, valEnd)
	return nil
}

var errBadLength = &hpack.FieldError{Kind: hpack.ErrValueInvalid, Field: "content-length", Index: -1}

// ready runs the Handler once a stream's request is whole.
func (h *h2conn) ready(s *h2stream) {
	if !s.headed || s.handled {
		return
	}
	if s.cl >= 0 && s.cl != int64(len(s.body)) {
		// §8.1.1: the body's length must match content-length.
		h.reset(s.id, http2.CodeProtocol)
		return
	}
	s.handled = true
	h.build(s)
	h.serve(s)
}

// build fills the stream's http1.Request from its fields.
func (h *h2conn) build(s *h2stream) {
	r := &s.req
	a := s.arena
	ps := func(i int) []byte { return a[s.pseudo[i][0]:s.pseudo[i][1]] }
	r.RawMethod = ps(psMethod)
	r.Method = methodOf(r.RawMethod)
	r.Target = ps(psPath)
	r.Path, r.Query = r.Target, nil
	if i := bytes.IndexByte(r.Target, '?'); i >= 0 {
		r.Path, r.Query = r.Target[:i], r.Target[i+1:]
	}
	r.Minor = 1
	r.KeepAlive = true
	r.Host = ps(psAuthority)
	for i := 0; i < len(s.spans); i += 3 {
		f := http1.Header{Name: a[s.spans[i]:s.spans[i+1]], Value: a[s.spans[i+1]:s.spans[i+2]]}
		if r.Host == nil && string(f.Name) == "host" {
			r.Host = f.Value
		}
		r.Headers = append(r.Headers, f)
	}
	for i := 0; i < len(s.tspans); i += 3 {
		r.Trailers = append(r.Trailers, http1.Header{Name: a[s.tspans[i]:s.tspans[i+1]], Value: a[s.tspans[i+1]:s.tspans[i+2]]})
	}
	r.Body = s.body
	r.ContentLength = int64(len(s.body))
}

func methodOf(m []byte) http1.Method {
	switch string(m) {
	case "GET":
		return http1.MethodGet
	case "HEAD":
		return http1.MethodHead
	case "POST":
		return http1.MethodPost
	case "PUT":
		return http1.MethodPut
	case "DELETE":
		return http1.MethodDelete
	case "CONNECT":
		return http1.MethodConnect
	case "OPTIONS":
		return http1.MethodOptions
	case "TRACE":
		return http1.MethodTrace
	case "PATCH":
		return http1.MethodPatch
	}
	return http1.MethodOther
}

// serve runs the Handler and sends its response on the stream, or, when
// the Handler detached it, leaves the stream to the Detached.
func (h *h2conn) serve(s *h2stream) {
	w := &h.w
	w.Begin(&s.req)
	w.Owner = h
	h.inHandler, h.running = true, s
	ok := h.run(w, s)
	h.inHandler, h.running = false, nil
	w.Owner = nil
	d := h.current
	h.current = nil
	if d != nil && ok {
		// Detached: what the Handler wrote to w after Detach is dropped.
		w.AbortResponse()
		releaseAll(takeAll(w, nil))
		w.Begin(nil)
		s.d = d
		h.cn.Hold() // Shutdown waits for it
		return
	}
	if d != nil {
		d.state.CompareAndSwap(dOpen, dDead) // panicked after Detach
		d.gone = true
	}
	if ok {
		switch {
		case w.Open():
			if w.End(nil) != nil {
				ok = false
			}
		case !w.Answered():
			w.Respond(&noResponse, noResponseBody)
		}
	}
	h.resp = h.resp[:0]
	for b := w.Take(); b != nil; b = w.Take() {
		h.resp = append(h.resp, b.Bytes()...)
		b.Release()
	}
	w.Begin(nil) // the writer keeps no stream
	if !ok {
		h.reset(s.id, http2.CodeInternal)
		return
	}
	h.sendHTTP1(s, h.resp, true)
}

// takeAll appends the buffers w holds to bufs.
func takeAll(w *http1.ResponseWriter, bufs []*buf.Buffer) []*buf.Buffer {
	for b := w.Take(); b != nil; b = w.Take() {
		bufs = append(bufs, b)
	}
	return bufs
}

// run calls the Handler, stopping a panic (the stream is reset).
func (h *h2conn) run(w *http1.ResponseWriter, s *h2stream) (ok bool) {
	defer func() {
		if ok {
			return
		}
		v := recover()
		w.AbortResponse()
		if v == nil {
			return // runtime.Goexit
		}
		p := &HandlerPanic{Value: v, Stack: debug.Stack()}
		if h.cn.Loop().Execute(func() { panic(p) }) != nil {
			panic(p)
		}
	}()
	h.s.h(w, &s.req)
	return true
}

// respondStatus answers a stream with a bare status, without the Handler.
func (h *h2conn) respondStatus(s *h2stream, status int) {
	s.handled = true
	hdr := http1.ResponseHeader{Status: status}
	w := &h.w
	w.Begin(nil)
	w.Respond(&hdr, nil)
	h.resp = h.resp[:0]
	for b := w.Take(); b != nil; b = w.Take() {
		h.resp = append(h.resp, b.Bytes()...)
		b.Release()
	}
	h.sendHTTP1(s, h.resp, true)
	if h.c.State(s.id) != http2.StateHalfClosedRemote {
		h.reset(s.id, http2.CodeNo) // stop the rest of the body
	}
}

// sendHTTP1 turns what the writer wrote of a response, as HTTP/1.1, into
// frames: the head (its first part) into HEADERS, without 1xx responses
// and connection-specific fields; the body into DATA within the windows;
// a chunked body's trailers, at its end, into HEADERS. final says the
// response ends with p (else more comes from a Flush).
func (h *h2conn) sendHTTP1(s *h2stream, p []byte, final bool) {
	body := p
	if !s.headSent {
		var status int
		var fields []byte
		var ok bool
		for {
			var rest []byte
			status, fields, body, rest, s.chunked, ok = splitResponse(p)
			if !ok {
				h.reset(s.id, http2.CodeInternal)
				return
			}
			if status >= 200 {
				break
			}
			p = rest
		}
		h.fields = h.fields[:0]
		h.fields = append(h.fields, hpack.Field{Name: ":status", Value: strconv.Itoa(status)})
		for len(fields) > 0 {
			eol := bytes.Index(fields, crlf)
			line := fields[:eol]
			fields = fields[eol+2:]
			colon := bytes.IndexByte(line, ':')
			name := bytes.ToLower(line[:colon])
			switch string(name) {
			case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade":
				continue
			}
			h.fields = append(h.fields, hpack.Field{Name: string(name), Value: string(bytes.TrimSpace(line[colon+1:]))})
		}
		s.headSent = true
		s.noBody = s.req.Method == http1.MethodHead || status == 204 || status == 304
		if final {
			s.setTrailers(nil)
			body = h.bodyOf(s, body)
		}
		h.block = h.he.AppendFields(h.block[:0], h.fields)
		var err error
		end := final && len(body) == 0 && len(s.trail) == 0
		h.out, err = h.c.AppendHeaders(h.out, s.id, h.block, end)
		if err != nil {
			h.drop(s.id) // reset meanwhile
			return
		}
		if end {
			h.finish(s)
			return
		}
		if final {
			h.sendBody(s, body, true)
			return
		}
	} else if final {
		body = h.bodyOf(s, body)
		h.sendBody(s, body, true)
		return
	}
	// A part of a streamed body.
	if s.chunked {
		body, _ = dechunk(body)
	}
	if s.noBody {
		body = nil
	}
	h.sendBody(s, body, false)
}

// bodyOf returns the body bytes of the last part of a response, and keeps
// its trailers in s.
func (h *h2conn) bodyOf(s *h2stream, body []byte) []byte {
	var trailers []byte
	if s.chunked {
		body, trailers = dechunk(body)
	}
	if s.noBody {
		body, trailers = nil, nil
	}
	s.setTrailers(trailers)
	return body
}

// setTrailers keeps a chunked body's trailer lines as fields to send.
func (s *h2stream) setTrailers(trailers []byte) {
	s.trail = s.trail[:0]
	for len(trailers) > 0 {
		eol := bytes.Index(trailers, crlf)
		if eol < 0 {
			break
		}
		line := trailers[:eol]
		trailers = trailers[eol+2:]
		if colon := bytes.IndexByte(line, ':'); colon > 0 {
			s.trail = append(s.trail, hpack.Field{Name: string(bytes.ToLower(line[:colon])), Value: string(bytes.TrimSpace(line[colon+1:]))})
		}
	}
}

var crlf = []byte("\r\n")

// splitResponse splits the first response of p: status, the field lines
// (each ending in CRLF), the body and the bytes after it.
func splitResponse(p []byte) (status int, fields, body, rest []byte, chunked, ok bool) {
	end := bytes.Index(p, []byte("\r\n\r\n"))
	if end < 0 || len(p) < 12 {
		return 0, nil, nil, nil, false, false
	}
	status, err := strconv.Atoi(string(p[9:12]))
	if err != nil {
		return 0, nil, nil, nil, false, false
	}
	line := bytes.Index(p, crlf)
	fields = p[line+2 : end+2]
	if line+2 > end+2 {
		fields = nil
	}
	body = p[end+4:]
	if status < 200 {
		return status, fields, nil, body, false, true
	}
	lower := bytes.ToLower(fields)
	chunked = bytes.Contains(lower, []byte("transfer-encoding: chunked"))
	if i := bytes.Index(lower, []byte("content-length: ")); i >= 0 && !chunked {
		j := i + len("content-length: ")
		k := bytes.Index(lower[j:], crlf)
		n, err := strconv.Atoi(string(lower[j : j+k]))
		if err == nil && n <= len(body) {
			body = body[:n]
		}
	}
	return status, fields, body, nil, chunked, true
}

// dechunk returns a chunked body's data and its trailer lines (each
// ending in CRLF).
func dechunk(p []byte) (out, trailers []byte) {
	for len(p) > 0 {
		eol := bytes.Index(p, crlf)
		if eol < 0 {
			break
		}
		size := p[:eol]
		if i := bytes.IndexByte(size, ';'); i >= 0 {
			size = size[:i]
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(size)), 16, 64)
		if err == nil && n == 0 {
			trailers = p[eol+2:]
			if len(trailers) >= 2 {
				trailers = trailers[:len(trailers)-2] // the final CRLF
			}
			break
		}
		if err != nil || int64(len(p)-eol-2) < n {
			break
		}
		out = append(out, p[eol+2:eol+2+int(n)]...)
		p = p[eol+2+int(n):]
		if len(p) >= 2 {
			p = p[2:]
		}
	}
	return out, trailers
}

// sendBody sends as much of body as the windows allow and keeps the rest
// for later; final says the body ends with it (its trailers, if any, go
// after it).
func (h *h2conn) sendBody(s *h2stream, body []byte, final bool) {
	if len(s.pend) > 0 {
		// Behind what waits already.
		h.pendBytes += len(body)
		s.pend = append(s.pend, body...)
		s.pendFinal = final
		return
	}
	var n int
	var err error
	h.out, n, err = h.c.AppendData(h.out, s.id, body, final && len(s.trail) == 0)
	if err != nil {
		h.drop(s.id)
		return
	}
	if n < len(body) {
		s.pend = append(s.pend[:0:0], body[n:]...)
		h.pendBytes += len(s.pend)
		s.pendFinal = final
		h.blocked = append(h.blocked, s)
		return
	}
	if final {
		h.done(s)
	}
}

// done ends a stream whose body has gone: its trailers, if any, go now
// (encoded now, so that the HPACK blocks go in the order encoded).
func (h *h2conn) done(s *h2stream) {
	if len(s.trail) > 0 {
		h.block = h.he.AppendFields(h.block[:0], s.trail)
		h.out, _ = h.c.AppendHeaders(h.out, s.id, h.block, true)
		s.trail = nil
	}
	h.finish(s)
}

// unblock sends what the windows now allow of the bodies waiting, and
// lets a streaming producer whose bytes have all gone go on.
func (h *h2conn) unblock() {
	keep := h.blocked[:0]
	for _, s := range h.blocked {
		if h.streams[s.id] != s || len(s.pend) == 0 {
			continue
		}
		n := 0
		var err error
		h.out, n, err = h.c.AppendData(h.out, s.id, s.pend, s.pendFinal && len(s.trail) == 0)
		if err != nil {
			h.forget(s)
			continue
		}
		s.pend = s.pend[n:]
		h.pendBytes -= n
		if len(s.pend) > 0 {
			keep = append(keep, s)
			continue
		}
		s.pend = nil
		if s.pendFinal {
			h.done(s)
		} else {
			h.resume(s)
		}
	}
	clear(h.blocked[len(keep):])
	h.blocked = keep
}

// finish forgets a stream once its response is out.
func (h *h2conn) finish(s *h2stream) {
	if h.resets > 0 {
		h.resets--
	}
	h.forget(s)
}

// addStream files a new stream. A connection with streams open holds
// itself (eventloop.Conn.Hold): Server.Shutdown does not close it while a
// request is on its way in or a response waits for the client's windows.
func (h *h2conn) addStream(s *h2stream) {
	if len(h.streams) == 0 {
		h.cn.Hold()
	}
	h.streams[s.id] = s
}

// arm makes sure the idle check runs by d after idleSince (d 0: off).
func (h *h2conn) arm(d time.Duration) {
	if d <= 0 {
		return
	}
	at := h.idleSince + int64(d)
	if h.timerOn {
		if h.timerAt <= at {
			return // it looks in time, and looks again if need be
		}
		h.timer.Cancel()
	}
	h.timerOn, h.timerAt = true, at
	h.timer = h.cn.Loop().Schedule(time.Duration(at-h.cn.Loop().Now().UnixNano()), h.expire)
}

// expire closes the connection, with GOAWAY, when it has had no stream
// for the idle timeout (the header timeout while the preface is awaited);
// else it looks again when that time would be up.
func (h *h2conn) expire() {
	h.timerOn = false
	if h.dead || h.closing || len(h.streams) > 0 {
		return
	}
	d := h.s.timeouts.idle
	if !h.preface {
		d = h.s.timeouts.header
	}
	if d <= 0 {
		return
	}
	left := time.Duration(h.idleSince + int64(d) - h.cn.Loop().Now().UnixNano())
	if left > 0 {
		h.timerOn, h.timerAt = true, h.idleSince+int64(d)
		h.timer = h.cn.Loop().Schedule(left, h.expire)
		return
	}
	h.out = h.out[:0]
	h.c.GoAway(h.c.LastPeerStream(), http2.CodeNo, []byte("idle"))
	h.flush(h.x)
	h.closing = true
	h.cn.Close()
}

// goAway tells the client, at Server.Shutdown, that no new stream will be
// processed (GOAWAY with the last stream it opened): the streams open
// finish, then the connection closes once idle.
func (h *h2conn) goAway() {
	if h.dead || h.closing || h.x == nil {
		return
	}
	h.out = h.out[:0]
	h.c.GoAway(h.c.LastPeerStream(), http2.CodeNo, nil)
	h.flush(h.x)
}

// forget drops a stream's record and what it holds; a Detached still
// answering it learns that its stream has gone.
func (h *h2conn) forget(s *h2stream) {
	if d := s.d; d != nil {
		s.d = nil
		h.unholds++
		if !d.state.CompareAndSwap(dOpen, dDead) && d.ready {
			d.w.Abort()
		}
		d.gone = true
		if d.waiting {
			d.waiting = false
			d.resume <- ErrConnClosed
		}
		if d.cancel != nil {
			d.cancel()
		}
	}
	delete(h.streams, s.id)
	if len(h.streams) == 0 {
		h.unholds++ // after flush: the last frames are not out yet
		h.idleSince = h.cn.Loop().Now().UnixNano()
		h.arm(h.s.timeouts.idle)
	}
	h.bodyBytes -= len(s.body)
	h.pendBytes -= len(s.pend)
	s.body, s.pend = nil, nil
	s.req.Release()
	if h.hs == s {
		h.hs = nil
	}
}

// reset resets a stream and forgets it.
func (h *h2conn) reset(id uint32, code http2.ErrCode) {
	h.c.Reset(id, code)
	h.drop(id)
}

// drop forgets a stream the Conn has closed.
func (h *h2conn) drop(id uint32) {
	if s := h.streams[id]; s != nil {
		h.forget(s)
	}
}

// flush writes what the connection owes, then undoes the Holds of the
// streams that ended (an Unhold may close a draining connection: only
// once their last frames are queued).
func (h *h2conn) flush(x *eventloop.Context) {
	defer h.unhold()
	h.out = h.c.Pending(h.out)
	if len(h.out) == 0 {
		return
	}
	b := buf.Get(len(h.out))
	b.Write(h.out)
	h.out = h.out[:0]
	x.Write(b)
	x.Flush()
	if !x.Conn().Writable() && !h.paused {
		// The client does not read: read no more until it does.
		h.paused = true
		x.Conn().PauseRead()
	}
}

// unhold undoes the Holds counted in unholds.
func (h *h2conn) unhold() {
	for ; h.unholds > 0; h.unholds-- {
		h.cn.Unhold()
	}
}

// fail sends the GOAWAY and closes.
func (h *h2conn) fail(x *eventloop.Context) {
	h.flush(x)
	h.closing = true
	x.Conn().Close()
}

// OnWritabilityChanged resumes reading once the client has read.
func (h *h2conn) OnWritabilityChanged(x *eventloop.Context, writable bool) {
	if !writable {
		return
	}
	for _, s := range h.streams {
		if len(s.pend) == 0 {
			h.resume(s) // a streaming producer waits for the connection
		}
	}
	if h.paused && !h.closing {
		h.paused = false
		x.Conn().ResumeRead()
		if h.pending != nil {
			h.read(x, h.pending)
		}
	}
}

// OnInactive drops every stream.
func (h *h2conn) OnInactive(x *eventloop.Context) {
	h.dead = true
	if h.timerOn {
		h.timer.Cancel()
		h.timerOn = false
	}
	delete(h.s.loops[h.cn.Loop()].h2conns, h)
	for id := range h.streams {
		h.drop(id)
	}
	if h.cancel != nil {
		h.cancel()
	}
	if h.pending != nil {
		h.pending.Release()
		h.pending = nil
	}
}

// detachH2 is Detach for a stream's Handler: the response comes later from
// d, which the stream keeps (serve files it once the Handler returns).
func (h *h2conn) detachH2(d *Detached) {
	if !h.inHandler || !h.cn.Loop().InLoop() {
		panic("httpserver: Detach called outside a Handler")
	}
	if h.current != nil {
		panic("httpserver: Detach called twice for one request")
	}
	s := h.running
	d.h2, d.sid = h, s.id
	d.ctx, d.cancel = context.WithCancel(h.context())
	d.req.Method, d.req.Minor, d.req.KeepAlive = s.req.Method, 1, true
	d.w.Dates, d.w.BufferSize = h.w.Dates, detachedBuffer
	d.w.Begin(&d.req)
	h.current = d
}

// context returns the connection's context, made at the first use.
func (h *h2conn) context() context.Context {
	if h.ctx == nil {
		h.ctx, h.cancel = context.WithCancel(context.Background())
	}
	return h.ctx
}

// remoteAddr returns the client's address, made once per connection.
func (h *h2conn) remoteAddr() string {
	if h.remote == "" {
		if a := h.cn.RemoteAddr(); a != nil {
			h.remote = a.String()
		}
	}
	return h.remote
}

// streamOf returns d's stream, nil when it has gone.
func (h *h2conn) streamOf(d *Detached) *h2stream {
	if h.dead || d.gone {
		return nil
	}
	if s := h.streams[d.sid]; s != nil && s.d == d {
		return s
	}
	return nil
}

// flushedH2 runs on the loop with what a Flush handed over: sent as the
// windows allow; the producer goes on once it has all gone and the
// connection is writable (resume), so memory stays bounded by one Flush
// and the windows.
func (h *h2conn) flushedH2(d *Detached, bufs []*buf.Buffer) {
	s := h.streamOf(d)
	if s == nil {
		releaseAll(bufs)
		d.resume <- ErrConnClosed
		return
	}
	h.out = h.out[:0]
	h.resp = h.resp[:0]
	for _, b := range bufs {
		h.resp = append(h.resp, b.Bytes()...)
		b.Release()
	}
	d.waiting = true
	h.sendHTTP1(s, h.resp, false)
	if len(s.pend) == 0 {
		h.resume(s)
	}
	h.flush(h.x)
}

// resume lets s's streaming producer go on, when it waits and the
// connection is writable.
func (h *h2conn) resume(s *h2stream) {
	if d := s.d; d != nil && d.waiting && h.cn.Writable() {
		d.waiting = false
		d.resume <- nil
	}
}

// deliverH2 runs on the loop with the response Done handed over.
func (h *h2conn) deliverH2(d *Detached) {
	s := h.streamOf(d)
	if s == nil {
		d.w.Abort()
		return
	}
	h.out = h.out[:0]
	h.resp = h.resp[:0]
	for b := d.w.Take(); b != nil; b = d.w.Take() {
		h.resp = append(h.resp, b.Bytes()...)
		b.Release()
	}
	s.d = nil
	h.unholds++
	if d.cancel != nil {
		d.cancel()
	}
	if d.aborted {
		h.reset(s.id, http2.CodeInternal)
	} else {
		h.sendHTTP1(s, h.resp, true)
	}
	h.flush(h.x)
}
