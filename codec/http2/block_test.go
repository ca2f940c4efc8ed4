package http2_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/codec/http2"
)

func frame(typ http2.FrameType, flags http2.Flags, stream uint32, data string) *http2.Frame {
	return &http2.Frame{FrameHeader: http2.FrameHeader{Length: uint32(len(data)), Type: typ, Flags: flags, StreamID: stream}, Data: []byte(data)}
}

// TestBlockOrder: a block's fragments come out in order, and any frame
// out of place inside a block, or a CONTINUATION outside one, is a
// connection error.
func TestBlockOrder(t *testing.T) {
	var b http2.Block
	frag, end, err := b.Next(frame(http2.FrameHeaders, 0, 1, "one"))
	require.NoError(t, err)
	assert.Equal(t, "one", string(frag))
	assert.False(t, end)
	assert.True(t, b.Open())
	assert.Equal(t, uint32(1), b.StreamID())
	frag, end, err = b.Next(frame(http2.FrameContinuation, 0, 1, "two"))
	require.NoError(t, err)
	assert.Equal(t, "two", string(frag))
	assert.False(t, end)
	frag, end, err = b.Next(frame(http2.FrameContinuation, http2.FlagEndHeaders, 1, "three"))
	require.NoError(t, err)
	assert.Equal(t, "three", string(frag))
	assert.True(t, end)
	assert.False(t, b.Open())
	// Other frames between blocks pass through.
	frag, end, err = b.Next(frame(http2.FrameData, 0, 1, "data"))
	require.NoError(t, err)
	assert.Nil(t, frag)
	assert.False(t, end)
	// A whole block in one HEADERS.
	frag, end, err = b.Next(frame(http2.FrameHeaders, http2.FlagEndHeaders|http2.FlagEndStream, 3, "all"))
	require.NoError(t, err)
	assert.Equal(t, "all", string(frag))
	assert.True(t, end)

	for name, tc := range map[string]struct {
		first, next *http2.Frame
		want        *http2.Violation
	}{
		"DATA inside a block":               {frame(http2.FrameHeaders, 0, 1, "x"), frame(http2.FrameData, 0, 1, "y"), http2.ErrContinuationExpected},
		"PING inside a block":               {frame(http2.FrameHeaders, 0, 1, "x"), frame(http2.FramePing, 0, 0, ""), http2.ErrContinuationExpected},
		"CONTINUATION of another stream":    {frame(http2.FramePushPromise, 0, 1, "x"), frame(http2.FrameContinuation, 0, 3, "y"), http2.ErrContinuationExpected},
		"HEADERS inside a block":            {frame(http2.FrameHeaders, 0, 1, "x"), frame(http2.FrameHeaders, http2.FlagEndHeaders, 3, "y"), http2.ErrContinuationExpected},
		"CONTINUATION after END_HEADERS":    {frame(http2.FrameHeaders, http2.FlagEndHeaders, 1, "x"), frame(http2.FrameContinuation, 0, 1, "y"), http2.ErrContinuationStray},
		"CONTINUATION with no block at all": {frame(http2.FrameData, 0, 1, "x"), frame(http2.FrameContinuation, http2.FlagEndHeaders, 1, "y"), http2.ErrContinuationStray},
	} {
		var b http2.Block
		_, _, err := b.Next(tc.first)
		require.NoError(t, err, name)
		_, _, err = b.Next(tc.next)
		require.ErrorIs(t, err, tc.want, name)
		assert.False(t, http2.ViolationOf(err).Stream, name)
		assert.Equal(t, http2.CodeProtocol, http2.ViolationOf(err).Code, name)
	}
}

// TestBlockLimits: a block over MaxSize, or in more CONTINUATION frames
// than MaxContinuations (a flood of empty ones), is refused with
// ENHANCE_YOUR_CALM; exactly at the limits it is not.
func TestBlockLimits(t *testing.T) {
	b := http2.Block{MaxSize: 10}
	_, _, err := b.Next(frame(http2.FrameHeaders, 0, 1, "12345"))
	require.NoError(t, err)
	_, end, err := b.Next(frame(http2.FrameContinuation, http2.FlagEndHeaders, 1, "67890"))
	require.NoError(t, err, "exactly MaxSize")
	assert.True(t, end)
	_, _, err = b.Next(frame(http2.FrameHeaders, 0, 3, "12345"))
	require.NoError(t, err, "the count starts again with each block")
	_, _, err = b.Next(frame(http2.FrameContinuation, 0, 3, "678901"))
	require.ErrorIs(t, err, http2.ErrBlockTooLarge)
	assert.Equal(t, http2.CodeEnhanceYourCalm, http2.ViolationOf(err).Code)

	var d http2.Block // defaults
	_, _, err = d.Next(frame(http2.FrameHeaders, 0, 1, ""))
	require.NoError(t, err)
	for i := range http2.DefaultMaxContinuations {
		_, _, err = d.Next(frame(http2.FrameContinuation, 0, 1, ""))
		require.NoError(t, err, "continuation %d", i+1)
	}
	_, _, err = d.Next(frame(http2.FrameContinuation, 0, 1, ""))
	require.ErrorIs(t, err, http2.ErrBlockTooManyFrames)
	assert.Equal(t, http2.CodeEnhanceYourCalm, http2.ViolationOf(err).Code)

	var big http2.Block
	_, _, err = big.Next(frame(http2.FrameHeaders, 0, 1, string(make([]byte, http2.DefaultMaxBlock+1))))
	require.ErrorIs(t, err, http2.ErrBlockTooLarge, "one HEADERS frame over the default cap")
}
