package mqtt

import (
	"fmt"
	"math/bits"
)

// A PropID identifies an MQTT 5.0 property (§2.2.2.2).
type PropID byte

// The properties of MQTT 5.0.
const (
	PropPayloadFormat        PropID = 0x01 // byte, PUBLISH and will
	PropMessageExpiry        PropID = 0x02 // four-byte integer, PUBLISH and will
	PropContentType          PropID = 0x03 // string, PUBLISH and will
	PropResponseTopic        PropID = 0x08 // string, PUBLISH and will
	PropCorrelationData      PropID = 0x09 // binary, PUBLISH and will
	PropSubscriptionID       PropID = 0x0B // variable byte integer, PUBLISH (repeatable) and SUBSCRIBE
	PropSessionExpiry        PropID = 0x11 // four-byte integer, CONNECT, CONNACK, DISCONNECT
	PropAssignedClientID     PropID = 0x12 // string, CONNACK
	PropServerKeepAlive      PropID = 0x13 // two-byte integer, CONNACK
	PropAuthMethod           PropID = 0x15 // string, CONNECT, CONNACK, AUTH
	PropAuthData             PropID = 0x16 // binary, CONNECT, CONNACK, AUTH
	PropRequestProblemInfo   PropID = 0x17 // byte, CONNECT
	PropWillDelay            PropID = 0x18 // four-byte integer, will
	PropRequestResponseInfo  PropID = 0x19 // byte, CONNECT
	PropResponseInfo         PropID = 0x1A // string, CONNACK
	PropServerReference      PropID = 0x1C // string, CONNACK, DISCONNECT
	PropReasonString         PropID = 0x1F // string, acknowledgements, DISCONNECT, AUTH
	PropReceiveMaximum       PropID = 0x21 // two-byte integer, CONNECT, CONNACK
	PropTopicAliasMaximum    PropID = 0x22 // two-byte integer, CONNECT, CONNACK
	PropTopicAlias           PropID = 0x23 // two-byte integer, PUBLISH
	PropMaximumQoS           PropID = 0x24 // byte, CONNACK
	PropRetainAvailable      PropID = 0x25 // byte, CONNACK
	PropUser                 PropID = 0x26 // string pair, every packet with properties (repeatable)
	PropMaximumPacketSize    PropID = 0x27 // four-byte integer, CONNECT, CONNACK
	PropWildcardSubAvailable PropID = 0x28 // byte, CONNACK
	PropSubIDAvailable       PropID = 0x29 // byte, CONNACK
	PropSharedSubAvailable   PropID = 0x2A // byte, CONNACK
)

// A PropertySet holds one bit per property identifier: bit id is set when
// property id is present.
type PropertySet uint64

// Has reports whether id is in s.
func (s PropertySet) Has(id PropID) bool { return id < 64 && s&(1<<id) != 0 }

// Add puts id in s.
func (s *PropertySet) Add(id PropID) { *s |= 1 << (id & 63) }

// A UserProperty is a name and value pair (PropUser). Both alias the
// packet's input, like every []byte field of a decoded packet.
type UserProperty struct{ Key, Value []byte }

// Properties are a packet's MQTT 5.0 properties. A single-valued property
// is present when Present has its bit: decoding sets the bits, and an
// encoder writes exactly the properties whose bits are set (use
// Present.Add after setting a field). User properties and subscription
// identifiers are present when their slices are non-empty (decoding also
// sets their bits). A field whose bit is clear is meaningless: decoding
// does not clear it when the packet lacks the property.
//
// Encoders write properties in identifier order, the repeated ones in
// slice order. The specification leaves the order free except that user
// properties keep theirs.
type Properties struct {
	Present PropertySet

	PayloadFormat        byte   // 0: unspecified bytes, 1: UTF-8
	MessageExpiry        uint32 // seconds
	ContentType          []byte
	ResponseTopic        []byte
	CorrelationData      []byte
	SubscriptionIDs      []uint32 // 1 to 268,435,455; several on a PUBLISH a server sends
	SessionExpiry        uint32   // seconds
	AssignedClientID     []byte
	ServerKeepAlive      uint16 // seconds
	AuthMethod           []byte
	AuthData             []byte
	RequestProblemInfo   byte   // 0 or 1
	WillDelay            uint32 // seconds
	RequestResponseInfo  byte   // 0 or 1
	ResponseInfo         []byte
	ServerReference      []byte
	ReasonString         []byte
	ReceiveMaximum       uint16 // 1 to 65,535
	TopicAliasMaximum    uint16
	TopicAlias           uint16 // 1 to 65,535
	MaximumQoS           byte   // 0 or 1 (absent: 2)
	RetainAvailable      byte   // 0 or 1
	User                 []UserProperty
	MaximumPacketSize    uint32 // 1 to 2^32-1
	WildcardSubAvailable byte   // 0 or 1
	SubIDAvailable       byte   // 0 or 1
	SharedSubAvailable   byte   // 0 or 1
}

// The value types of properties.
const (
	pByte = 1 + iota
	pU16
	pU32
	pVar
	pStr
	pBin
	pPair
)

// kindWill marks the will properties of a CONNECT in the masks below,
// beside the packet types 1 to 15.
const kindWill = 16

func kinds(ts ...int) uint32 {
	var m uint32
	for _, t := range ts {
		m |= 1 << t
	}
	return m
}

var (
	withProps   = kinds(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 14, 15, kindWill)
	publishWill = kinds(int(TypePublish), kindWill)
)

// propInfo gives each property's value type and the packets (bit t for
// type t, bit kindWill for will properties) that may carry it.
var propInfo = [64]struct {
	typ   byte
	where uint32
}{
	PropPayloadFormat:        {pByte, publishWill},
	PropMessageExpiry:        {pU32, publishWill},
	PropContentType:          {pStr, publishWill},
	PropResponseTopic:        {pStr, publishWill},
	PropCorrelationData:      {pBin, publishWill},
	PropSubscriptionID:       {pVar, kinds(int(TypePublish), int(TypeSubscribe))},
	PropSessionExpiry:        {pU32, kinds(int(TypeConnect), int(TypeConnack), int(TypeDisconnect))},
	PropAssignedClientID:     {pStr, kinds(int(TypeConnack))},
	PropServerKeepAlive:      {pU16, kinds(int(TypeConnack))},
	PropAuthMethod:           {pStr, kinds(int(TypeConnect), int(TypeConnack), int(TypeAuth))},
	PropAuthData:             {pBin, kinds(int(TypeConnect), int(TypeConnack), int(TypeAuth))},
	PropRequestProblemInfo:   {pByte, kinds(int(TypeConnect))},
	PropWillDelay:            {pU32, kinds(kindWill)},
	PropRequestResponseInfo:  {pByte, kinds(int(TypeConnect))},
	PropResponseInfo:         {pStr, kinds(int(TypeConnack))},
	PropServerReference:      {pStr, kinds(int(TypeConnack), int(TypeDisconnect))},
	PropReasonString:         {pStr, kinds(2, 4, 5, 6, 7, 9, 11, 14, 15)},
	PropReceiveMaximum:       {pU16, kinds(int(TypeConnect), int(TypeConnack))},
	PropTopicAliasMaximum:    {pU16, kinds(int(TypeConnect), int(TypeConnack))},
	PropTopicAlias:           {pU16, kinds(int(TypePublish))},
	PropMaximumQoS:           {pByte, kinds(int(TypeConnack))},
	PropRetainAvailable:      {pByte, kinds(int(TypeConnack))},
	PropUser:                 {pPair, withProps},
	PropMaximumPacketSize:    {pU32, kinds(int(TypeConnect), int(TypeConnack))},
	PropWildcardSubAvailable: {pByte, kinds(int(TypeConnack))},
	PropSubIDAvailable:       {pByte, kinds(int(TypeConnack))},
	PropSharedSubAvailable:   {pByte, kinds(int(TypeConnack))},
}

// allowed[k] is the set of properties packet kind k may carry.
var allowed = func() (a [17]PropertySet) {
	for id, pi := range propInfo {
		for k := range a {
			if pi.where&(1<<k) != 0 {
				a[k].Add(PropID(id))
			}
		}
	}
	return a
}()

// String returns the property's name as the specification writes it.
func (id PropID) String() string {
	if int(id) < len(propNames) && propNames[id] != "" {
		return propNames[id]
	}
	return fmt.Sprintf("property 0x%02X", byte(id))
}

var propNames = [...]string{
	0x01: "Payload Format Indicator", 0x02: "Message Expiry Interval",
	0x03: "Content Type", 0x08: "Response Topic", 0x09: "Correlation Data",
	0x0B: "Subscription Identifier", 0x11: "Session Expiry Interval",
	0x12: "Assigned Client Identifier", 0x13: "Server Keep Alive",
	0x15: "Authentication Method", 0x16: "Authentication Data",
	0x17: "Request Problem Information", 0x18: "Will Delay Interval",
	0x19: "Request Response Information", 0x1A: "Response Information",
	0x1C: "Server Reference", 0x1F: "Reason String", 0x21: "Receive Maximum",
	0x22: "Topic Alias Maximum", 0x23: "Topic Alias", 0x24: "Maximum QoS",
	0x25: "Retain Available", 0x26: "User Property",
	0x27: "Maximum Packet Size", 0x28: "Wildcard Subscription Available",
	0x29: "Subscription Identifier Available",
	0x2A: "Shared Subscription Available",
}

// reset empties ps for decoding, keeping the slices' arrays.
func (ps *Properties) reset() {
	if ps.Present == 0 && len(ps.User) == 0 && len(ps.SubscriptionIDs) == 0 {
		return
	}
	*ps = Properties{User: ps.User[:0], SubscriptionIDs: ps.SubscriptionIDs[:0]}
}

// props reads a property length and the properties of packet kind k.
func (r *reader) props(ps *Properties, k int, lim *limits) {
	ps.reset()
	n := int(r.varInt())
	if !r.need(n) {
		return
	}
	end := r.i + n
	full := r.p
	dataAt := 0
	r.p = r.p[:end] // a property running past its length is malformed
	for r.i < end {
		at := r.i
		id := PropID(r.p[r.i])
		r.i++
		if id >= 64 || propInfo[id].typ == 0 {
			r.failAt(ErrUnknownProperty, at)
			break
		}
		if !allowed[k].Has(id) {
			r.failAt(ErrPropertyNotAllowed, at)
			break
		}
		if ps.Present.Has(id) && id != PropUser && !(id == PropSubscriptionID && k == int(TypePublish)) {
			r.failAt(ErrDuplicateProperty, at)
			break
		}
		ps.Present.Add(id)
		if id == PropAuthData {
			dataAt = at
		}
		r.prop(ps, id, at, lim)
	}
	r.p = full
	if dataAt != 0 && k == int(TypeConnect) && r.err == nil && !ps.Present.Has(PropAuthMethod) {
		r.failAt(ErrAuthDataNoMethod, dataAt)
	}
	if r.err == nil {
		r.i = end
	}
}

// prop reads the value of property id.
func (r *reader) prop(ps *Properties, id PropID, at int, lim *limits) {
	bit := func(b byte) byte {
		if b > 1 {
			r.failAt(ErrPropertyValue, at)
		}
		return b
	}
	switch id {
	case PropPayloadFormat:
		ps.PayloadFormat = bit(r.u8())
	case PropMessageExpiry:
		ps.MessageExpiry = r.u32()
	case PropContentType:
		ps.ContentType = r.str()
	case PropResponseTopic:
		s := r.str()
		if r.err == nil {
			switch err := checkTopic(s); {
			case err == ErrTopicWildcard:
				r.failAt(ErrResponseTopic, at)
			case len(s) == 0:
				r.failAt(ErrTopicEmpty, at)
			}
		}
		ps.ResponseTopic = s
	case PropCorrelationData:
		ps.CorrelationData = r.bin()
	case PropSubscriptionID:
		v := r.varInt()
		if r.err == nil && v == 0 {
			r.failAt(ErrSubscriptionIDZero, at)
		}
		if len(ps.SubscriptionIDs) >= lim.subIDs {
			r.failAt(ErrTooMany, at)
			return
		}
		ps.SubscriptionIDs = append(ps.SubscriptionIDs, v)
	case PropSessionExpiry:
		ps.SessionExpiry = r.u32()
	case PropAssignedClientID:
		ps.AssignedClientID = r.str()
	case PropServerKeepAlive:
		ps.ServerKeepAlive = r.u16()
	case PropAuthMethod:
		ps.AuthMethod = r.str()
	case PropAuthData:
		ps.AuthData = r.bin()
	case PropRequestProblemInfo:
		ps.RequestProblemInfo = bit(r.u8())
	case PropWillDelay:
		ps.WillDelay = r.u32()
	case PropRequestResponseInfo:
		ps.RequestResponseInfo = bit(r.u8())
	case PropResponseInfo:
		ps.ResponseInfo = r.str()
	case PropServerReference:
		ps.ServerReference = r.str()
	case PropReasonString:
		ps.ReasonString = r.str()
	case PropReceiveMaximum:
		ps.ReceiveMaximum = r.u16()
		if ps.ReceiveMaximum == 0 {
			r.failAt(ErrPropertyValue, at)
		}
	case PropTopicAliasMaximum:
		ps.TopicAliasMaximum = r.u16()
	case PropTopicAlias:
		ps.TopicAlias = r.u16()
		if r.err == nil && ps.TopicAlias == 0 {
			r.failAt(ErrTopicAliasZero, at)
		}
	case PropMaximumQoS:
		ps.MaximumQoS = bit(r.u8())
	case PropRetainAvailable:
		ps.RetainAvailable = bit(r.u8())
	case PropUser:
		k, v := r.str(), r.str()
		if len(ps.User) >= lim.userProps {
			r.failAt(ErrTooMany, at)
			return
		}
		ps.User = append(ps.User, UserProperty{k, v})
	case PropMaximumPacketSize:
		ps.MaximumPacketSize = r.u32()
		if r.err == nil && ps.MaximumPacketSize == 0 {
			r.failAt(ErrPropertyValue, at)
		}
	case PropWildcardSubAvailable:
		ps.WildcardSubAvailable = bit(r.u8())
	case PropSubIDAvailable:
		ps.SubIDAvailable = bit(r.u8())
	case PropSharedSubAvailable:
		ps.SharedSubAvailable = bit(r.u8())
	}
}

// size returns the length of ps's encoding for packet kind k, without the
// property length in front, or an error for a property k may not carry or
// a value that cannot be encoded.
func (ps *Properties) size(k int) (int, error) {
	set := ps.set()
	if set == 0 {
		return 0, nil
	}
	if bad := set &^ allowed[k]; bad != 0 {
		return 0, fieldErr(PropID(bits.TrailingZeros64(uint64(bad))).String(), ErrPropertyNotAllowed)
	}
	n := 0
	for rest := uint64(set); rest != 0; rest &= rest - 1 {
		id := PropID(bits.TrailingZeros64(rest))
		switch propInfo[id].typ {
		case pByte:
			n += 2
		case pU16:
			n += 3
		case pU32:
			n += 5
		case pVar:
			if len(ps.SubscriptionIDs) > 1 && k != int(TypePublish) {
				return 0, fieldErr(id.String(), ErrDuplicateProperty)
			}
			for i, v := range ps.SubscriptionIDs {
				switch {
				case v == 0:
					return 0, fieldErrAt(id.String(), i, ErrSubscriptionIDZero)
				case v > MaxVarInt:
					return 0, fieldErrAt(id.String(), i, ErrPropertyValue)
				}
				n += 1 + varIntLen(int(v))
			}
		case pStr, pBin:
			s := *ps.strField(id)
			if err := checkStr(id.String(), -1, s, propInfo[id].typ == pStr); err != nil {
				return 0, err
			}
			n += 3 + len(s)
		case pPair:
			for i, u := range ps.User {
				if err := checkStr("user property", i, u.Key, true); err != nil {
					return 0, err
				}
				if err := checkStr("user property", i, u.Value, true); err != nil {
					return 0, err
				}
				n += 5 + len(u.Key) + len(u.Value)
			}
		}
		if err := ps.valueErr(id); err != nil {
			return 0, fieldErr(id.String(), err)
		}
	}
	return n, nil
}

// valueErr checks the value of single-valued property id as the decoder
// does (prop): the violation a receiver would report, or nil.
func (ps *Properties) valueErr(id PropID) *Violation {
	switch id {
	case PropPayloadFormat, PropRequestProblemInfo, PropRequestResponseInfo, PropMaximumQoS,
		PropRetainAvailable, PropWildcardSubAvailable, PropSubIDAvailable, PropSharedSubAvailable:
		if ps.byteField(id) > 1 {
			return ErrPropertyValue
		}
	case PropReceiveMaximum:
		if ps.ReceiveMaximum == 0 {
			return ErrPropertyValue
		}
	case PropMaximumPacketSize:
		if ps.MaximumPacketSize == 0 {
			return ErrPropertyValue
		}
	case PropTopicAlias:
		if ps.TopicAlias == 0 {
			return ErrTopicAliasZero
		}
	case PropResponseTopic:
		switch err := checkTopic(ps.ResponseTopic); {
		case err == ErrTopicWildcard:
			return ErrResponseTopic
		case err != nil:
			return err
		case len(ps.ResponseTopic) == 0:
			return ErrTopicEmpty
		}
	}
	return nil
}

// set returns the properties ps holds: its Present bits, with the repeated
// properties' bits following their slices.
func (ps *Properties) set() PropertySet {
	set := ps.Present &^ (1<<PropUser | 1<<PropSubscriptionID)
	if len(ps.User) > 0 {
		set |= 1 << PropUser
	}
	if len(ps.SubscriptionIDs) > 0 {
		set |= 1 << PropSubscriptionID
	}
	return set
}

// strField returns the field of string or binary property id.
func (ps *Properties) strField(id PropID) *[]byte {
	switch id {
	case PropContentType:
		return &ps.ContentType
	case PropResponseTopic:
		return &ps.ResponseTopic
	case PropCorrelationData:
		return &ps.CorrelationData
	case PropAssignedClientID:
		return &ps.AssignedClientID
	case PropAuthMethod:
		return &ps.AuthMethod
	case PropAuthData:
		return &ps.AuthData
	case PropResponseInfo:
		return &ps.ResponseInfo
	case PropServerReference:
		return &ps.ServerReference
	}
	return &ps.ReasonString
}

// append appends the property length n (from size) and ps's properties.
func (ps *Properties) append(dst []byte, n int) []byte {
	dst = appendVarInt(dst, n)
	if n == 0 {
		return dst
	}
	for rest := uint64(ps.set()); rest != 0; rest &= rest - 1 {
		id := PropID(bits.TrailingZeros64(rest))
		switch propInfo[id].typ {
		case pByte:
			dst = append(dst, byte(id), ps.byteField(id))
		case pU16:
			dst = appendU16(append(dst, byte(id)), ps.u16Field(id))
		case pU32:
			dst = appendU32(append(dst, byte(id)), ps.u32Field(id))
		case pVar:
			for _, v := range ps.SubscriptionIDs {
				dst = appendVarInt(append(dst, byte(id)), int(v))
			}
		case pPair:
			for _, u := range ps.User {
				dst = appendString(appendString(append(dst, byte(id)), u.Key), u.Value)
			}
		default:
			dst = appendString(append(dst, byte(id)), *ps.strField(id))
		}
	}
	return dst
}

func (ps *Properties) byteField(id PropID) byte {
	switch id {
	case PropPayloadFormat:
		return ps.PayloadFormat
	case PropRequestProblemInfo:
		return ps.RequestProblemInfo
	case PropRequestResponseInfo:
		return ps.RequestResponseInfo
	case PropMaximumQoS:
		return ps.MaximumQoS
	case PropRetainAvailable:
		return ps.RetainAvailable
	case PropWildcardSubAvailable:
		return ps.WildcardSubAvailable
	case PropSubIDAvailable:
		return ps.SubIDAvailable
	}
	return ps.SharedSubAvailable
}

func (ps *Properties) u16Field(id PropID) uint16 {
	switch id {
	case PropServerKeepAlive:
		return ps.ServerKeepAlive
	case PropReceiveMaximum:
		return ps.ReceiveMaximum
	case PropTopicAliasMaximum:
		return ps.TopicAliasMaximum
	}
	return ps.TopicAlias
}

func (ps *Properties) u32Field(id PropID) uint32 {
	switch id {
	case PropMessageExpiry:
		return ps.MessageExpiry
	case PropSessionExpiry:
		return ps.SessionExpiry
	case PropWillDelay:
		return ps.WillDelay
	}
	return ps.MaximumPacketSize
}
