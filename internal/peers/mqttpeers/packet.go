package mqttpeers

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// The MQTT control packet types, as on the wire.
const (
	Connect byte = iota + 1
	Connack
	Publish
	Puback
	Pubrec
	Pubrel
	Pubcomp
	Subscribe
	Suback
	Unsubscribe
	Unsuback
	Pingreq
	Pingresp
	Disconnect
	Auth
)

// Protocol levels.
const (
	V311 byte = 4
	V5   byte = 5
)

// willProps is a pseudo packet type for the properties of a CONNECT's will
// in the allowed table.
const willProps byte = 16

var typeNames = [...]string{"RESERVED", "CONNECT", "CONNACK", "PUBLISH", "PUBACK", "PUBREC", "PUBREL",
	"PUBCOMP", "SUBSCRIBE", "SUBACK", "UNSUBSCRIBE", "UNSUBACK", "PINGREQ", "PINGRESP", "DISCONNECT", "AUTH", "WILL"}

// TypeName returns the name of packet type t ("PUBLISH").
func TypeName(t byte) string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("type(%d)", t)
}

// A Packet is a neutral description of one MQTT control packet: what every
// implementation under comparison should agree on, whatever its own types.
// Only the fields of Type are meaningful; the others stay zero.
type Packet struct {
	Type    byte
	Version byte // the connection's protocol level, or a CONNECT's own

	// PUBLISH: the fixed header's flags, topic and payload.
	Dup     bool
	QoS     byte
	Retain  bool
	Topic   string
	Payload string

	PacketID       uint16   // PUBLISH (QoS > 0), PUBACK…PUBCOMP, SUBSCRIBE…UNSUBACK
	SessionPresent bool     // CONNACK
	Reason         byte     // CONNACK (3.1.1: return code), PUBACK…PUBCOMP, DISCONNECT, AUTH
	Reasons        []byte   // SUBACK, UNSUBACK (5.0)
	Subs           []Sub    // SUBSCRIBE
	Filters        []string // UNSUBSCRIBE
	Props          []Prop   // 5.0: in wire order

	// CONNECT
	ProtocolName string
	CleanStart   bool
	KeepAlive    uint16
	ClientID     string
	Will         *Will
	HasUsername  bool
	Username     string
	HasPassword  bool
	Password     string
}

// A Will is the will message of a CONNECT.
type Will struct {
	QoS     byte
	Retain  bool
	Topic   string
	Payload string
	Props   []Prop
}

// A Sub is one topic filter of a SUBSCRIBE with its options.
type Sub struct {
	Filter            string
	QoS               byte
	NoLocal           bool // 5.0
	RetainAsPublished bool // 5.0
	RetainHandling    byte // 5.0
}

// A Prop is one MQTT 5.0 property as it appears on the wire.
type Prop struct {
	ID  byte
	N   uint32 // value of a Byte, Two Byte, Four Byte or Variable Byte Integer property
	S   string // value of a UTF-8 string or binary data property; a user property's value
	Key string // a user property's key
}

// Property identifiers.
const (
	PropPayloadFormat       byte = 0x01
	PropMessageExpiry       byte = 0x02
	PropContentType         byte = 0x03
	PropResponseTopic       byte = 0x08
	PropCorrelationData     byte = 0x09
	PropSubscriptionID      byte = 0x0B
	PropSessionExpiry       byte = 0x11
	PropAssignedClientID    byte = 0x12
	PropServerKeepAlive     byte = 0x13
	PropAuthMethod          byte = 0x15
	PropAuthData            byte = 0x16
	PropRequestProblemInfo  byte = 0x17
	PropWillDelay           byte = 0x18
	PropRequestResponseInfo byte = 0x19
	PropResponseInfo        byte = 0x1A
	PropServerReference     byte = 0x1C
	PropReasonString        byte = 0x1F
	PropReceiveMaximum      byte = 0x21
	PropTopicAliasMaximum   byte = 0x22
	PropTopicAlias          byte = 0x23
	PropMaximumQoS          byte = 0x24
	PropRetainAvailable     byte = 0x25
	PropUser                byte = 0x26
	PropMaximumPacketSize   byte = 0x27
	PropWildcardSubAvail    byte = 0x28
	PropSubIDAvailable      byte = 0x29
	PropSharedSubAvailable  byte = 0x2A
)

// propKind is the wire type of a property's value.
type propKind byte

const (
	kindNone   propKind = iota
	kindByte            // Byte
	kindU16             // Two Byte Integer
	kindU32             // Four Byte Integer
	kindVBI             // Variable Byte Integer
	kindString          // UTF-8 Encoded String
	kindBinary          // Binary Data
	kindPair            // UTF-8 String Pair
)

// propSpec says, for each property, its value's wire type and the packet
// types (bit 1<<type; bit 1<<willProps for a will) it may appear on
// (MQTT 5.0 section 2.2.2.2).
var propSpec = [256]struct {
	kind    propKind
	allowed uint32
}{
	PropPayloadFormat:       {kindByte, bit(Publish, willProps)},
	PropMessageExpiry:       {kindU32, bit(Publish, willProps)},
	PropContentType:         {kindString, bit(Publish, willProps)},
	PropResponseTopic:       {kindString, bit(Publish, willProps)},
	PropCorrelationData:     {kindBinary, bit(Publish, willProps)},
	PropSubscriptionID:      {kindVBI, bit(Publish, Subscribe)},
	PropSessionExpiry:       {kindU32, bit(Connect, Connack, Disconnect)},
	PropAssignedClientID:    {kindString, bit(Connack)},
	PropServerKeepAlive:     {kindU16, bit(Connack)},
	PropAuthMethod:          {kindString, bit(Connect, Connack, Auth)},
	PropAuthData:            {kindBinary, bit(Connect, Connack, Auth)},
	PropRequestProblemInfo:  {kindByte, bit(Connect)},
	PropWillDelay:           {kindU32, bit(willProps)},
	PropRequestResponseInfo: {kindByte, bit(Connect)},
	PropResponseInfo:        {kindString, bit(Connack)},
	PropServerReference:     {kindString, bit(Connack, Disconnect)},
	PropReasonString:        {kindString, bit(Connack, Puback, Pubrec, Pubrel, Pubcomp, Suback, Unsuback, Disconnect, Auth)},
	PropReceiveMaximum:      {kindU16, bit(Connect, Connack)},
	PropTopicAliasMaximum:   {kindU16, bit(Connect, Connack)},
	PropTopicAlias:          {kindU16, bit(Publish)},
	PropMaximumQoS:          {kindByte, bit(Connack)},
	PropRetainAvailable:     {kindByte, bit(Connack)},
	PropUser: {kindPair, bit(Connect, Connack, Publish, Puback, Pubrec, Pubrel, Pubcomp, Subscribe, Suback,
		Unsubscribe, Unsuback, Disconnect, Auth, willProps)},
	PropMaximumPacketSize:  {kindU32, bit(Connect, Connack)},
	PropWildcardSubAvail:   {kindByte, bit(Connack)},
	PropSubIDAvailable:     {kindByte, bit(Connack)},
	PropSharedSubAvailable: {kindByte, bit(Connack)},
}

func bit(types ...byte) uint32 {
	var b uint32
	for _, t := range types {
		b |= 1 << t
	}
	return b
}

// allowed reports whether property id may appear on packet type t
// (willProps for a will).
func allowed(t, id byte) bool { return propSpec[id].allowed&(1<<t) != 0 }

// repeatable reports whether property id may appear more than once.
func repeatable(id byte) bool { return id == PropUser || id == PropSubscriptionID }

// ErrInexpressible is the error, wrapped in an *InexpressibleError, of an
// implementation asked to encode a packet its types cannot hold (or that
// its encoder would silently change).
var ErrInexpressible = errors.New("mqttpeers: the implementation cannot express this packet")

// An InexpressibleError names what an implementation cannot express.
type InexpressibleError struct {
	Impl string // "paho"
	What string // "a second subscription identifier"
}

func (e *InexpressibleError) Error() string {
	return fmt.Sprintf("mqttpeers: %s cannot express %s", e.Impl, e.What)
}

func (e *InexpressibleError) Unwrap() error { return ErrInexpressible }

func inexpressible(impl, format string, args ...any) error {
	return &InexpressibleError{Impl: impl, What: fmt.Sprintf(format, args...)}
}

// checkProps reports the first property that is not allowed on packet type
// t, or single-valued and repeated: peers' encoders drop both silently.
func checkProps(impl string, t byte, props []Prop) error {
	var seen [256]bool
	for _, p := range props {
		if !allowed(t, p.ID) {
			return inexpressible(impl, "property 0x%02X on %s", p.ID, TypeName(t))
		}
		if seen[p.ID] && !repeatable(p.ID) {
			return inexpressible(impl, "a repeated property 0x%02X", p.ID)
		}
		seen[p.ID] = true
	}
	return nil
}

// Canonical returns a copy of p in the form in which two descriptions of
// the same packet are equal: properties in the order of their identifiers
// (repeated ones keep their relative order, which is significant), empty
// slices nil.
func (p *Packet) Canonical() *Packet {
	c := *p
	c.Props = canonicalProps(p.Props)
	if len(c.Reasons) == 0 {
		c.Reasons = nil
	} else {
		c.Reasons = slices.Clone(c.Reasons)
	}
	if len(c.Subs) == 0 {
		c.Subs = nil
	}
	if len(c.Filters) == 0 {
		c.Filters = nil
	}
	if p.Will != nil {
		w := *p.Will
		w.Props = canonicalProps(w.Props)
		c.Will = &w
	}
	return &c
}

func canonicalProps(props []Prop) []Prop {
	if len(props) == 0 {
		return nil
	}
	c := slices.Clone(props)
	slices.SortStableFunc(c, func(a, b Prop) int { return cmp.Compare(a.ID, b.ID) })
	return c
}

// Equal reports whether p and q describe the same packet.
func Equal(p, q *Packet) bool {
	a, b := p.Canonical(), q.Canonical()
	if (a.Will == nil) != (b.Will == nil) {
		return false
	}
	if a.Will != nil {
		wa, wb := *a.Will, *b.Will
		if wa.QoS != wb.QoS || wa.Retain != wb.Retain || wa.Topic != wb.Topic || wa.Payload != wb.Payload ||
			!slices.Equal(wa.Props, wb.Props) {
			return false
		}
	}
	a.Will, b.Will = nil, nil
	return a.Type == b.Type && a.Version == b.Version && a.Dup == b.Dup && a.QoS == b.QoS &&
		a.Retain == b.Retain && a.Topic == b.Topic && a.Payload == b.Payload && a.PacketID == b.PacketID &&
		a.SessionPresent == b.SessionPresent && a.Reason == b.Reason && slices.Equal(a.Reasons, b.Reasons) &&
		slices.Equal(a.Subs, b.Subs) && slices.Equal(a.Filters, b.Filters) && slices.Equal(a.Props, b.Props) &&
		a.ProtocolName == b.ProtocolName && a.CleanStart == b.CleanStart && a.KeepAlive == b.KeepAlive &&
		a.ClientID == b.ClientID && a.HasUsername == b.HasUsername && a.Username == b.Username &&
		a.HasPassword == b.HasPassword && a.Password == b.Password
}

// String describes p on one line, with only the fields of its type.
func (p *Packet) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s v%d", TypeName(p.Type), p.Version)
	switch p.Type {
	case Connect:
		fmt.Fprintf(&b, " proto=%q clean=%t keepalive=%d id=%q", p.ProtocolName, p.CleanStart, p.KeepAlive, p.ClientID)
		if w := p.Will; w != nil {
			fmt.Fprintf(&b, " will={qos=%d retain=%t topic=%q payload=%q props=%v}", w.QoS, w.Retain, w.Topic, w.Payload, w.Props)
		}
		if p.HasUsername {
			fmt.Fprintf(&b, " user=%q", p.Username)
		}
		if p.HasPassword {
			fmt.Fprintf(&b, " pass=%q", p.Password)
		}
	case Connack:
		fmt.Fprintf(&b, " sp=%t reason=0x%02X", p.SessionPresent, p.Reason)
	case Publish:
		fmt.Fprintf(&b, " dup=%t qos=%d retain=%t topic=%q id=%d payload=%q", p.Dup, p.QoS, p.Retain, p.Topic, p.PacketID, p.Payload)
	case Puback, Pubrec, Pubrel, Pubcomp:
		fmt.Fprintf(&b, " id=%d reason=0x%02X", p.PacketID, p.Reason)
	case Subscribe:
		fmt.Fprintf(&b, " id=%d subs=%+v", p.PacketID, p.Subs)
	case Suback, Unsuback:
		fmt.Fprintf(&b, " id=%d reasons=% X", p.PacketID, p.Reasons)
	case Unsubscribe:
		fmt.Fprintf(&b, " id=%d filters=%q", p.PacketID, p.Filters)
	case Disconnect, Auth:
		fmt.Fprintf(&b, " reason=0x%02X", p.Reason)
	}
	if len(p.Props) > 0 {
		fmt.Fprintf(&b, " props=%v", p.Props)
	}
	return b.String()
}

// String describes one property: "0x26{k=v}".
func (p Prop) String() string {
	switch propSpec[p.ID].kind {
	case kindString, kindBinary:
		return fmt.Sprintf("0x%02X{%q}", p.ID, p.S)
	case kindPair:
		return fmt.Sprintf("0x%02X{%q=%q}", p.ID, p.Key, p.S)
	default:
		return fmt.Sprintf("0x%02X{%d}", p.ID, p.N)
	}
}
