// Package http2 decodes and encodes the frames of HTTP/2 (RFC 9113) for
// servers, clients and proxies that keep their own connection state: every
// frame type, padding, frame size limits, the checks a frame alone allows,
// typed errors carrying RFC 9113's error codes, and the order and size of
// header blocks across CONTINUATION frames. Header compression is package
// hpack's.
//
// # Decoding
//
// A [Decoder] takes one frame at a time off a *buf.Composite (Decode) or a
// slice (DecodeBytes) into a [Frame], whose byte fields alias the input
// until it is read again; a warm decoder allocates nothing:
//
//	var d http2.Decoder // MaxFrameSize: the SETTINGS_MAX_FRAME_SIZE advertised
//	var f http2.Frame
//	for {
//		err := d.Decode(in, &f)
//		if err == http2.ErrShort {
//			break // read more
//		}
//		if v := http2.ViolationOf(err); v != nil {
//			if v.Stream { // RST_STREAM f.StreamID with v.Code; go on
//				continue
//			}
//			return v // GOAWAY with v.Code, then close
//		}
//		fragment, end, err := block.Next(&f) // an http2.Block: CONTINUATION order and caps
//		…
//	}
//
// The decoder checks what one frame shows: its length against
// MaxFrameSize and its type's fixed sizes, stream 0 where a stream is
// needed and the reverse, padding, the self-dependency of a priority,
// SETTINGS values, zero window increments. PRIORITY is decoded and meant
// to be ignored (RFC 9113 §5.3.2); unknown frame types come back with
// their type and payload, for the caller to skip (§4.1). What needs the
// connection's state (stream states, flow-control windows, SETTINGS
// acknowledgements, whether a PUSH_PROMISE is allowed) is a Conn's.
//
// # Connection state
//
// A [Conn] keeps one endpoint's state of a connection, without I/O: each
// stream's life cycle ([StreamState], RFC 9113 §5.1), stream IDs, both
// ends' SETTINGS, the concurrency limit, flow-control windows both ways
// and GOAWAY. Recv takes every decoded frame and returns an [Event] for
// the caller; Pending gives the frames the Conn owes the peer (its
// SETTINGS, their acknowledgements, PING answers, RST_STREAM for a stream
// error, GOAWAY for a connection error, and WINDOW_UPDATE once the
// application has taken half a window: see Conn.Consumed).
// AppendHeaders and AppendData send on a stream, split to the peer's
// frame size and as far as the windows allow. The defaults: 100
// concurrent streams, a 256 KiB stream window and a 1 MiB connection
// window, so a connection holds at most 1 MiB of body the application
// has not taken.
//
// # Errors
//
// A refused frame is a *[SyntaxError] (the codec contract's) whose Kind is
// a *[Violation]: its Code is the RFC 9113 error code to send and Stream
// says which kind of error it is. A stream error (Stream true) consumed
// the frame, and the frame's header names the stream to reset with
// RST_STREAM; the connection goes on. A connection error ends the
// connection with GOAWAY. A frame longer than MaxFrameSize is refused
// from its header, before its payload has arrived, and nothing is
// consumed.
//
// # Encoding
//
// AppendData, AppendHeaders, AppendContinuation, AppendRSTStream,
// AppendSettings, AppendSettingsAck, AppendPing, AppendGoAway and
// AppendWindowUpdate append one frame each to a byte slice and allocate
// only when it must grow. Those that take a stream ID, a length or an
// increment refuse a value the field cannot carry with a *FieldError
// (Kind ErrEncodeRange) and return dst unchanged. Splitting a large body
// or header block to the peer's frame size and windows is the caller's.
package http2
