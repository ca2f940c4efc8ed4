package http2

// A StreamState is a stream's state in RFC 9113 §5.1's life cycle, seen
// from one endpoint.
type StreamState uint8

// The states of RFC 9113 §5.1. Closed is split by how the stream closed,
// because what a late frame means depends on it (§5.1, "closed").
const (
	StateIdle StreamState = iota
	StateReservedLocal
	StateReservedRemote
	StateOpen
	StateHalfClosedLocal  // this endpoint sent END_STREAM
	StateHalfClosedRemote // the peer sent END_STREAM
	// StateClosedByEndStream: both sides sent END_STREAM; the last one
	// received was the peer's or ours.
	StateClosedByEndStream
	// StateClosedByPeerReset: the peer sent RST_STREAM.
	StateClosedByPeerReset
	// StateClosedByLocalReset: this endpoint sent RST_STREAM; frames the
	// peer sent before seeing it may still arrive and are ignored.
	StateClosedByLocalReset
)

var stateNames = [...]string{
	"idle", "reserved (local)", "reserved (remote)", "open", "half-closed (local)",
	"half-closed (remote)", "closed", "closed (reset by the peer)", "closed (reset here)",
}

// String returns the state's name as RFC 9113 writes it.
func (s StreamState) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "invalid"
}

// Closed reports whether the stream is closed, however it closed.
func (s StreamState) Closed() bool { return s >= StateClosedByEndStream }

// Violations of the stream life cycle (RFC 9113 §5.1), found by Recv.
var (
	ErrIdleFrame       = connErr(CodeProtocol, "RFC 9113 §5.1", "frame other than HEADERS or PRIORITY on an idle stream")
	ErrReservedFrame   = connErr(CodeProtocol, "RFC 9113 §5.1", "frame not allowed on a reserved stream")
	ErrHalfClosedFrame = streamErr(CodeStreamClosed, "RFC 9113 §5.1", "frame other than WINDOW_UPDATE, PRIORITY or RST_STREAM after the peer's END_STREAM")
	ErrAfterEndStream  = connErr(CodeStreamClosed, "RFC 9113 §5.1", "frame on a stream the peer closed with END_STREAM")
	ErrAfterReset      = streamErr(CodeStreamClosed, "RFC 9113 §5.1", "frame other than PRIORITY on a stream the peer reset")
	ErrPromiseStream   = connErr(CodeProtocol, "RFC 9113 §6.6", "PUSH_PROMISE on a stream not open, or promising a stream not idle")
)

// Recv returns the stream's state after receiving a frame of type t
// (with END_STREAM when endStream is set), or the violation the frame is
// in this state: a *Violation, stream or connection error as RFC 9113
// §5.1 says. A frame that is ignored in the state (PRIORITY anywhere, a
// late frame on a stream this endpoint reset) leaves it unchanged with a
// nil error; whether a late DATA frame still counts for the connection's
// flow control is the caller's (it does, §6.9). Recv does not know
// whether a HEADERS frame opens a stream the peer may open (stream IDs,
// concurrency): the connection checks that first. PUSH_PROMISE is judged
// on the stream it arrives on; the promised stream becomes reserved
// (remote) by RecvPromise.
func (s StreamState) Recv(t FrameType, endStream bool) (StreamState, error) {
	switch t {
	case FrameData, FrameHeaders, FrameRSTStream, FrameWindowUpdate:
	case FramePushPromise:
		// Only on a stream this endpoint opened and the peer has not
		// ended (§6.6).
		if s != StateOpen && s != StateHalfClosedLocal {
			return s, ErrPromiseStream
		}
		return s, nil
	default:
		// PRIORITY is allowed in every state (§5.1, §6.3); CONTINUATION
		// belongs to its HEADERS (see Block); unknown types are ignored
		// (§5.5); SETTINGS, PING and GOAWAY are not a stream's.
		return s, nil
	}
	switch s {
	case StateIdle:
		if t != FrameHeaders {
			return s, ErrIdleFrame
		}
		if endStream {
			return StateHalfClosedRemote, nil
		}
		return StateOpen, nil
	case StateReservedLocal:
		switch t {
		case FrameRSTStream:
			return StateClosedByPeerReset, nil
		case FrameWindowUpdate:
			return s, nil
		}
		return s, ErrReservedFrame
	case StateReservedRemote:
		switch t {
		case FrameHeaders:
			if endStream {
				return StateClosedByEndStream, nil
			}
			return StateHalfClosedLocal, nil
		case FrameRSTStream:
			return StateClosedByPeerReset, nil
		}
		return s, ErrReservedFrame
	case StateOpen, StateHalfClosedLocal:
		switch t {
		case FrameRSTStream:
			return StateClosedByPeerReset, nil
		case FrameData, FrameHeaders:
			if !endStream {
				return s, nil
			}
			if s == StateOpen {
				return StateHalfClosedRemote, nil
			}
			return StateClosedByEndStream, nil
		}
		return s, nil
	case StateHalfClosedRemote:
		switch t {
		case FrameRSTStream:
			return StateClosedByPeerReset, nil
		case FrameWindowUpdate:
			return s, nil
		}
		return s, ErrHalfClosedFrame
	case StateClosedByEndStream:
		if t == FrameWindowUpdate || t == FrameRSTStream {
			// The peer may still grant or reset what it has sent on
			// for a short while after our END_STREAM (§5.1).
			return s, nil
		}
		return s, ErrAfterEndStream
	case StateClosedByPeerReset:
		return s, ErrAfterReset
	case StateClosedByLocalReset:
		return s, nil // frames sent before the peer saw our RST_STREAM
	}
	return s, ErrIdleFrame // not a state
}

// Send returns the stream's state after this endpoint sends a frame of
// type t (with END_STREAM when endStream is set), and false when the
// state does not allow sending it: a bug in the caller, which should not
// send.
func (s StreamState) Send(t FrameType, endStream bool) (StreamState, bool) {
	switch t {
	case FramePriority:
		return s, true
	case FrameData, FrameHeaders, FrameRSTStream, FrameWindowUpdate:
	default:
		return s, false // not a stream's frame to send through Send
	}
	if t == FrameRSTStream {
		if s == StateIdle {
			return s, false // §6.4: not on an idle stream
		}
		return StateClosedByLocalReset, true
	}
	switch s {
	case StateIdle:
		if t != FrameHeaders {
			return s, false
		}
		if endStream {
			return StateHalfClosedLocal, true
		}
		return StateOpen, true
	case StateReservedLocal:
		if t != FrameHeaders {
			return s, false
		}
		if endStream {
			return StateClosedByEndStream, true
		}
		return StateHalfClosedRemote, true
	case StateReservedRemote:
		return s, t == FrameWindowUpdate
	case StateOpen, StateHalfClosedRemote:
		if t == FrameData || t == FrameHeaders {
			if !endStream {
				return s, true
			}
			if s == StateOpen {
				return StateHalfClosedLocal, true
			}
			return StateClosedByEndStream, true
		}
		return s, true
	case StateHalfClosedLocal:
		return s, t == FrameWindowUpdate
	}
	return s, false // closed: nothing but the RST_STREAM above
}

// RecvPromise returns the state of a stream the peer promised in a
// PUSH_PROMISE: reserved (remote) when it was idle, else the connection
// error RFC 9113 §6.6 asks for.
func (s StreamState) RecvPromise() (StreamState, error) {
	if s != StateIdle {
		return s, ErrPromiseStream
	}
	return StateReservedRemote, nil
}

// SendPromise returns the state of a stream this endpoint promises in a
// PUSH_PROMISE: reserved (local), and false when it is not idle.
func (s StreamState) SendPromise() (StreamState, bool) {
	if s != StateIdle {
		return s, false
	}
	return StateReservedLocal, true
}
