package http2

import (
	"errors"
	"strconv"

	"github.com/netkit/netkit/codec"
)

// ErrShort is codec.ErrShort: the input ends before the frame does.
var ErrShort = codec.ErrShort

// An ErrCode is an HTTP/2 error code (RFC 9113 §7), carried by RST_STREAM
// and GOAWAY.
type ErrCode uint32

// The error codes of RFC 9113 §7.
const (
	CodeNo                 ErrCode = 0x0
	CodeProtocol           ErrCode = 0x1
	CodeInternal           ErrCode = 0x2
	CodeFlowControl        ErrCode = 0x3
	CodeSettingsTimeout    ErrCode = 0x4
	CodeStreamClosed       ErrCode = 0x5
	CodeFrameSize          ErrCode = 0x6
	CodeRefusedStream      ErrCode = 0x7
	CodeCancel             ErrCode = 0x8
	CodeCompression        ErrCode = 0x9
	CodeConnect            ErrCode = 0xa
	CodeEnhanceYourCalm    ErrCode = 0xb
	CodeInadequateSecurity ErrCode = 0xc
	CodeHTTP11Required     ErrCode = 0xd
)

var codeNames = [...]string{
	"NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR",
	"SETTINGS_TIMEOUT", "STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM",
	"CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
	"INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
}

// String returns the code's name in RFC 9113 §7, or "ERR_0x…" for a code
// the RFC does not define (which a receiver treats as INTERNAL_ERROR, and
// must not refuse).
func (c ErrCode) String() string {
	if int(c) < len(codeNames) {
		return codeNames[c]
	}
	return "ERR_0x" + strconv.FormatUint(uint64(c), 16)
}

// A SyntaxError reports a frame the decoder refuses: what (Kind, one of
// the package's *Violation sentinels) and where (Offset, from the start of
// the frame's 9-byte header). See Violation for what the connection does
// with it.
type SyntaxError = codec.SyntaxError

// A Violation is a rule of RFC 9113 a frame breaks. Every sentinel error
// of the package is one; they are compared by identity (errors.Is). Ref,
// of the embedded [codec.Rule], is where the rule is stated; Msg says what
// is wrong.
type Violation struct {
	codec.Rule
	// Code is the error code to send: in GOAWAY for a connection error,
	// in RST_STREAM for a stream error.
	Code ErrCode
	// Stream is true for a stream error (RFC 9113 §5.4.2): the decoder
	// consumed the frame, whose header names the stream to reset, and the
	// connection goes on. When false the error is a connection error
	// (§5.4.1): send GOAWAY with Code and close.
	Stream bool
}

// Error returns "http2: <Msg> (<Ref>)".
func (v *Violation) Error() string { return "http2: " + v.Msg + " (" + v.Ref + ")" }

func connErr(code ErrCode, ref, msg string) *Violation {
	return &Violation{Rule: codec.Rule{Ref: ref, Msg: msg}, Code: code}
}

func streamErr(code ErrCode, ref, msg string) *Violation {
	return &Violation{Rule: codec.Rule{Ref: ref, Msg: msg}, Code: code, Stream: true}
}

// ViolationOf returns the *Violation err wraps, or nil.
func ViolationOf(err error) *Violation {
	var v *Violation
	if errors.As(err, &v) {
		return v
	}
	return nil
}

// Frame-level violations: connection errors unless marked.
var (
	ErrFrameTooLarge     = connErr(CodeFrameSize, "RFC 9113 §4.2", "frame longer than the receiver's SETTINGS_MAX_FRAME_SIZE")
	ErrStreamZero        = connErr(CodeProtocol, "RFC 9113 §6", "frame that belongs to a stream sent on stream 0")
	ErrStreamNonZero     = connErr(CodeProtocol, "RFC 9113 §6", "connection frame (SETTINGS, PING, GOAWAY) sent on a stream")
	ErrPadMissing        = connErr(CodeFrameSize, "RFC 9113 §4.2", "PADDED frame too short for its pad length")
	ErrPadTooLong        = connErr(CodeProtocol, "RFC 9113 §6.1", "padding as long as the frame's payload or longer")
	ErrPriorityShort     = connErr(CodeFrameSize, "RFC 9113 §4.2", "HEADERS with PRIORITY too short for the priority fields")
	ErrPrioritySize      = streamErr(CodeFrameSize, "RFC 9113 §6.3", "PRIORITY frame not 5 bytes long")
	ErrSelfDependency    = streamErr(CodeProtocol, "RFC 9113 §5.3.1", "stream depends on itself")
	ErrRSTStreamSize     = connErr(CodeFrameSize, "RFC 9113 §6.4", "RST_STREAM frame not 4 bytes long")
	ErrSettingsAckLength = connErr(CodeFrameSize, "RFC 9113 §6.5", "SETTINGS with ACK and a payload")
	ErrSettingsSize      = connErr(CodeFrameSize, "RFC 9113 §6.5", "SETTINGS payload not a multiple of 6 bytes")
	ErrSettingPush       = connErr(CodeProtocol, "RFC 9113 §6.5.2", "SETTINGS_ENABLE_PUSH other than 0 or 1")
	ErrSettingWindow     = connErr(CodeFlowControl, "RFC 9113 §6.5.2", "SETTINGS_INITIAL_WINDOW_SIZE above 2^31-1")
	ErrSettingFrameSize  = connErr(CodeProtocol, "RFC 9113 §6.5.2", "SETTINGS_MAX_FRAME_SIZE outside 2^14..2^24-1")
	ErrPushPromiseShort  = connErr(CodeFrameSize, "RFC 9113 §4.2", "PUSH_PROMISE too short for the promised stream ID")
	ErrPingSize          = connErr(CodeFrameSize, "RFC 9113 §6.7", "PING frame not 8 bytes long")
	ErrGoAwayShort       = connErr(CodeFrameSize, "RFC 9113 §6.8", "GOAWAY frame shorter than 8 bytes")
	ErrWindowUpdateSize  = connErr(CodeFrameSize, "RFC 9113 §6.9", "WINDOW_UPDATE frame not 4 bytes long")
	ErrWindowZeroConn    = connErr(CodeProtocol, "RFC 9113 §6.9", "WINDOW_UPDATE of 0 for the connection")
	ErrWindowZeroStream  = streamErr(CodeProtocol, "RFC 9113 §6.9", "WINDOW_UPDATE of 0 for a stream")
)

// Header-block violations, found by a Block: connection errors.
var (
	ErrContinuationExpected = connErr(CodeProtocol, "RFC 9113 §6.10", "frame other than CONTINUATION of the same stream inside a header block")
	ErrContinuationStray    = connErr(CodeProtocol, "RFC 9113 §6.10", "CONTINUATION without a header block open")
	ErrBlockTooLarge        = connErr(CodeEnhanceYourCalm, "RFC 9113 §10.5.1", "header block larger than the receiver's limit")
	ErrBlockTooManyFrames   = connErr(CodeEnhanceYourCalm, "RFC 9113 §10.5", "header block in more CONTINUATION frames than the receiver's limit")
)
