package codec

import (
	"errors"
	"strconv"

	"github.com/netkit/netkit/buf"
)

// ErrShort reports that the input ends before the message does. Nothing
// was consumed: append more bytes and decode again. It is the one
// "more input" sentinel of every codec; a codec package may give it its
// own name (var ErrShort = codec.ErrShort), which is the same value.
var ErrShort = errors.New("codec: short input")

// A StreamDecoder takes the next message off the front of in and stores it
// in *dst. It returns nil and consumes the message's bytes, or ErrShort
// and consumes nothing, or an error that says why the input is refused.
// Every codec's stream decoder has this method; code that runs decoders
// without knowing which (the event loop's decoder handler) depends on this
// interface only.
type StreamDecoder[T any] interface {
	Decode(in *buf.Composite, dst *T) error
}

// A Rule is a rule of a specification that input, or a value to encode,
// breaks. Each codec's violation type embeds it and adds what its protocol
// answers a violation with (an HTTP status, an MQTT reason code, an
// HTTP/2 stream or connection error). Violations are sentinels, compared
// by identity with errors.Is.
type Rule struct {
	// Ref is where the rule is stated: "RFC 9112 §6.3", "RFC 7541 §5.2",
	// "MQTT-1.5.4-1".
	Ref string
	// Msg says what is wrong, in a few words.
	Msg string
}

// String returns "<Msg> (<Ref>)"; a codec's violation prefixes it with the
// package name to make its Error.
func (r *Rule) String() string {
	if r.Ref == "" {
		return r.Msg
	}
	return r.Msg + " (" + r.Ref + ")"
}

// A FieldError reports a value a codec refuses because of one field: what
// is wrong (Kind, one of the codec's sentinels, so errors.Is works) and
// which field (Field, named as the codec's documentation names it, and
// Index, the position in a list of fields, or -1 for a field that is not
// in a list). Encoders return it for a value they refuse to write;
// decoders for a message whose framing is intact but whose field is
// refused.
type FieldError struct {
	Kind  error
	Field string
	Index int
}

// Error returns "<Kind>: <Field>" or "<Kind>: <Field>[<Index>]". A Field
// holding a byte outside printable ASCII (a name a peer sent, say) is
// quoted, so that no CR, LF or escape sequence reaches a log unescaped.
func (e *FieldError) Error() string {
	s := e.Kind.Error()
	if e.Field != "" {
		s += ": " + printable(e.Field)
	}
	if e.Index >= 0 {
		s += "[" + strconv.Itoa(e.Index) + "]"
	}
	return s
}

// Unwrap returns Kind, for errors.Is.
func (e *FieldError) Unwrap() error { return e.Kind }

// printable returns s, or s quoted when it holds a byte outside printable
// ASCII.
func printable(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return strconv.Quote(s)
		}
	}
	return s
}
