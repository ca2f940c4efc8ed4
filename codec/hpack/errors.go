package hpack

import (
	"errors"
	"strconv"

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
// package is one; they are compared by identity (errors.Is).
type Violation struct {
	// Stream is true when the block was decoded to its end and the dynamic
	// table is in step with the peer's, but the header list is refused:
	// malformed (RFC 9113 §8.1.1, answered with RST_STREAM of type
	// PROTOCOL_ERROR) or over a limit (answered with status 431, or
	// RST_STREAM). Such a violation arrives as a *HeaderError. When Stream
	// is false the violation is a *SyntaxError and the connection is lost.
	Stream bool
	// Section is where the rule is stated, such as "RFC 7541 §5.2".
	Section string
	// Msg says what is wrong.
	Msg string
}

// Error returns "hpack: <Msg> (<Section>)".
func (v *Violation) Error() string { return "hpack: " + v.Msg + " (" + v.Section + ")" }

func conn(section, msg string) *Violation { return &Violation{Section: section, Msg: msg} }
func stream(section, msg string) *Violation {
	return &Violation{Stream: true, Section: section, Msg: msg}
}

// A HeaderError reports a header list the decoder refuses although the
// block itself decoded: Kind is one of the package's *Violation sentinels
// with Stream true. The decoder raises it once the whole block is
// processed, so the dynamic table stays in step, and it emits no field
// after the one at fault; the caller discards the fields emitted before
// and resets the stream (or answers 431 for ErrListTooLarge and
// ErrTooManyFields). The connection can go on.
type HeaderError struct {
	Kind *Violation
	// Field is the position in the header list (from 0) of the field at
	// fault, or -1 for a rule about the whole list (a missing
	// pseudo-header).
	Field int
	// Name is the name of the field at fault (at most 64 bytes of it), or
	// the missing pseudo-header's.
	Name string
}

func (e *HeaderError) Error() string {
	s := e.Kind.Error()
	if e.Name != "" {
		s += ": " + quote(e.Name)
	}
	if e.Field >= 0 {
		s += " in field " + itoa(e.Field)
	}
	return s
}

// Unwrap returns Kind, for errors.Is.
func (e *HeaderError) Unwrap() error { return e.Kind }

// IsStreamError reports whether err is a stream-level error (a
// *HeaderError): the connection and its dynamic table can go on. Any other
// non-nil error from a Decoder is a connection error.
func IsStreamError(err error) bool {
	var h *HeaderError
	return errors.As(err, &h)
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
// validates (NewRequestDecoder, NewResponseDecoder, WithValidation): stream
// errors, raised after the whole block.
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

func quote(s string) string { return strconv.Quote(s) }
func itoa(i int) string     { return strconv.Itoa(i) }
