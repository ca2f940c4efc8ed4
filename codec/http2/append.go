package http2

import (
	"encoding/binary"

	"github.com/netkit/netkit/codec"
)

// ErrEncodeRange is the Kind of the *FieldError an encoder returns for a
// value its field cannot carry: a stream ID above MaxStreamID (or 0 where
// a stream is needed), a payload longer than MaxFrameSizeLimit, a window
// increment of 0 or above MaxWindow.
var ErrEncodeRange = connErr(CodeInternal, "RFC 9113 §4.1", "value out of the field's range")

// FieldError is codec.FieldError: an encoder refuses a value of one field.
type FieldError = codec.FieldError

func rangeErr(field string) error { return &FieldError{Kind: ErrEncodeRange, Field: field, Index: -1} }

// AppendFrameHeader appends the 9-byte header h (its Length as given: the
// caller appends that many payload bytes after it).
func AppendFrameHeader(dst []byte, h FrameHeader) []byte {
	return append(dst, byte(h.Length>>16), byte(h.Length>>8), byte(h.Length), byte(h.Type), byte(h.Flags),
		byte(h.StreamID>>24&0x7f), byte(h.StreamID>>16), byte(h.StreamID>>8), byte(h.StreamID))
}

// checkFrame refuses a stream ID or a payload length a frame cannot carry.
func checkFrame(stream uint32, needStream bool, length int) error {
	if stream > MaxStreamID || needStream && stream == 0 {
		return rangeErr("StreamID")
	}
	if length > MaxFrameSizeLimit {
		return rangeErr("Length")
	}
	return nil
}

// AppendData appends a DATA frame on stream carrying data, with
// END_STREAM when endStream is set. The caller keeps data within the
// peer's SETTINGS_MAX_FRAME_SIZE and its flow-control windows.
func AppendData(dst []byte, stream uint32, endStream bool, data []byte) ([]byte, error) {
	if err := checkFrame(stream, true, len(data)); err != nil {
		return dst, err
	}
	var fl Flags
	if endStream {
		fl |= FlagEndStream
	}
	dst = AppendFrameHeader(dst, FrameHeader{Length: uint32(len(data)), Type: FrameData, Flags: fl, StreamID: stream})
	return append(dst, data...), nil
}

// AppendHeaders appends a HEADERS frame on stream carrying the header
// block fragment, with END_STREAM and END_HEADERS as asked. A block longer
// than the peer's SETTINGS_MAX_FRAME_SIZE goes in a HEADERS frame without
// END_HEADERS and CONTINUATION frames after it (AppendContinuation).
func AppendHeaders(dst []byte, stream uint32, endStream, endHeaders bool, fragment []byte) ([]byte, error) {
	if err := checkFrame(stream, true, len(fragment)); err != nil {
		return dst, err
	}
	var fl Flags
	if endStream {
		fl |= FlagEndStream
	}
	if endHeaders {
		fl |= FlagEndHeaders
	}
	dst = AppendFrameHeader(dst, FrameHeader{Length: uint32(len(fragment)), Type: FrameHeaders, Flags: fl, StreamID: stream})
	return append(dst, fragment...), nil
}

// AppendContinuation appends a CONTINUATION frame on stream carrying the
// next fragment of a header block, with END_HEADERS on the last.
func AppendContinuation(dst []byte, stream uint32, endHeaders bool, fragment []byte) ([]byte, error) {
	if err := checkFrame(stream, true, len(fragment)); err != nil {
		return dst, err
	}
	var fl Flags
	if endHeaders {
		fl |= FlagEndHeaders
	}
	dst = AppendFrameHeader(dst, FrameHeader{Length: uint32(len(fragment)), Type: FrameContinuation, Flags: fl, StreamID: stream})
	return append(dst, fragment...), nil
}

// AppendRSTStream appends an RST_STREAM frame resetting stream with code.
func AppendRSTStream(dst []byte, stream uint32, code ErrCode) ([]byte, error) {
	if err := checkFrame(stream, true, 4); err != nil {
		return dst, err
	}
	dst = AppendFrameHeader(dst, FrameHeader{Length: 4, Type: FrameRSTStream, StreamID: stream})
	return binary.BigEndian.AppendUint32(dst, uint32(code)), nil
}

// AppendSettings appends a SETTINGS frame with the parameters, in order.
// It does not check their values: Setting.Valid does.
func AppendSettings(dst []byte, settings ...Setting) []byte {
	dst = AppendFrameHeader(dst, FrameHeader{Length: uint32(6 * len(settings)), Type: FrameSettings})
	for _, s := range settings {
		dst = binary.BigEndian.AppendUint16(dst, uint16(s.ID))
		dst = binary.BigEndian.AppendUint32(dst, s.Val)
	}
	return dst
}

// AppendSettingsAck appends the acknowledgement of a SETTINGS frame.
func AppendSettingsAck(dst []byte) []byte {
	return AppendFrameHeader(dst, FrameHeader{Type: FrameSettings, Flags: FlagAck})
}

// AppendPing appends a PING frame with data, an acknowledgement when ack
// is set (which carries the data of the PING it answers).
func AppendPing(dst []byte, ack bool, data [8]byte) []byte {
	var fl Flags
	if ack {
		fl = FlagAck
	}
	dst = AppendFrameHeader(dst, FrameHeader{Length: 8, Type: FramePing, Flags: fl})
	return append(dst, data[:]...)
}

// AppendGoAway appends a GOAWAY frame: the last stream the sender will
// have processed, the error code and optional debug data.
func AppendGoAway(dst []byte, lastStream uint32, code ErrCode, debug []byte) ([]byte, error) {
	if lastStream > MaxStreamID {
		return dst, rangeErr("LastStreamID")
	}
	if err := checkFrame(0, false, 8+len(debug)); err != nil {
		return dst, err
	}
	dst = AppendFrameHeader(dst, FrameHeader{Length: uint32(8 + len(debug)), Type: FrameGoAway})
	dst = binary.BigEndian.AppendUint32(dst, lastStream)
	dst = binary.BigEndian.AppendUint32(dst, uint32(code))
	return append(dst, debug...), nil
}

// AppendWindowUpdate appends a WINDOW_UPDATE frame granting increment
// bytes on stream (0: the connection).
func AppendWindowUpdate(dst []byte, stream, increment uint32) ([]byte, error) {
	if err := checkFrame(stream, false, 4); err != nil {
		return dst, err
	}
	if increment == 0 || increment > MaxWindow {
		return dst, rangeErr("Increment")
	}
	dst = AppendFrameHeader(dst, FrameHeader{Length: 4, Type: FrameWindowUpdate, StreamID: stream})
	return binary.BigEndian.AppendUint32(dst, increment), nil
}
