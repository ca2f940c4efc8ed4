package http2

// Limits of a Block, by default.
const (
	// DefaultMaxBlock is the default cap on a header block's encoded
	// size, all its fragments together: 64 KiB.
	DefaultMaxBlock = 64 << 10
	// DefaultMaxContinuations is the default cap on the CONTINUATION
	// frames of one block. A byte cap alone would not stop a flood of
	// empty CONTINUATION frames (CVE-2024-27316's kin).
	DefaultMaxContinuations = 128
)

// A Block follows a connection's header blocks across their frames
// (RFC 9113 §4.3, §6.10): a HEADERS or PUSH_PROMISE frame opens one, and
// CONTINUATION frames of the same stream follow it until one carries
// END_HEADERS. No other frame may come in between. A Block checks that
// order and caps a block's size and its number of frames before the
// fragments reach the HPACK decoder, which takes them one at a time
// (hpack.Decoder.DecodeFragment): nothing is buffered here. The zero Block
// is ready to use, with the default limits.
type Block struct {
	// MaxSize caps a block's encoded size, all fragments together (0:
	// DefaultMaxBlock). A larger block is a connection error of type
	// ENHANCE_YOUR_CALM: without decoding it, the HPACK state cannot stay
	// in step, so the connection cannot go on.
	MaxSize int
	// MaxContinuations caps the CONTINUATION frames of one block (0:
	// DefaultMaxContinuations), a connection error of type
	// ENHANCE_YOUR_CALM beyond it.
	MaxContinuations int

	open   bool
	stream uint32
	size   int
	frames int
}

// Open reports whether a header block is open: the next frame must be
// its CONTINUATION.
func (b *Block) Open() bool { return b.open }

// StreamID is the stream of the open block.
func (b *Block) StreamID() uint32 { return b.stream }

// Next takes every frame the connection decodes, in order. For HEADERS,
// PUSH_PROMISE and CONTINUATION it returns the fragment to hand to the
// HPACK decoder and whether the block ends with it; for the other types,
// a nil fragment. The error is a connection error (a *SyntaxError at
// offset 0 whose Kind is a *Violation): a frame out of place inside a
// block (ErrContinuationExpected), a CONTINUATION outside one
// (ErrContinuationStray), or a block over the limits.
func (b *Block) Next(f *Frame) (fragment []byte, end bool, err error) {
	if b.open {
		if f.Type != FrameContinuation || f.StreamID != b.stream {
			return nil, false, fail(0, ErrContinuationExpected)
		}
		b.frames++
		if b.frames > b.maxContinuations() {
			return nil, false, fail(0, ErrBlockTooManyFrames)
		}
		return b.add(f)
	}
	switch f.Type {
	case FrameHeaders, FramePushPromise:
		b.open, b.stream, b.size, b.frames = true, f.StreamID, 0, 0
		return b.add(f)
	case FrameContinuation:
		return nil, false, fail(0, ErrContinuationStray)
	}
	return nil, false, nil
}

func (b *Block) add(f *Frame) ([]byte, bool, error) {
	b.size += len(f.Data)
	if b.size > b.maxSize() {
		return nil, false, fail(0, ErrBlockTooLarge)
	}
	if f.Flags&FlagEndHeaders != 0 {
		b.open = false
		return f.Data, true, nil
	}
	return f.Data, false, nil
}

func (b *Block) maxSize() int {
	if b.MaxSize <= 0 {
		return DefaultMaxBlock
	}
	return b.MaxSize
}

func (b *Block) maxContinuations() int {
	if b.MaxContinuations <= 0 {
		return DefaultMaxContinuations
	}
	return b.MaxContinuations
}
