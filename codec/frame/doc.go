// Package frame splits a byte stream into frames: lines ([Line]), frames
// ended by one of several delimiters ([Delimiter]), frames of a fixed size
// ([Fixed]) and frames that carry their own length ([LengthField], with
// [AppendLengthField] to write one). These are Netty's frame decoders, over
// a [buf.Composite] that accumulates reads as they arrive.
//
// # Batches
//
// The fast way to take frames is Each, which every decoder has: it calls a
// function with each complete frame in the composite, lent in place, and
// consumes them all with one Discard when it returns:
//
//	in.Append(read)
//	err := d.Each(in, func(frame []byte) error {
//		handle(frame) // valid until this function returns
//		return nil
//	})
//
// A frame that lies in one read is a slice of that read's memory; one that
// straddles reads is gathered into a scratch slice of the decoder, reused
// for the next such frame (in the invariants build it is poisoned when the
// function returns, so that a kept slice reads garbage in tests). Nothing
// is counted or pooled per frame: this is bufio.Scanner's contract, at a
// batch of frames per call. To keep a frame, call the decoder's Retained
// inside the function: it returns the frame as a *buf.Buffer the caller
// owns (a view of the read, holding a reference to it, or a copy when the
// frame straddles reads). Each returns nil once no complete frame is left,
// the function's error when it returns one (that frame counts as
// consumed, later ones are not), or the error Decode would return for a
// dropped frame (the frames before it were handed out; call Each again to
// go on). The function must not use the composite or the decoder, but for
// Retained. A panic in it goes through Each unchanged; the composite and
// the decoder are then in no defined state: Reset the decoder, and empty
// the composite, before using them again (the event loop closes the
// connection).
//
// # Decoding
//
// Every decoder implements [Decoder], the codec contract's
// [codec.StreamDecoder] of *buf.Buffer. The caller appends each read to a
// composite and calls Decode until it returns [ErrShort]:
//
//	in.Append(read) // in takes the buffer's reference
//	var f *buf.Buffer
//	for {
//		err := d.Decode(in, &f)
//		if err == frame.ErrShort {
//			break // wait for the next read
//		}
//		if err != nil {
//			… // ErrTooLong: that frame was dropped, decoding goes on;
//			  // ErrBadLength: the stream is corrupt, close it
//			continue
//		}
//		handle(f) // f is the caller's: Release it when done
//	}
//
// A frame longer than 256 bytes that lies in one read comes back as a view
// of that read's memory (nothing is copied; the view holds a reference to
// the read's buffer, see [buf.Composite.NextRetained]); a shorter frame, or
// one that straddles reads, is copied into a buffer of its own: for a short
// frame the copy costs less than a view's reference counting, and a kept
// frame does not keep the whole read alive. Either way the frame is the
// caller's to keep and must be released once. Decode consumes each frame's bytes, its
// header and delimiter, with [buf.Composite.Discard], so reads whose bytes
// have all been decoded are released at once.
//
// A decoder never sees the end of the stream. When the peer is done, bytes
// left in the composite (in.Len() > 0), or a too-long frame still being
// discarded, mean the stream ended inside a frame: the caller decides
// whether that is an error.
//
// # Borrowing
//
// Each decoder also has Next, which returns the next frame as a []byte lent
// until the next call on the decoder or on the composite, as
// bufio.Scanner.Bytes is: it aliases the read (or, for a frame that
// straddles reads, a scratch area of the composite) and costs no reference
// counting. Decode and Next may be mixed on one stream. Next releases the
// reads its previous frame used when it is called again.
//
// Frames cost no allocation in steady state, whichever way they are taken;
// an error, rare by nature, allocates itself.
//
// A decoder keeps state between calls (how far it has searched, whether it
// is discarding) and belongs to one stream: between calls the caller may
// append to the composite but must not read or discard from it, and it
// calls Reset to use the decoder on another stream. Decoders are not safe
// for concurrent use.
//
// # Limits and too-long frames
//
// Every decoder but Fixed caps a frame's length (MaxFrameLength, 0 meaning
// [DefaultMaxFrameLength]). A frame over the cap
// follows Netty's contract: the decoder enters discard mode, drops the
// frame's bytes as they arrive (returning ErrShort meanwhile, the one case
// where a call that returns ErrShort consumes input) and reports the frame
// once as a [*SyntaxError] of kind [ErrTooLong] — as soon as the frame is
// known to be too long when FailFast is set, else once its last byte has
// passed — and then decodes the next frame. The composite never holds more
// than the cap plus the last read, however long the frame: a 1 GiB line or
// a 1 GiB length prefix costs no more memory than a frame at the cap.
//
// Error offsets are stream offsets: bytes counted from the first byte the
// decoder consumed (since it was made or Reset) to the first byte of the
// frame at fault.
//
// # Configuration
//
// The zero values of Line and LengthField are ready to use;
// Delimiter needs its delimiters (NewDelimiter) and Fixed its Length. A
// configuration that cannot work — a Fixed without a positive Length, a
// Delimiter not made by NewDelimiter or made without delimiters, a
// LengthField whose field cannot be read (see [LengthField]) — is not a
// panic: Decode and Next return an error wrapping [ErrConfig] on every
// call and consume nothing, and Validate reports it up front.
//
// # Decoders in detail
//
// [Line] splits at "\n" and "\r\n" (StripDelimiter drops them). The
// delimiter decoder runs any set of delimiters through search.Set: the
// earliest start wins, the first listed at a tie, and the answer never
// depends on how the stream was cut into reads. [LengthField] reads a 1-,
// 2-, 3-, 4- or 8-byte length at any offset, in either byte order, with an
// adjustment and a number of bytes to strip; a configuration it cannot
// honour, such as a header longer than the cap, is an [ErrConfig] error,
// and an 8-byte length of 2^63 or more an [ErrBadLength] at once.
// [AppendLengthField] is the matching prepender.
//
// # Testing
//
// Each decoder is tested against a slow model of the whole stream, fed in
// chunkings from 1 byte to 64 KiB, and has a fuzz target; a test streams a
// 1 GiB line and a 1 GiB length prefix through the discard path to show
// that memory stays at the cap.
package frame

import (
	"errors"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec"
)

// A Decoder takes the next frame off the front of in and stores it in
// *dst, as a buffer the caller owns (Release it once). It returns nil, or
// ErrShort when in holds no complete frame yet, or a *SyntaxError for a
// frame it dropped, or an error wrapping ErrConfig; on an error *dst is
// left as it was. It is the codec contract's stream decoder, so the event
// loop's decoder handler runs any of them.
type Decoder = codec.StreamDecoder[*buf.Buffer]

// DefaultMaxFrameLength caps frames when a decoder's MaxFrameLength is 0:
// 1 MiB.
const DefaultMaxFrameLength = 1 << 20

// ErrShort reports that the input holds no complete frame yet: append the
// next read and call Decode again. It is codec.ErrShort.
var ErrShort = codec.ErrShort

// Sentinel kinds of [SyntaxError]; test for them with errors.Is.
var (
	// ErrTooLong reports a frame longer than the decoder's cap. The frame
	// has been (or is being) skipped; decoding continues after it.
	ErrTooLong = errors.New("frame: frame too long")
	// ErrBadLength reports a length field whose frame cannot exist: shorter
	// than its own header once adjusted, shorter than the bytes to strip,
	// or an 8-byte value of 2^63 or more (negative as a signed length).
	// The header (or frame) has been skipped, but the stream is probably
	// corrupt from here on.
	ErrBadLength = errors.New("frame: bad length field")
)

// ErrConfig is wrapped by the error a decoder returns when its
// configuration cannot work (see "Configuration" in the package doc): it
// consumes nothing and returns the error on every call. It is not a
// *SyntaxError: the stream is not at fault.
var ErrConfig = errors.New("frame: invalid configuration")

// A SyntaxError reports a dropped frame: what (Kind, one of the package's
// sentinels) and where (Offset, the stream offset of the frame's first
// byte; see the package doc).
type SyntaxError = codec.SyntaxError

func syntaxError(off int64, kind error) error {
	return &SyntaxError{Offset: int(off), Kind: kind}
}

// capOr returns n, or DefaultMaxFrameLength when n is 0 or less.
func capOr(n int) int {
	if n <= 0 {
		return DefaultMaxFrameLength
	}
	return n
}

// A locator finds the next frame of in: each decoder's locate, which
// consumes what belongs to no frame (a too-long frame being discarded) and
// returns the frame's layout — pre bytes to drop, n to keep, post to drop —
// or an error, leaving the frame's own bytes for decode or next to take.
type locator interface {
	locate(in *buf.Composite) (pre, n, post int, err error)
}

// decode is every decoder's Decode: the kept bytes become a buffer the
// caller owns, stored in *dst, and the bytes read are released.
func decode(d locator, in *buf.Composite, dst **buf.Buffer) error {
	pre, n, post, err := d.locate(in)
	if err != nil {
		return err
	}
	if pre > 0 {
		in.Skip(pre)
	}
	if n <= copyMax {
		b := in.Allocator().Get(n)
		in.Read(b.AvailableBuffer()[:n])
		b.Commit(n)
		*dst = b
	} else {
		*dst, _ = in.NextRetained(n)
	}
	in.Discard(post)
	return nil
}

// copyMax is the longest frame that Decode and Retained copy into a buffer
// of its own rather than view in place. A view costs two more atomic
// operations than a pooled buffer (its parent's retain and release) and
// keeps the whole read's memory alive for as long as it is kept; up to
// here, copying the bytes costs less.
const copyMax = 256

// next is every decoder's Next: the kept bytes are lent (Composite.Next),
// and what the previous frame read is released only now.
func next(d locator, in *buf.Composite) ([]byte, error) {
	in.Discard(0)
	pre, n, post, err := d.locate(in)
	if err != nil {
		return nil, err
	}
	if pre > 0 {
		in.Skip(pre)
	}
	p, _ := in.Next(n + post)
	return p[:n:n], nil
}

var (
	_ Decoder = (*Line)(nil)
	_ Decoder = (*Delimiter)(nil)
	_ Decoder = (*Fixed)(nil)
	_ Decoder = (*LengthField)(nil)
)
