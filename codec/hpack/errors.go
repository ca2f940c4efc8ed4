package hpack

import (
	"errors"

	"github.com/netkit/netkit/codec"
)

// A SyntaxError reports a header block the decoder cannot decode: what
// (Kind, one of the package's *Violation sentinels with Stream false) and
// where (Offset, in bytes from the start of the block, counted across its
// fragments). HTTP/2 answers it with a connection error of type
// COMPRESSION_ERROR (RFC 9113 §4.3): the dynamic table may be out of step
// with the peer's, so the connection cannot go on.
type SyntaxError = codec.SyntaxError

// A Violation is a rule a header block breaks. Every sentinel error of the
// package is one; they are compared by identity (errors.Is). Ref, of the
// embedded [codec.Rule], is where the rule is stated, such as "RFC 7541
// §5.2"; Msg says what is wrong.
type Violation struct {
	codec.Rule
	// Stream is true when the block was decoded to its end and the dynamic
	// table is in step with the peer's, but the header list is refused:
	// malformed (RFC 9113 §8.1.1, answered with RST_STREAM of type
	// PROTOCOL_ERROR) or over a limit (answered with status 431, or
	// RST_STREAM). Such a violation arrives as a *FieldError. When Stream
	// is false the violation is a *SyntaxError and the connection is lost.
	Stream bool
}

// Error returns "hpack: <Msg> (<Ref>)".
func (v *Violation) Error() string { return "hpack: " + v.Msg + " (" + v.Ref + ")" }

func conn(ref, msg string) *Violation { return &Violation{Rule: codec.Rule{Ref: ref, Msg: msg}} }
func stream(ref, msg string) *Violation {
	return &Violation{Rule: codec.Rule{Ref: ref, Msg: msg}, Stream: true}
}

// A FieldError reports a header list the decoder refuses although the
// block itself decoded: Kind is one of the package's *Violation sentinels
// with Stream true, Field the name of the field at fault (at most 64 bytes
// of it, as the peer sent it) or of the missing pseudo-header, and Index
// the field's position in the list (from 0), or -1 for a rule about the
// whole list (a missing pseudo-header). The decoder raises it once the
// whole block is processed, so the dynamic table stays in step, and it
// emits no field after the one at fault; the caller discards the fields
// emitted before and resets the stream (or answers 431 for
// ErrListTooLarge and ErrTooManyFields). The connection can go on.
type FieldError = codec.FieldError

// HeaderError is the former name of the stream error a Decoder returns.
// Its fields changed with its type: Field is the field's name (formerly
// Name) and Index its position (formerly Field).
//
// Deprecated: use FieldError, and IsStreamError to tell a stream error.
type HeaderError = codec.FieldError

// IsStreamError reports whether err is a stream-level error: it wraps one
// of this package's *Violation sentinels with Stream true (a Decoder
// returns it as a *FieldError), so the connection and its dynamic table
// can go on. A Decoder's other errors are a *SyntaxError, a connection
// error, or an error its EmitFunc returned, which the caller knows. A
// FieldError of another codec is not an hpack stream error: the test is
// on the Kind, not on the type.
func IsStreamError(err error) bool {
	var v *Violation
	return errors.As(err, &v) && v.Stream
}

// Violations of RFC 7541 found while decoding: connection errors.
var (
	ErrTruncated        = conn("RFC 7541 §2.3", "header block ends inside a field representation")
	ErrIntegerOverflow  = conn("RFC 7541 §5.1", "integer too large")
	ErrIndexZero        = conn("RFC 7541 §6.1", "index 0")
	ErrIndexRange       = conn("RFC 7541 §2.3.3", "index beyond the static and dynamic tables")
	ErrHuffmanPadding   = conn("RFC 7541 §5.2", "Huffman padding longer than 7 bits or not the EOS prefix")
	ErrHuffmanEOS       = conn("RFC 7541 §5.2", "Huffman-encoded string contains EOS")
	ErrStringTooLong    = conn("RFC 7541 §7.4", "string longer than the decoder's maximum string length")
	ErrSizeUpdateLate   = conn("RFC 7541 §4.2", "dynamic table size update after the first field of a block")
	ErrSizeUpdateMany   = conn("RFC 7541 §4.2", "more than two dynamic table size updates in a block")
	ErrSizeUpdateLarge  = conn("RFC 7541 §6.3", "dynamic table size update above the limit set by SETTINGS_HEADER_TABLE_SIZE")
	ErrSizeUpdateMissed = conn("RFC 7541 §4.2", "no dynamic table size update at the start of the first block after the limit was lowered")
	ErrBlockUnfinished  = conn("RFC 9113 §4.3", "a new header block began before the previous one ended")
)

// Limits: stream errors, raised after the whole block.
var (
	ErrListTooLarge  = stream("RFC 9113 §6.5.2", "header list larger than the decoder's limit (name + value + 32 per field)")
	ErrTooManyFields = stream("RFC 9113 §10.5.1", "more fields in the header list than the decoder's limit")
)

// Malformed header lists (RFC 9113 §8.1.1), found by a decoder that
// validates (Decoder.Validate set to Request or Response): stream errors,
// raised after the whole block.
var (
	ErrNameEmpty          = stream("RFC 9113 §8.2.1", "empty field name")
	ErrNameUppercase      = stream("RFC 9113 §8.2.1", "uppercase letter in a field name")
	ErrNameInvalid        = stream("RFC 9113 §8.2.1", "character not allowed in a field name")
	ErrValueInvalid       = stream("RFC 9113 §8.2.1", "NUL, CR or LF in a field value")
	ErrValueSpace         = stream("RFC 9113 §8.2.1", "field value starts or ends with a space or tab")
	ErrConnectionSpecific = stream("RFC 9113 §8.2.2", "connection-specific field")
	ErrTE                 = stream("RFC 9113 §8.2.2", "te field with a value other than \"trailers\"")
	ErrPseudoUnknown      = stream("RFC 9113 §8.3", "unknown pseudo-header")
	ErrPseudoWrongKind    = stream("RFC 9113 §8.3", "response pseudo-header in a request, or request pseudo-header in a response")
	ErrPseudoDuplicate    = stream("RFC 9113 §8.3", "pseudo-header repeated")
	ErrPseudoAfterRegular = stream("RFC 9113 §8.3", "pseudo-header after a regular field")
	ErrPseudoInTrailers   = stream("RFC 9113 §8.1", "pseudo-header in trailers")
	ErrPseudoMissing      = stream("RFC 9113 §8.3.1", "request without :method, :scheme or :path, or response without :status")
	ErrPathEmpty          = stream("RFC 9113 §8.3.1", "empty :path")
	ErrStatusInvalid      = stream("RFC 9113 §8.3.2", ":status is not three digits")
	ErrConnectInvalid     = stream("RFC 9113 §8.5", "CONNECT request with :scheme or :path, or without :authority")
)
