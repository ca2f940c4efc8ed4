package mqtt

import (
	"errors"
	"strings"

	"github.com/netkit/netkit/codec"
)

// ErrShort reports that the input ends before the packet does. Nothing was
// consumed: append more bytes and decode again. It is [codec.ErrShort],
// the one "more input" sentinel of every netkit codec.
var ErrShort = codec.ErrShort

// A SyntaxError reports input the decoder rejects: what (Kind, one of the
// package's *Violation sentinels) and where (Offset, in bytes from the start
// of the packet's first byte). Test for a kind with errors.Is, and get the
// reason code a broker would send with [ReasonOf].
type SyntaxError = codec.SyntaxError

// A FieldError reports a value an encoder refuses to write because of one
// field: Kind is the *Violation, Field names the field as this package's
// documentation does ("topic filter", "will topic", a property's name)
// and Index is its position in a list (the filters of a SUBSCRIBE, the
// reason codes of a SUBACK, a user property), or -1.
type FieldError = codec.FieldError

// A Violation is a rule of the specification that an input or a packet to
// encode breaks. Every sentinel error of this package is one; they are
// compared by identity (errors.Is).
//
// Ref, of the embedded [codec.Rule], names the rule: a normative statement
// of MQTT 5.0 ("MQTT-1.5.4-1") or, where the text has none, its section
// ("§2.2.2.2"). MQTT 3.1.1 states the same rules under other numbers;
// rules that exist only in 3.1.1 say so. Msg says what is wrong.
type Violation struct {
	codec.Rule
	// Reason is the MQTT 5.0 reason code a receiver sends (in a CONNACK
	// or a DISCONNECT) when it sees this violation: MalformedPacket,
	// ProtocolError, PacketTooLarge …
	Reason ReasonCode
}

// Error returns "mqtt: <Msg> [<Ref>]", or "mqtt: <Msg> (MQTT 5.0 §<n>)"
// for a rule named by its section.
func (v *Violation) Error() string {
	if strings.HasPrefix(v.Ref, "§") {
		return "mqtt: " + v.Msg + " (MQTT 5.0 " + v.Ref + ")"
	}
	return "mqtt: " + v.Msg + " [" + v.Ref + "]"
}

func violation(r ReasonCode, ref, msg string) *Violation {
	return &Violation{Rule: codec.Rule{Ref: ref, Msg: msg}, Reason: r}
}

// ReasonOf returns the reason code a receiver sends for err: the Reason of
// the *Violation err wraps, Success for nil, and UnspecifiedError for any
// other error (ErrShort included, which is not a violation).
func ReasonOf(err error) ReasonCode {
	if err == nil {
		return Success
	}
	var v *Violation
	if errors.As(err, &v) {
		return v.Reason
	}
	return UnspecifiedError
}

// The violations decoding reports (as the Kind of a *SyntaxError) and
// encoding returns (alone, or as the Kind of a *FieldError that names the
// field).
var (
	// Fixed header and framing.
	ErrUnknownType    = violation(MalformedPacket, "§2.1.2", "reserved packet type (0, or 15 before MQTT 5.0)")
	ErrReservedFlags  = violation(MalformedPacket, "MQTT-2.1.3-1", "reserved flag bits of the fixed header have the wrong value")
	ErrVarInt         = violation(MalformedPacket, "§1.5.5", "variable byte integer longer than 4 bytes")
	ErrVarIntLong     = violation(MalformedPacket, "MQTT-1.5.5-1", "variable byte integer not in its shortest form")
	ErrPacketTooLarge = violation(PacketTooLarge, "MQTT-3.2.2-15", "packet larger than the maximum packet size")
	ErrMalformed      = violation(MalformedPacket, "§2.1.4", "remaining length disagrees with the packet's fields")
	ErrNoVersion      = violation(ProtocolError, "MQTT-3.1.0-1", "protocol version unknown: no CONNECT yet (a client sets Decoder.Version and Encoder.Version)")
	ErrSecondConnect  = violation(ProtocolError, "MQTT-3.1.0-2", "second CONNECT on a connection")
	ErrTooMany        = violation(ImplementationSpecific, "§4.13", "more filters, user properties or subscription identifiers than the decoder's limit")

	// Strings and topics.
	ErrBadUTF8         = violation(MalformedPacket, "MQTT-1.5.4-1", "ill-formed UTF-8 in a string")
	ErrNullChar        = violation(MalformedPacket, "MQTT-1.5.4-2", "U+0000 in a string")
	ErrStringTooLong   = violation(MalformedPacket, "§1.5.4", "string or binary data longer than 65,535 bytes")
	ErrTopicWildcard   = violation(ProtocolError, "MQTT-3.3.2-2", "wildcard in a topic name") // mosquitto answers 0x82 too
	ErrTopicEmpty      = violation(ProtocolError, "MQTT-4.7.3-1", "empty topic name or filter")
	ErrFilterMultiWild = violation(MalformedPacket, "MQTT-4.7.1-1", "'#' not alone as the last level of a topic filter")
	ErrFilterWild      = violation(MalformedPacket, "MQTT-4.7.1-2", "'+' not alone in its level of a topic filter")
	ErrShareName       = violation(MalformedPacket, "MQTT-4.8.2-2", "shared subscription without a valid share name and filter")

	// Packet fields.
	ErrBadQoS           = violation(MalformedPacket, "MQTT-3.3.1-4", "QoS 3")
	ErrDupOnQoS0        = violation(MalformedPacket, "MQTT-3.3.1-2", "DUP set on a QoS 0 PUBLISH")
	ErrZeroPacketID     = violation(ProtocolError, "MQTT-2.2.1-3", "packet identifier 0 where one is required")
	ErrPacketIDOnQoS0   = violation(ProtocolError, "MQTT-2.2.1-2", "packet identifier on a QoS 0 PUBLISH")
	ErrBadReasonCode    = violation(ProtocolError, "§2.4", "reason code not allowed on this packet type")
	ErrProtocolName     = violation(UnsupportedProtocolVersion, "MQTT-3.1.2-1", "protocol name is not \"MQTT\"")
	ErrVersion          = violation(UnsupportedProtocolVersion, "MQTT-3.1.2-2", "unsupported protocol level")
	ErrConnectReserved  = violation(MalformedPacket, "MQTT-3.1.2-3", "reserved CONNECT flag set")
	ErrWillQoS          = violation(MalformedPacket, "MQTT-3.1.2-12", "will QoS 3")
	ErrWillQoSNoWill    = violation(MalformedPacket, "MQTT-3.1.2-11", "will QoS without the will flag")
	ErrWillRetainNoWill = violation(MalformedPacket, "MQTT-3.1.2-13", "will retain without the will flag")
	ErrPasswordNoUser   = violation(MalformedPacket, "MQTT-3.1.2-22 (3.1.1)", "password without a user name")
	ErrEmptyClientID    = violation(ClientIDNotValid, "MQTT-3.1.3-7 (3.1.1)", "empty client identifier without clean session (3.1.1), or in MQTT 3.1")
	ErrAuthNoMethod     = violation(ProtocolError, "§3.15.2.2.2", "AUTH without an authentication method")
	ErrAuthDataNoMethod = violation(ProtocolError, "§3.1.2.11.10", "authentication data without an authentication method")
	ErrFieldNoFlag      = violation(MalformedPacket, "MQTT-3.1.2-16", "user name, password or will set without its CONNECT flag (encoding)")
	ErrConnackFlags     = violation(MalformedPacket, "MQTT-3.2.2-1", "reserved CONNACK flags set")
	ErrSessionPresent   = violation(ProtocolError, "MQTT-3.2.2-6", "session present on a refused connection")
	ErrNoSubscriptions  = violation(ProtocolError, "MQTT-3.8.3-2", "SUBSCRIBE without a topic filter")
	ErrSubOptions       = violation(MalformedPacket, "MQTT-3.8.3-5", "reserved subscription option bits set")
	ErrSubQoS           = violation(ProtocolError, "§3.8.3.1", "subscription maximum QoS 3")
	ErrRetainHandling   = violation(ProtocolError, "§3.8.3.1", "retain handling 3")
	ErrSharedNoLocal    = violation(ProtocolError, "MQTT-3.8.3-4", "no local set on a shared subscription")
	ErrNoFilters        = violation(ProtocolError, "MQTT-3.10.3-2", "UNSUBSCRIBE without a topic filter")
	ErrNoReasonCodes    = violation(ProtocolError, "MQTT-3.9.3-2", "acknowledgement without a reason code")

	// Properties.
	ErrUnknownProperty    = violation(MalformedPacket, "§2.2.2.2", "unknown property identifier")
	ErrPropertyNotAllowed = violation(MalformedPacket, "§2.2.2.2", "property not allowed on this packet type")
	ErrDuplicateProperty  = violation(ProtocolError, "§2.2.2.2", "property that may appear once appears twice")
	ErrPropertyValue      = violation(ProtocolError, "§3", "property value out of range")
	ErrTopicAliasZero     = violation(TopicAliasInvalid, "MQTT-3.3.2-8", "topic alias 0")
	ErrSubscriptionIDZero = violation(ProtocolError, "§3.3.2.3.8", "subscription identifier 0")
	ErrResponseTopic      = violation(MalformedPacket, "MQTT-3.3.2-14", "wildcard in a response topic")
)
