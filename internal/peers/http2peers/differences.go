package http2peers

import (
	"fmt"
	"strings"

	nk "github.com/netkit/netkit/codec/http2"
)

// differs returns why the two readers' events for p differ, or "" when
// they agree or differ only as documented here. Each difference is a
// connection error both report, with a different code:
//
//   - A frame too short for the fields its type or flags require (a
//     PADDED frame without its pad length, HEADERS with PRIORITY shorter
//     than 5 bytes, PUSH_PROMISE shorter than its promised stream ID):
//     x/net's Framer returns io.ErrUnexpectedEOF, and its server closes
//     without a code. netkit answers FRAME_SIZE_ERROR, as RFC 9113 §4.2
//     asks ("too small to contain mandatory frame data"), or
//     PROTOCOL_ERROR when the pad length alone is already longer than
//     the rest of the payload (§6.1, §6.2), which it checks first.
//   - A HEADERS frame whose pad length is as long as its payload or
//     longer: RFC 9113 §6.2 makes it a connection error of type
//     PROTOCOL_ERROR, which netkit returns; x/net returns a stream error.
//   - Inside an open header block, a frame of another type that is
//     malformed besides: x/net reports the order (PROTOCOL_ERROR, from the
//     header), netkit the frame's own error (decoded first, then given to
//     the Block). Both end the connection.
//   - A PRIORITY frame not 5 bytes long: RFC 9113 §6.3 makes it a stream
//     error of type FRAME_SIZE_ERROR, which netkit returns (and goes on);
//     x/net ends the connection.
//   - Type 0x10: x/net decodes RFC 9218's PRIORITY_UPDATE (and refuses
//     one on a stream); netkit, which does not take part in RFC 9218,
//     skips it as an unknown type, as RFC 9113 §4.1 and RFC 9218 §7.1
//     allow. What follows is not compared.
//   - A priority on which a stream depends on itself (PRIORITY, or
//     HEADERS with PRIORITY): netkit's decoder refuses it as RFC 9113
//     §5.3.1 asks, a stream error of type PROTOCOL_ERROR; x/net's Framer
//     returns the frame and leaves the check to its server.
//   - SETTINGS_ENABLE_PUSH other than 0 or 1, SETTINGS_MAX_FRAME_SIZE out
//     of range: netkit's decoder refuses the frame (PROTOCOL_ERROR, RFC
//     9113 §6.5.2); x/net's Framer returns it and its server checks the
//     values when it applies them, all but SETTINGS_INITIAL_WINDOW_SIZE,
//     which its Framer checks. With several bad values in one frame, each
//     reports the one it checks first.
//   - A header block that a PUSH_PROMISE opens: netkit holds its
//     CONTINUATION frames to RFC 9113 §6.10's order as for HEADERS;
//     x/net's Framer checks the order after HEADERS only, and so refuses
//     the CONTINUATION of a PUSH_PROMISE as a stray one. (A server
//     refuses any PUSH_PROMISE from a client anyway, §8.4.)
//   - x/net checks the order of a header block's frames (a CONTINUATION
//     where none may come, another frame inside a block) from the frame's
//     header; netkit once the frame is whole. With the input cut inside
//     that frame, x/net has reported the error and netkit waits for the
//     rest: the verdict is the same once it arrives.
func differs(p []byte, x, n []Event) string {
	typeAt := func(e Event) nk.FrameType {
		if e.Off+nk.HeaderLen > len(p) {
			return 0xff
		}
		return nk.ParseFrameHeader(p[e.Off:]).Type
	}
	k := 0
	for ; k < len(x) && k < len(n); k++ {
		xe, ne := x[k], n[k]
		if same(xe, ne) {
			continue
		}
		last := k == len(x)-1 && k == len(n)-1
		switch {
		case strings.HasPrefix(ne.Err, "conn ") && k == len(n)-1 && typeAt(ne) == nk.FrameSettings &&
			(strings.HasPrefix(xe.Frame, "SETTINGS ") || strings.HasPrefix(xe.Err, "conn ")):
			return "" // setting values: checked by x/net's server, not its Framer
		case ne.Err == "conn PROTOCOL_ERROR" && k == len(n)-1 && pushBlockOpen(n[:k]),
			xe.Err == "conn PROTOCOL_ERROR" && k == len(x)-1 && pushBlockOpen(n[:k]):
			return "" // the order inside a PUSH_PROMISE's block, both ways
		case strings.HasPrefix(ne.Frame, "UNKNOWN_0x10 "):
			return "" // PRIORITY_UPDATE: nothing after it is compared
		case ne.Err == fmt.Sprintf("stream %d PROTOCOL_ERROR", nk.ParseFrameHeader(p[ne.Off:]).StreamID) &&
			xe.Frame != "" && selfDependent(xe.Frame, nk.ParseFrameHeader(p[ne.Off:]).StreamID):
			continue // self-dependency: both go on
		case xe.Err == "conn FRAME_SIZE_ERROR" && k == len(x)-1 && isStreamErr(ne.Err, "FRAME_SIZE_ERROR") && typeAt(ne) == nk.FramePriority:
			return "" // PRIORITY's length: x/net ends the connection
		case ne.Err == "conn PROTOCOL_ERROR" && k == len(n)-1 && isStreamErr(xe.Err, "PROTOCOL_ERROR") &&
			typeAt(ne) == nk.FrameHeaders && nk.ParseFrameHeader(p[ne.Off:]).Has(nk.FlagPadded):
			return "" // HEADERS padding: netkit ends the connection
		case last && xe.Err == "conn unexpected EOF" && (ne.Err == "conn FRAME_SIZE_ERROR" || ne.Err == "conn PROTOCOL_ERROR"):
			return "" // a frame too short for its fields
		case last && xe.Err == "conn PROTOCOL_ERROR" && strings.HasPrefix(ne.Err, "conn ") && blockOpen(n[:k]):
			return "" // inside a block: the order, or the frame's own error
		}
		return fmt.Sprintf("the readers disagree at event %d of %d bytes", k, len(p))
	}
	if len(x) == len(n) {
		return ""
	}
	if len(x) == len(n)+1 && !x[len(x)-1].Whole {
		return "" // x/net saw the order error from the header alone
	}
	return fmt.Sprintf("the readers report %d and %d events on %d bytes", len(x), len(n), len(p))
}

func isStreamErr(e, code string) bool {
	return strings.HasPrefix(e, "stream ") && strings.HasSuffix(e, " "+code)
}

// selfDependent reports whether x/net's PRIORITY or HEADERS frame has
// stream depend on itself.
func selfDependent(frame string, stream uint32) bool {
	return (strings.HasPrefix(frame, "PRIORITY ") || strings.HasPrefix(frame, "HEADERS ")) &&
		strings.Contains(frame, fmt.Sprintf(" dep=%d/", stream))
}

// blockOpen reports whether netkit's Block had a header block open after
// the events.
func blockOpen(evs []Event) bool { return len(evs) > 0 && evs[len(evs)-1].Open }

// pushBlockOpen reports whether a header block opened by a PUSH_PROMISE
// is open after the events.
func pushBlockOpen(evs []Event) bool {
	push := false
	for _, e := range evs {
		switch {
		case strings.HasPrefix(e.Frame, "PUSH_PROMISE "):
			push = strings.Contains(e.Frame, " eh=false")
		case strings.HasPrefix(e.Frame, "HEADERS "):
			push = false
		case strings.HasPrefix(e.Frame, "CONTINUATION ") && strings.Contains(e.Frame, " eh=true"):
			push = false
		}
	}
	return push
}
