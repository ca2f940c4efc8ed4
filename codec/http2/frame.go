package http2

import (
	"encoding/binary"
	"strconv"

	"github.com/netkit/netkit/buf"
)

// A FrameType is the type of a frame (RFC 9113 §6, §11.2).
type FrameType uint8

// The frame types of RFC 9113. Any other type is decoded as an unknown
// frame, which a receiver ignores (§4.1).
const (
	FrameData         FrameType = 0x0
	FrameHeaders      FrameType = 0x1
	FramePriority     FrameType = 0x2
	FrameRSTStream    FrameType = 0x3
	FrameSettings     FrameType = 0x4
	FramePushPromise  FrameType = 0x5
	FramePing         FrameType = 0x6
	FrameGoAway       FrameType = 0x7
	FrameWindowUpdate FrameType = 0x8
	FrameContinuation FrameType = 0x9
)

var typeNames = [...]string{
	"DATA", "HEADERS", "PRIORITY", "RST_STREAM", "SETTINGS", "PUSH_PROMISE",
	"PING", "GOAWAY", "WINDOW_UPDATE", "CONTINUATION",
}

// String returns the type's name in RFC 9113, or "UNKNOWN_0x…".
func (t FrameType) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "UNKNOWN_0x" + strconv.FormatUint(uint64(t), 16)
}

// Flags are a frame's flag bits; what each means depends on the type.
type Flags uint8

// The flags of RFC 9113.
const (
	FlagEndStream  Flags = 0x1  // DATA, HEADERS
	FlagAck        Flags = 0x1  // SETTINGS, PING
	FlagEndHeaders Flags = 0x4  // HEADERS, PUSH_PROMISE, CONTINUATION
	FlagPadded     Flags = 0x8  // DATA, HEADERS, PUSH_PROMISE
	FlagPriority   Flags = 0x20 // HEADERS
)

// Sizes of RFC 9113.
const (
	HeaderLen = 9 // a frame header's length (§4.1)
	// DefaultMaxFrameSize is SETTINGS_MAX_FRAME_SIZE's initial value and
	// its smallest allowed one (§6.5.2).
	DefaultMaxFrameSize = 1 << 14
	// MaxFrameSizeLimit is SETTINGS_MAX_FRAME_SIZE's largest allowed value.
	MaxFrameSizeLimit = 1<<24 - 1
	// MaxWindow is the largest flow-control window (§6.9.1).
	MaxWindow = 1<<31 - 1
	// MaxStreamID is the largest stream identifier (31 bits).
	MaxStreamID = 1<<31 - 1
)

// A FrameHeader is the 9 bytes before every frame's payload (RFC 9113
// §4.1). StreamID has the reserved bit cleared, as a receiver must ignore
// it.
type FrameHeader struct {
	Length   uint32 // the payload's length, padding included
	Type     FrameType
	Flags    Flags // as received: flags a type does not define are kept, and ignored
	StreamID uint32
}

// Has reports whether the header has every flag of fl.
func (h FrameHeader) Has(fl Flags) bool { return h.Flags&fl == fl }

// Priority is the dependency a HEADERS frame with the PRIORITY flag, or a
// PRIORITY frame, carries. RFC 9113 deprecates the scheme: it is decoded
// (and its one rule, that a stream does not depend on itself, checked),
// not acted upon.
type Priority struct {
	StreamDep uint32
	Exclusive bool
	Weight    uint8 // the weight minus one, as sent (0..255 for 1..256)
}

// A Frame is one decoded frame: its header, and its payload's fields for
// its type. The byte slices alias the decoder's input (see Decoder.Decode)
// and are valid only until the input is read from again.
type Frame struct {
	FrameHeader

	// Data is a DATA frame's data, the header block fragment of HEADERS,
	// PUSH_PROMISE and CONTINUATION, GOAWAY's debug data, SETTINGS'
	// parameters (6 bytes each: see NumSettings and Setting) and an
	// unknown frame's payload. Padding is removed.
	Data []byte
	// PadLength is the padding's length in a PADDED frame: it counts for
	// flow control (RFC 9113 §6.1) though Data leaves it out.
	PadLength uint8
	// Priority is set for PRIORITY, and for HEADERS with FlagPriority.
	Priority Priority
	// ErrCode is RST_STREAM's and GOAWAY's error code.
	ErrCode ErrCode
	// PromisedID is PUSH_PROMISE's promised stream.
	PromisedID uint32
	// LastStreamID is GOAWAY's last stream identifier.
	LastStreamID uint32
	// Increment is WINDOW_UPDATE's window size increment.
	Increment uint32
	// PingData is PING's opaque data.
	PingData [8]byte
}

// EndStream reports whether a DATA or HEADERS frame ends its stream.
func (f *Frame) EndStream() bool {
	return f.Flags&FlagEndStream != 0 && (f.Type == FrameData || f.Type == FrameHeaders)
}

// EndHeaders reports whether a HEADERS, PUSH_PROMISE or CONTINUATION frame
// ends its header block.
func (f *Frame) EndHeaders() bool {
	return f.Flags&FlagEndHeaders != 0 &&
		(f.Type == FrameHeaders || f.Type == FramePushPromise || f.Type == FrameContinuation)
}

// Ack reports whether a SETTINGS or PING frame is an acknowledgement.
func (f *Frame) Ack() bool {
	return f.Flags&FlagAck != 0 && (f.Type == FrameSettings || f.Type == FramePing)
}

// FlowLength is how much of the flow-control window a DATA frame uses:
// its whole payload, padding included (RFC 9113 §6.9.1); 0 for the other
// types.
func (f *Frame) FlowLength() uint32 {
	if f.Type != FrameData {
		return 0
	}
	return f.Length
}

// A SettingID names a SETTINGS parameter (RFC 9113 §6.5.2).
type SettingID uint16

// The parameters of RFC 9113 §6.5.2. A receiver ignores any other.
const (
	SettingHeaderTableSize      SettingID = 0x1
	SettingEnablePush           SettingID = 0x2
	SettingMaxConcurrentStreams SettingID = 0x3
	SettingInitialWindowSize    SettingID = 0x4
	SettingMaxFrameSize         SettingID = 0x5
	SettingMaxHeaderListSize    SettingID = 0x6
)

// A Setting is one SETTINGS parameter and its value.
type Setting struct {
	ID  SettingID
	Val uint32
}

// Valid returns the violation of a value RFC 9113 §6.5.2 refuses, or nil.
func (s Setting) Valid() error {
	switch s.ID {
	case SettingEnablePush:
		if s.Val > 1 {
			return ErrSettingPush
		}
	case SettingInitialWindowSize:
		if s.Val > MaxWindow {
			return ErrSettingWindow
		}
	case SettingMaxFrameSize:
		if s.Val < DefaultMaxFrameSize || s.Val > MaxFrameSizeLimit {
			return ErrSettingFrameSize
		}
	}
	return nil
}

// NumSettings is the number of parameters a SETTINGS frame carries.
func (f *Frame) NumSettings() int {
	if f.Type != FrameSettings {
		return 0
	}
	return len(f.Data) / 6
}

// Setting returns a SETTINGS frame's i-th parameter, in the order sent (a
// later value of one parameter overrides an earlier one).
func (f *Frame) Setting(i int) Setting {
	p := f.Data[6*i:]
	return Setting{ID: SettingID(binary.BigEndian.Uint16(p)), Val: binary.BigEndian.Uint32(p[2:])}
}

// A Decoder decodes frames, checking each against the rules of RFC 9113
// that a frame alone shows (lengths, stream 0 or not, padding, setting
// values, zero increments). The rules that need the connection's state
// (stream states, windows, the order of frames across a header block) are
// the caller's: see Block for the last. The zero Decoder is ready to use.
type Decoder struct {
	// MaxFrameSize is the largest payload accepted: the
	// SETTINGS_MAX_FRAME_SIZE this endpoint advertised (0 means
	// DefaultMaxFrameSize; values above MaxFrameSizeLimit count as it).
	// A longer frame is a connection error of type FRAME_SIZE_ERROR,
	// found from its header alone.
	MaxFrameSize uint32
}

func (d *Decoder) maxFrame() uint32 {
	switch m := d.MaxFrameSize; {
	case m == 0:
		return DefaultMaxFrameSize
	case m > MaxFrameSizeLimit:
		return MaxFrameSizeLimit
	default:
		return m
	}
}

// Decode takes the frame at the front of in into *f. It returns ErrShort,
// consuming nothing, until in holds the whole frame. The payload's slices
// in f alias in's memory (or, for a frame that straddles in's components,
// a scratch area of in) and are valid until in is read from again.
//
// An error is a *SyntaxError whose Kind is a *Violation. A frame longer
// than MaxFrameSize is refused from its header and nothing is consumed.
// Any other refused frame is consumed: for a stream error (the Violation's
// Stream is true) f's header names the stream to reset, and decoding goes
// on with the next frame; a connection error ends the connection. A frame
// with a stream error still counts as a frame: pass it to the Block (a
// PRIORITY inside a header block is a connection error all the same), and
// a HEADERS frame's fragment, which f.Data holds, to the HPACK decoder,
// whose state must follow every block (RFC 9113 §4.3).
func (d *Decoder) Decode(in *buf.Composite, f *Frame) error {
	if in.Len() < HeaderLen {
		return ErrShort
	}
	length := in.GetUint32(0) >> 8
	if length > d.maxFrame() {
		return &SyntaxError{Offset: 0, Kind: ErrFrameTooLarge}
	}
	if in.Len() < HeaderLen+int(length) {
		return ErrShort
	}
	p, _ := in.Next(HeaderLen + int(length))
	return parse(p, f)
}

// DecodeBytes decodes the frame at the front of p into *f and returns its
// length, header included. It returns ErrShort and 0 until p holds the
// whole frame; f's slices alias p. Errors are Decode's: the length is 0
// for a frame refused from its header, the frame's for any other.
func (d *Decoder) DecodeBytes(p []byte, f *Frame) (int, error) {
	if len(p) < HeaderLen {
		return 0, ErrShort
	}
	length := uint32(p[0])<<16 | uint32(p[1])<<8 | uint32(p[2])
	if length > d.maxFrame() {
		return 0, &SyntaxError{Offset: 0, Kind: ErrFrameTooLarge}
	}
	n := HeaderLen + int(length)
	if len(p) < n {
		return 0, ErrShort
	}
	return n, parse(p[:n], f)
}

// ParseFrameHeader reads the frame header at the front of p, which holds
// at least HeaderLen bytes.
func ParseFrameHeader(p []byte) FrameHeader {
	_ = p[8]
	return FrameHeader{
		Length:   uint32(p[0])<<16 | uint32(p[1])<<8 | uint32(p[2]),
		Type:     FrameType(p[3]),
		Flags:    Flags(p[4]),
		StreamID: binary.BigEndian.Uint32(p[5:]) & MaxStreamID,
	}
}

// Offsets, from the start of the frame, of the fields errors point at.
const (
	offLength  = 0
	offStream  = 5
	offPayload = HeaderLen
)

func fail(off int, v *Violation) error { return &SyntaxError{Offset: off, Kind: v} }

// parse decodes the whole frame p (header and payload) into f.
func parse(p []byte, f *Frame) error {
	*f = Frame{FrameHeader: ParseFrameHeader(p)}
	payload := p[HeaderLen:]
	h := &f.FrameHeader
	switch h.Type {
	case FrameData:
		if h.StreamID == 0 {
			return fail(offStream, ErrStreamZero)
		}
		rest, err := padLength(h, payload, f)
		if err != nil {
			return err
		}
		if f.Data, err = unpad(f, rest); err != nil {
			return err
		}
	case FrameHeaders:
		if h.StreamID == 0 {
			return fail(offStream, ErrStreamZero)
		}
		// Pad length, priority, fragment, padding (RFC 9113 §6.2).
		rest, err := padLength(h, payload, f)
		if err != nil {
			return err
		}
		if h.Flags&FlagPriority != 0 {
			if len(rest) < 5 {
				return fail(offLength, ErrPriorityShort)
			}
			f.Priority, rest = readPriority(rest), rest[5:]
		}
		if f.Data, err = unpad(f, rest); err != nil {
			return err
		}
		if h.Flags&FlagPriority != 0 && f.Priority.StreamDep == h.StreamID {
			off := offPayload
			if h.Flags&FlagPadded != 0 {
				off++ // after the pad length
			}
			return fail(off, ErrSelfDependency)
		}
	case FramePriority:
		if h.StreamID == 0 {
			return fail(offStream, ErrStreamZero)
		}
		if len(payload) != 5 {
			return fail(offLength, ErrPrioritySize)
		}
		f.Priority = readPriority(payload)
		if f.Priority.StreamDep == h.StreamID {
			return fail(offPayload, ErrSelfDependency)
		}
	case FrameRSTStream:
		if len(payload) != 4 {
			return fail(offLength, ErrRSTStreamSize)
		}
		if h.StreamID == 0 {
			return fail(offStream, ErrStreamZero)
		}
		f.ErrCode = ErrCode(binary.BigEndian.Uint32(payload))
	case FrameSettings:
		if h.Flags&FlagAck != 0 && len(payload) != 0 {
			return fail(offLength, ErrSettingsAckLength)
		}
		if h.StreamID != 0 {
			return fail(offStream, ErrStreamNonZero)
		}
		if len(payload)%6 != 0 {
			return fail(offLength, ErrSettingsSize)
		}
		f.Data = payload
		for i := 0; i < len(payload); i += 6 {
			s := Setting{ID: SettingID(binary.BigEndian.Uint16(payload[i:])), Val: binary.BigEndian.Uint32(payload[i+2:])}
			if err := s.Valid(); err != nil {
				return fail(offPayload+i, err.(*Violation))
			}
		}
	case FramePushPromise:
		if h.StreamID == 0 {
			return fail(offStream, ErrStreamZero)
		}
		// Pad length, promised stream, fragment, padding (§6.6).
		rest, err := padLength(h, payload, f)
		if err != nil {
			return err
		}
		if len(rest) < 4 {
			return fail(offLength, ErrPushPromiseShort)
		}
		f.PromisedID = binary.BigEndian.Uint32(rest) & MaxStreamID
		if f.Data, err = unpad(f, rest[4:]); err != nil {
			return err
		}
	case FramePing:
		if len(payload) != 8 {
			return fail(offLength, ErrPingSize)
		}
		if h.StreamID != 0 {
			return fail(offStream, ErrStreamNonZero)
		}
		copy(f.PingData[:], payload)
	case FrameGoAway:
		if h.StreamID != 0 {
			return fail(offStream, ErrStreamNonZero)
		}
		if len(payload) < 8 {
			return fail(offLength, ErrGoAwayShort)
		}
		f.LastStreamID = binary.BigEndian.Uint32(payload) & MaxStreamID
		f.ErrCode = ErrCode(binary.BigEndian.Uint32(payload[4:]))
		f.Data = payload[8:]
	case FrameWindowUpdate:
		if len(payload) != 4 {
			return fail(offLength, ErrWindowUpdateSize)
		}
		f.Increment = binary.BigEndian.Uint32(payload) & MaxWindow
		if f.Increment == 0 {
			if h.StreamID == 0 {
				return fail(offPayload, ErrWindowZeroConn)
			}
			return fail(offPayload, ErrWindowZeroStream)
		}
	case FrameContinuation:
		if h.StreamID == 0 {
			return fail(offStream, ErrStreamZero)
		}
		f.Data = payload
	default:
		f.Data = payload // unknown: the caller skips it
	}
	return nil
}

// padLength reads a PADDED frame's pad length into f.PadLength and
// returns the payload after it.
func padLength(h *FrameHeader, payload []byte, f *Frame) ([]byte, error) {
	if h.Flags&FlagPadded == 0 {
		return payload, nil
	}
	if len(payload) < 1 {
		return nil, fail(offLength, ErrPadMissing)
	}
	f.PadLength = payload[0]
	return payload[1:], nil
}

// unpad removes the padding from the end of rest, what follows a padded
// frame's fixed fields.
func unpad(f *Frame, rest []byte) ([]byte, error) {
	if int(f.PadLength) > len(rest) {
		return nil, fail(offPayload, ErrPadTooLong)
	}
	return rest[:len(rest)-int(f.PadLength)], nil
}

func readPriority(p []byte) Priority {
	v := binary.BigEndian.Uint32(p)
	return Priority{StreamDep: v & MaxStreamID, Exclusive: v>>31 == 1, Weight: p[4]}
}
