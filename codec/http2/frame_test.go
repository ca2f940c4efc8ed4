package http2_test

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec/http2"
	"github.com/netkit/netkit/internal/testenv"
)

// raw builds a frame from its header fields and payload, the reserved bit
// set when reserved is.
func raw(typ http2.FrameType, flags http2.Flags, stream uint32, payload []byte) []byte {
	p := http2.AppendFrameHeader(nil, http2.FrameHeader{Length: uint32(len(payload)), Type: typ, Flags: flags, StreamID: stream})
	return append(p, payload...)
}

func u32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }

func must(p []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return p
}

// decodeOne decodes p, which must be exactly one valid frame.
func decodeOne(t *testing.T, p []byte) *http2.Frame {
	t.Helper()
	var d http2.Decoder
	f := new(http2.Frame)
	n, err := d.DecodeBytes(p, f)
	require.NoError(t, err)
	require.Equal(t, len(p), n)
	return f
}

// TestRoundTrip: what each encoder writes decodes to the same values.
func TestRoundTrip(t *testing.T) {
	decode := func(p []byte) *http2.Frame { return decodeOne(t, p) }
	fr := decode(must(http2.AppendData(nil, 3, true, []byte("body"))))
	assert.Equal(t, http2.FrameData, fr.Type)
	assert.Equal(t, uint32(3), fr.StreamID)
	assert.True(t, fr.EndStream())
	assert.Equal(t, "body", string(fr.Data))
	assert.Equal(t, uint32(4), fr.FlowLength())

	fr = decode(must(http2.AppendHeaders(nil, 5, false, true, []byte{0x82})))
	assert.Equal(t, http2.FrameHeaders, fr.Type)
	assert.False(t, fr.EndStream())
	assert.True(t, fr.EndHeaders())
	assert.Equal(t, []byte{0x82}, fr.Data)

	fr = decode(must(http2.AppendContinuation(nil, 5, true, []byte{0x84})))
	assert.True(t, fr.EndHeaders())
	assert.Equal(t, []byte{0x84}, fr.Data)

	fr = decode(must(http2.AppendRSTStream(nil, 7, http2.CodeCancel)))
	assert.Equal(t, http2.CodeCancel, fr.ErrCode)

	fr = decode(http2.AppendSettings(nil, http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 100}, http2.Setting{ID: 0x99, Val: 7}))
	require.Equal(t, 2, fr.NumSettings())
	assert.Equal(t, http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 100}, fr.Setting(0))
	assert.Equal(t, http2.Setting{ID: 0x99, Val: 7}, fr.Setting(1), "an unknown setting is kept for the caller to ignore")
	assert.False(t, fr.Ack())
	fr = decode(http2.AppendSettingsAck(nil))
	assert.True(t, fr.Ack())
	assert.Zero(t, fr.NumSettings())

	fr = decode(http2.AppendPing(nil, true, [8]byte{1, 2, 3, 4, 5, 6, 7, 8}))
	assert.True(t, fr.Ack())
	assert.Equal(t, [8]byte{1, 2, 3, 4, 5, 6, 7, 8}, fr.PingData)

	fr = decode(must(http2.AppendGoAway(nil, 9, http2.CodeEnhanceYourCalm, []byte("slow down"))))
	assert.Equal(t, uint32(9), fr.LastStreamID)
	assert.Equal(t, http2.CodeEnhanceYourCalm, fr.ErrCode)
	assert.Equal(t, "slow down", string(fr.Data))

	fr = decode(must(http2.AppendWindowUpdate(nil, 0, http2.MaxWindow)))
	assert.Equal(t, uint32(http2.MaxWindow), fr.Increment)
	assert.Zero(t, fr.StreamID)
}

// TestDecodeFields: padding, priority, push promises, the reserved bit and
// unknown types, from hand-built frames.
func TestDecodeFields(t *testing.T) {
	decode := func(p []byte) *http2.Frame { return decodeOne(t, p) }
	// DATA, padded: pad length 3, "hi", 3 bytes of padding.
	fr := decode(raw(http2.FrameData, http2.FlagPadded|http2.FlagEndStream, 1, []byte{3, 'h', 'i', 0, 0, 0}))
	assert.Equal(t, "hi", string(fr.Data))
	assert.Equal(t, uint8(3), fr.PadLength)
	assert.Equal(t, uint32(6), fr.FlowLength(), "padding counts for flow control")
	// DATA, padded, all padding.
	fr = decode(raw(http2.FrameData, http2.FlagPadded, 1, []byte{2, 0, 0}))
	assert.Empty(t, fr.Data)
	// HEADERS, padded, with priority: exclusive dependency on 3, weight 15.
	p := []byte{1, 0x80, 0, 0, 3, 15, 0x82, 0}
	fr = decode(raw(http2.FrameHeaders, http2.FlagPadded|http2.FlagPriority|http2.FlagEndHeaders, 5, p))
	assert.Equal(t, http2.Priority{StreamDep: 3, Exclusive: true, Weight: 15}, fr.Priority)
	assert.Equal(t, []byte{0x82}, fr.Data)
	// PRIORITY.
	fr = decode(raw(http2.FramePriority, 0, 5, []byte{0, 0, 0, 1, 200}))
	assert.Equal(t, http2.Priority{StreamDep: 1, Weight: 200}, fr.Priority)
	// PUSH_PROMISE, padded.
	fr = decode(raw(http2.FramePushPromise, http2.FlagPadded|http2.FlagEndHeaders, 1, []byte{1, 0x80, 0, 0, 2, 0x82, 0}))
	assert.Equal(t, uint32(2), fr.PromisedID, "reserved bit cleared")
	assert.Equal(t, []byte{0x82}, fr.Data)
	// The reserved bit of the stream ID is ignored.
	fr = decode(raw(http2.FrameData, 0, 0x80000001, []byte("x")))
	assert.Equal(t, uint32(1), fr.StreamID)
	// An unknown type comes back with its payload; unknown flags are kept
	// and ignored.
	fr = decode(raw(0x42, 0xff, 0, []byte("whatever")))
	assert.Equal(t, http2.FrameType(0x42), fr.Type)
	assert.Equal(t, "UNKNOWN_0x42", fr.Type.String())
	assert.Equal(t, "whatever", string(fr.Data))
	assert.False(t, fr.EndStream())
	// A GOAWAY's reserved bit and an unknown error code.
	fr = decode(raw(http2.FrameGoAway, 0, 0, append(u32(0x80000005), u32(0xabc)...)))
	assert.Equal(t, uint32(5), fr.LastStreamID)
	assert.Equal(t, "ERR_0xabc", fr.ErrCode.String())
	// A WINDOW_UPDATE's reserved bit.
	fr = decode(raw(http2.FrameWindowUpdate, 0, 1, u32(0x80000010)))
	assert.Equal(t, uint32(16), fr.Increment)
}

// TestViolations: each rule a frame alone can break, with its code, its
// kind (stream or connection) and what was consumed.
func TestViolations(t *testing.T) {
	zero4 := []byte{0, 0, 0, 0}
	for _, tc := range []struct {
		name  string
		frame []byte
		want  *http2.Violation
	}{
		{"DATA on stream 0", raw(http2.FrameData, 0, 0, []byte("x")), http2.ErrStreamZero},
		{"DATA padded, no pad length", raw(http2.FrameData, http2.FlagPadded, 1, nil), http2.ErrPadMissing},
		{"DATA pad as long as the payload", raw(http2.FrameData, http2.FlagPadded, 1, []byte{3, 0, 0}), http2.ErrPadTooLong},
		{"HEADERS on stream 0", raw(http2.FrameHeaders, http2.FlagEndHeaders, 0, nil), http2.ErrStreamZero},
		{"HEADERS priority short", raw(http2.FrameHeaders, http2.FlagPriority, 1, []byte{0, 0, 0}), http2.ErrPriorityShort},
		{"HEADERS depends on itself", raw(http2.FrameHeaders, http2.FlagPriority|http2.FlagEndHeaders, 3, []byte{0, 0, 0, 3, 16}), http2.ErrSelfDependency},
		{"HEADERS padded past the end", raw(http2.FrameHeaders, http2.FlagPadded, 1, []byte{9, 0x82}), http2.ErrPadTooLong},
		{"PRIORITY on stream 0", raw(http2.FramePriority, 0, 0, []byte{0, 0, 0, 1, 0}), http2.ErrStreamZero},
		{"PRIORITY of 4 bytes", raw(http2.FramePriority, 0, 1, []byte{0, 0, 0, 3}), http2.ErrPrioritySize},
		{"PRIORITY depends on itself", raw(http2.FramePriority, 0, 3, []byte{0, 0, 0, 3, 0}), http2.ErrSelfDependency},
		{"RST_STREAM on stream 0", raw(http2.FrameRSTStream, 0, 0, zero4), http2.ErrStreamZero},
		{"RST_STREAM of 3 bytes", raw(http2.FrameRSTStream, 0, 1, []byte{0, 0, 0}), http2.ErrRSTStreamSize},
		{"SETTINGS on a stream", raw(http2.FrameSettings, 0, 1, nil), http2.ErrStreamNonZero},
		{"SETTINGS ACK with payload", raw(http2.FrameSettings, http2.FlagAck, 0, []byte{0, 1, 0, 0, 0, 0}), http2.ErrSettingsAckLength},
		{"SETTINGS of 5 bytes", raw(http2.FrameSettings, 0, 0, []byte{0, 1, 0, 0, 0}), http2.ErrSettingsSize},
		{"ENABLE_PUSH 2", http2.AppendSettings(nil, http2.Setting{ID: http2.SettingEnablePush, Val: 2}), http2.ErrSettingPush},
		{"INITIAL_WINDOW_SIZE 2^31", http2.AppendSettings(nil, http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1 << 31}), http2.ErrSettingWindow},
		{"MAX_FRAME_SIZE 2^14-1", http2.AppendSettings(nil, http2.Setting{ID: http2.SettingMaxFrameSize, Val: 1<<14 - 1}), http2.ErrSettingFrameSize},
		{"MAX_FRAME_SIZE 2^24", http2.AppendSettings(nil, http2.Setting{ID: http2.SettingMaxFrameSize, Val: 1 << 24}), http2.ErrSettingFrameSize},
		{"PUSH_PROMISE on stream 0", raw(http2.FramePushPromise, 0, 0, zero4), http2.ErrStreamZero},
		{"PUSH_PROMISE short", raw(http2.FramePushPromise, 0, 1, []byte{0, 0, 2}), http2.ErrPushPromiseShort},
		{"PING on a stream", raw(http2.FramePing, 0, 1, make([]byte, 8)), http2.ErrStreamNonZero},
		{"PING of 7 bytes", raw(http2.FramePing, 0, 0, make([]byte, 7)), http2.ErrPingSize},
		{"GOAWAY on a stream", raw(http2.FrameGoAway, 0, 1, make([]byte, 8)), http2.ErrStreamNonZero},
		{"GOAWAY of 7 bytes", raw(http2.FrameGoAway, 0, 0, make([]byte, 7)), http2.ErrGoAwayShort},
		{"WINDOW_UPDATE of 3 bytes", raw(http2.FrameWindowUpdate, 0, 0, []byte{0, 0, 1}), http2.ErrWindowUpdateSize},
		{"WINDOW_UPDATE 0 on the connection", raw(http2.FrameWindowUpdate, 0, 0, zero4), http2.ErrWindowZeroConn},
		{"WINDOW_UPDATE 0 on a stream", raw(http2.FrameWindowUpdate, 0, 1, zero4), http2.ErrWindowZeroStream},
		{"CONTINUATION on stream 0", raw(http2.FrameContinuation, 0, 0, nil), http2.ErrStreamZero},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d http2.Decoder
			var f http2.Frame
			n, err := d.DecodeBytes(tc.frame, &f)
			var se *http2.SyntaxError
			require.ErrorAs(t, err, &se)
			require.ErrorIs(t, err, tc.want)
			assert.Equal(t, len(tc.frame), n, "a whole frame refused is consumed")
			v := http2.ViolationOf(err)
			require.NotNil(t, v)
			if v.Stream {
				assert.NotZero(t, f.StreamID, "a stream error names its stream")
			}
			// The same through a Composite, which consumes it too.
			in := buf.NewComposite()
			defer in.Release()
			in.Append(buf.Wrap(append([]byte(nil), tc.frame...)))
			require.ErrorIs(t, d.Decode(in, &f), tc.want)
			assert.Zero(t, in.Len())
		})
	}
}

// TestFrameTooLarge: a frame longer than MaxFrameSize is refused from its
// header alone, before its payload arrives, and nothing is consumed.
func TestFrameTooLarge(t *testing.T) {
	hdr := http2.AppendFrameHeader(nil, http2.FrameHeader{Length: http2.DefaultMaxFrameSize + 1, Type: http2.FrameData, StreamID: 1})
	var d http2.Decoder
	var f http2.Frame
	n, err := d.DecodeBytes(hdr, &f)
	require.ErrorIs(t, err, http2.ErrFrameTooLarge)
	assert.Zero(t, n)
	assert.Equal(t, http2.CodeFrameSize, http2.ViolationOf(err).Code)
	in := buf.NewComposite()
	defer in.Release()
	in.Append(buf.Wrap(hdr))
	require.ErrorIs(t, d.Decode(in, &f), http2.ErrFrameTooLarge)
	assert.Equal(t, len(hdr), in.Len())
	// A larger MaxFrameSize takes it, once whole.
	d.MaxFrameSize = 1 << 20
	require.ErrorIs(t, d.Decode(in, &f), http2.ErrShort)
	in.Append(buf.Wrap(make([]byte, http2.DefaultMaxFrameSize+1)))
	require.NoError(t, d.Decode(in, &f))
	assert.Len(t, f.Data, http2.DefaultMaxFrameSize+1)
	// Above the protocol's limit counts as the limit.
	d.MaxFrameSize = 1 << 30
	big := http2.AppendFrameHeader(nil, http2.FrameHeader{Length: 1<<24 - 1, Type: http2.FrameData, StreamID: 1})
	_, err = d.DecodeBytes(big, &f)
	require.ErrorIs(t, err, http2.ErrShort)
}

// TestDecodeChunked: a run of frames cut into pieces at every byte
// boundary decodes through a Composite as it does from one slice.
func TestDecodeChunked(t *testing.T) {
	var stream []byte
	stream = http2.AppendSettings(stream, http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1 << 20})
	stream = must(http2.AppendHeaders(stream, 1, false, false, []byte("fragment-one")))
	stream = must(http2.AppendContinuation(stream, 1, true, []byte("fragment-two")))
	stream = must(http2.AppendData(stream, 1, true, []byte("a body of some length")))
	stream = http2.AppendPing(stream, false, [8]byte{9})
	stream = must(http2.AppendWindowUpdate(stream, 1, 100))
	stream = append(stream, raw(http2.FrameData, http2.FlagPadded, 3, []byte{2, 'p', 0, 0})...)

	want := decodeAll(t, stream)
	require.Len(t, want, 7)
	for cut := 1; cut < len(stream); cut++ {
		in := buf.NewComposite()
		var d http2.Decoder
		var f http2.Frame
		var got []string
		for _, piece := range [][]byte{stream[:cut], stream[cut:]} {
			in.Append(buf.Wrap(append([]byte(nil), piece...)))
			for {
				err := d.Decode(in, &f)
				if errors.Is(err, http2.ErrShort) {
					break
				}
				require.NoError(t, err, "cut %d", cut)
				got = append(got, describe(&f))
			}
		}
		require.Equal(t, want, got, "cut %d", cut)
		require.Zero(t, in.Len())
		in.Release()
	}
}

func decodeAll(t *testing.T, p []byte) []string {
	var d http2.Decoder
	var f http2.Frame
	var out []string
	for len(p) > 0 {
		n, err := d.DecodeBytes(p, &f)
		require.NoError(t, err)
		out = append(out, describe(&f))
		p = p[n:]
	}
	return out
}

func describe(f *http2.Frame) string {
	g := *f
	data := string(g.Data)
	g.Data = nil
	return string(binary.BigEndian.AppendUint32(nil, uint32(len(data)))) + data + "|" + fmtFrame(g)
}

func fmtFrame(f http2.Frame) string {
	b := http2.AppendFrameHeader(nil, f.FrameHeader)
	b = append(b, f.PadLength, f.Priority.Weight)
	b = binary.BigEndian.AppendUint32(b, f.Priority.StreamDep)
	b = binary.BigEndian.AppendUint32(b, uint32(f.ErrCode))
	b = binary.BigEndian.AppendUint32(b, f.PromisedID)
	b = binary.BigEndian.AppendUint32(b, f.LastStreamID)
	b = binary.BigEndian.AppendUint32(b, f.Increment)
	return string(append(b, f.PingData[:]...))
}

// TestEncodeRange: values a field cannot carry are refused, dst unchanged.
func TestEncodeRange(t *testing.T) {
	dst := []byte("keep")
	for name, call := range map[string]func() ([]byte, error){
		"DATA on stream 0":        func() ([]byte, error) { return http2.AppendData(dst, 0, false, nil) },
		"DATA on stream 2^31":     func() ([]byte, error) { return http2.AppendData(dst, 1<<31, false, nil) },
		"DATA of 2^24 bytes":      func() ([]byte, error) { return http2.AppendData(dst, 1, false, make([]byte, 1<<24)) },
		"HEADERS on stream 0":     func() ([]byte, error) { return http2.AppendHeaders(dst, 0, false, true, nil) },
		"CONTINUATION on 0":       func() ([]byte, error) { return http2.AppendContinuation(dst, 0, true, nil) },
		"RST_STREAM on 0":         func() ([]byte, error) { return http2.AppendRSTStream(dst, 0, http2.CodeCancel) },
		"GOAWAY last 2^31":        func() ([]byte, error) { return http2.AppendGoAway(dst, 1<<31, 0, nil) },
		"WINDOW_UPDATE of 0":      func() ([]byte, error) { return http2.AppendWindowUpdate(dst, 0, 0) },
		"WINDOW_UPDATE of 2^31":   func() ([]byte, error) { return http2.AppendWindowUpdate(dst, 1, 1<<31) },
		"WINDOW_UPDATE on 2^31+1": func() ([]byte, error) { return http2.AppendWindowUpdate(dst, 1<<31+1, 1) },
	} {
		got, err := call()
		require.ErrorIs(t, err, http2.ErrEncodeRange, name)
		var fe *http2.FieldError
		require.ErrorAs(t, err, &fe, name)
		assert.Equal(t, "keep", string(got), name)
	}
}

// TestDecodeAllocs: decoding from a Composite, and encoding into a slice
// with room, allocate nothing.
func TestDecodeAllocs(t *testing.T) {
	testenv.SkipAllocs(t)
	var stream []byte
	stream = must(http2.AppendHeaders(stream, 1, false, true, []byte("fragment")))
	stream = must(http2.AppendData(stream, 1, true, make([]byte, 1000)))
	stream = http2.AppendSettings(stream, http2.Setting{ID: http2.SettingMaxFrameSize, Val: 1 << 15})
	in := buf.NewComposite()
	defer in.Release()
	var d http2.Decoder
	var f http2.Frame
	b := buf.Get(len(stream))
	defer b.Release()
	allocs := testing.AllocsPerRun(200, func() {
		b.Reset()
		b.Write(stream)
		in.Append(b.Retain())
		for in.Len() > 0 {
			if err := d.Decode(in, &f); err != nil {
				panic(err)
			}
		}
		in.Discard(0)
	})
	assert.Zero(t, allocs, "Decode")
	out := make([]byte, 0, 4096)
	allocs = testing.AllocsPerRun(200, func() {
		out = out[:0]
		out, _ = http2.AppendHeaders(out, 1, false, true, []byte("fragment"))
		out, _ = http2.AppendData(out, 1, true, stream[:100])
		out = http2.AppendSettings(out, http2.Setting{ID: http2.SettingMaxFrameSize, Val: 1 << 15})
		out, _ = http2.AppendWindowUpdate(out, 0, 1000)
		out = http2.AppendPing(out, true, [8]byte{})
	})
	assert.Zero(t, allocs, "Append")
}
