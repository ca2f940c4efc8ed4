package mqttpeers

import (
	"bytes"
	"fmt"
	"strings"

	mp "github.com/mochi-mqtt/server/v2/packets"
)

// Mochi is the packets package of mochi-mqtt/server v2, both versions.
//
// Decode reads a packet as mochi's server does (Client.ReadFixedHeader,
// then Client.ReadPacket): FixedHeader.Decode of the first byte,
// DecodeLength of the Remaining Length, then the type's XDecode of the
// remaining bytes. It does not run mochi's XValidate methods, which the
// server calls later; MochiValidate does.
var Mochi = &Impl{Name: "mochi", Versions: []byte{V311, V5}, Encode: mochiEncode, Decode: mochiDecode}

func mochiEncode(p *Packet) ([]byte, error) {
	var pk mp.Packet
	pk.ProtocolVersion = p.Version
	pk.FixedHeader = mp.FixedHeader{Type: p.Type, Qos: p.QoS, Dup: p.Dup, Retain: p.Retain}
	switch p.Type {
	case Pubrel, Subscribe, Unsubscribe:
		pk.FixedHeader.Qos = 1 // mochi writes the reserved flags 0010 from Qos
	}
	pk.Mods.AllowResponseInfo = true // else mochi drops Response Topic, Correlation Data, Response Info
	pk.PacketID = p.PacketID
	if err := toMochiProps(&pk.Properties, p.Type, p.Props); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	var err error
	switch p.Type {
	case Connect:
		c := &pk.Connect
		c.ProtocolName = []byte(p.ProtocolName)
		c.Clean = p.CleanStart
		c.Keepalive = p.KeepAlive
		c.ClientIdentifier = p.ClientID
		c.UsernameFlag, c.Username = p.HasUsername, []byte(p.Username)
		c.PasswordFlag, c.Password = p.HasPassword, []byte(p.Password)
		if w := p.Will; w != nil {
			c.WillFlag, c.WillQos, c.WillRetain = true, w.QoS, w.Retain
			c.WillTopic, c.WillPayload = w.Topic, []byte(w.Payload)
			if err := toMochiProps(&c.WillProperties, willProps, w.Props); err != nil {
				return nil, err
			}
		}
		err = pk.ConnectEncode(&b)
	case Connack:
		pk.SessionPresent, pk.ReasonCode = p.SessionPresent, p.Reason
		err = pk.ConnackEncode(&b)
	case Publish:
		pk.TopicName, pk.Payload = p.Topic, []byte(p.Payload)
		err = pk.PublishEncode(&b)
	case Puback, Pubrec, Pubrel, Pubcomp:
		pk.ReasonCode = p.Reason
		switch p.Type {
		case Puback:
			err = pk.PubackEncode(&b)
		case Pubrec:
			err = pk.PubrecEncode(&b)
		case Pubrel:
			err = pk.PubrelEncode(&b)
		default:
			err = pk.PubcompEncode(&b)
		}
	case Subscribe:
		for _, s := range p.Subs {
			pk.Filters = append(pk.Filters, mp.Subscription{Filter: s.Filter, Qos: s.QoS, NoLocal: s.NoLocal,
				RetainAsPublished: s.RetainAsPublished, RetainHandling: s.RetainHandling})
		}
		err = pk.SubscribeEncode(&b)
	case Suback:
		pk.ReasonCodes = p.Reasons
		err = pk.SubackEncode(&b)
	case Unsubscribe:
		for _, f := range p.Filters {
			pk.Filters = append(pk.Filters, mp.Subscription{Filter: f})
		}
		err = pk.UnsubscribeEncode(&b)
	case Unsuback:
		if p.Version != V5 && len(p.Reasons) > 0 {
			return nil, inexpressible("mochi", "reason codes on a 3.1.1 UNSUBACK")
		}
		pk.ReasonCodes = p.Reasons
		err = pk.UnsubackEncode(&b)
	case Pingreq:
		err = pk.PingreqEncode(&b)
	case Pingresp:
		err = pk.PingrespEncode(&b)
	case Disconnect:
		pk.ReasonCode = p.Reason
		err = pk.DisconnectEncode(&b)
	case Auth:
		pk.ReasonCode = p.Reason
		err = pk.AuthEncode(&b)
	default:
		return nil, inexpressible("mochi", "packet type %d", p.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("mochi: %w", err)
	}
	return b.Bytes(), nil
}

// toMochiProps fills mochi's properties from props. Mochi holds one value
// per single-valued property and takes a zero value (or empty string) of
// most to mean "absent", so those are inexpressible.
func toMochiProps(mpr *mp.Properties, t byte, props []Prop) error {
	if err := checkProps("mochi", t, props); err != nil {
		return err
	}
	for _, p := range props {
		if !mochiHolds(p) {
			return inexpressible("mochi", "property 0x%02X with a zero or empty value", p.ID)
		}
		switch p.ID {
		case PropPayloadFormat:
			mpr.PayloadFormat, mpr.PayloadFormatFlag = byte(p.N), true
		case PropMessageExpiry:
			mpr.MessageExpiryInterval = p.N
		case PropContentType:
			mpr.ContentType = p.S
		case PropResponseTopic:
			mpr.ResponseTopic = p.S
			if strings.ContainsAny(p.S, "+#") {
				return inexpressible("mochi", "a Response Topic with a wildcard")
			}
		case PropCorrelationData:
			mpr.CorrelationData = []byte(p.S)
		case PropSubscriptionID:
			mpr.SubscriptionIdentifier = append(mpr.SubscriptionIdentifier, int(p.N))
		case PropSessionExpiry:
			mpr.SessionExpiryInterval, mpr.SessionExpiryIntervalFlag = p.N, true
		case PropAssignedClientID:
			mpr.AssignedClientID = p.S
		case PropServerKeepAlive:
			mpr.ServerKeepAlive, mpr.ServerKeepAliveFlag = uint16(p.N), true
		case PropAuthMethod:
			mpr.AuthenticationMethod = p.S
		case PropAuthData:
			mpr.AuthenticationData = []byte(p.S)
		case PropRequestProblemInfo:
			mpr.RequestProblemInfo, mpr.RequestProblemInfoFlag = byte(p.N), true
		case PropWillDelay:
			mpr.WillDelayInterval = p.N
		case PropRequestResponseInfo:
			mpr.RequestResponseInfo = byte(p.N)
		case PropResponseInfo:
			mpr.ResponseInfo = p.S
		case PropServerReference:
			mpr.ServerReference = p.S
		case PropReasonString:
			mpr.ReasonString = p.S
		case PropReceiveMaximum:
			mpr.ReceiveMaximum = uint16(p.N)
		case PropTopicAliasMaximum:
			mpr.TopicAliasMaximum = uint16(p.N)
		case PropTopicAlias:
			mpr.TopicAlias, mpr.TopicAliasFlag = uint16(p.N), true
		case PropMaximumQoS:
			if p.N > 1 {
				return inexpressible("mochi", "Maximum QoS %d", p.N)
			}
			mpr.MaximumQos, mpr.MaximumQosFlag = byte(p.N), true
		case PropRetainAvailable:
			mpr.RetainAvailable, mpr.RetainAvailableFlag = byte(p.N), true
		case PropUser:
			mpr.User = append(mpr.User, mp.UserProperty{Key: p.Key, Val: p.S})
		case PropMaximumPacketSize:
			mpr.MaximumPacketSize = p.N
		case PropWildcardSubAvail:
			mpr.WildcardSubAvailable, mpr.WildcardSubAvailableFlag = byte(p.N), true
		case PropSubIDAvailable:
			mpr.SubIDAvailable, mpr.SubIDAvailableFlag = byte(p.N), true
		case PropSharedSubAvailable:
			mpr.SharedSubAvailable, mpr.SharedSubAvailableFlag = byte(p.N), true
		}
	}
	return nil
}

// mochiHolds reports whether mochi's Properties can hold p: mochi keeps a
// presence flag for some properties and takes a zero value or an empty
// string of the others for an absent one.
func mochiHolds(p Prop) bool {
	switch p.ID {
	case PropPayloadFormat, PropSessionExpiry, PropServerKeepAlive, PropRequestProblemInfo, PropMaximumQoS,
		PropRetainAvailable, PropUser, PropWildcardSubAvail, PropSubIDAvailable, PropSharedSubAvailable:
		return true
	}
	return p.N != 0 || p.S != ""
}

// mochiFrame decodes the fixed header of b as mochi's server does and
// returns the packet with its FixedHeader and ProtocolVersion set, and the
// remaining bytes.
func mochiFrame(b []byte, v byte) (pk mp.Packet, body []byte, n int, err error) {
	if len(b) < 2 {
		return pk, nil, 0, errShort
	}
	pk.ProtocolVersion = v
	if err := pk.FixedHeader.Decode(b[0]); err != nil {
		return pk, nil, 0, err
	}
	rem, vbi, err := mp.DecodeLength(bytes.NewReader(b[1:]))
	if err != nil {
		return pk, nil, 0, err
	}
	n = 1 + vbi + rem
	if n > len(b) {
		return pk, nil, 0, errShort
	}
	pk.FixedHeader.Remaining = rem
	return pk, b[1+vbi : n], n, nil
}

// mochiDecodeBody calls the decoder of pk's type on body, as
// Client.ReadPacket does.
func mochiDecodeBody(pk *mp.Packet, body []byte) error {
	switch pk.FixedHeader.Type {
	case Connect:
		return pk.ConnectDecode(body)
	case Connack:
		return pk.ConnackDecode(body)
	case Publish:
		return pk.PublishDecode(body)
	case Puback:
		return pk.PubackDecode(body)
	case Pubrec:
		return pk.PubrecDecode(body)
	case Pubrel:
		return pk.PubrelDecode(body)
	case Pubcomp:
		return pk.PubcompDecode(body)
	case Subscribe:
		return pk.SubscribeDecode(body)
	case Suback:
		return pk.SubackDecode(body)
	case Unsubscribe:
		return pk.UnsubscribeDecode(body)
	case Unsuback:
		return pk.UnsubackDecode(body)
	case Pingreq, Pingresp:
		return nil
	case Disconnect:
		return pk.DisconnectDecode(body)
	case Auth:
		return pk.AuthDecode(body)
	}
	return fmt.Errorf("invalid packet type; %v", pk.FixedHeader.Type)
}

func mochiDecode(b []byte, v byte) (p *Packet, n int, err error) {
	defer recoverInto("mochi", &err)
	pk, body, n, err := mochiFrame(b, v)
	if err != nil {
		return nil, 0, err
	}
	if err := mochiDecodeBody(&pk, body); err != nil {
		return nil, 0, err
	}
	return fromMochi(&pk), n, nil
}

// MochiValidate decodes b as Mochi.Decode does and then runs the checks
// mochi's server makes of a decoded packet before it acts on it (the
// XValidate method of the type, where there is one; PublishValidate with
// mochi's default Topic Alias Maximum, 65535). It returns the decoding
// error, or else the validation error, or nil.
func MochiValidate(b []byte, v byte) (decodeErr, validateErr error) {
	defer recoverInto("mochi", &decodeErr)
	pk, body, _, err := mochiFrame(b, v)
	if err != nil {
		return err, nil
	}
	if err := mochiDecodeBody(&pk, body); err != nil {
		return err, nil
	}
	return nil, mochiValidate(&pk)
}

// mochiValidate runs the XValidate method of pk's type, if it has one.
func mochiValidate(pk *mp.Packet) error {
	code := mp.CodeSuccess
	switch pk.FixedHeader.Type {
	case Connect:
		code = pk.ConnectValidate()
	case Publish:
		code = pk.PublishValidate(65535)
	case Subscribe:
		code = pk.SubscribeValidate()
	case Unsubscribe:
		code = pk.UnsubscribeValidate()
	case Auth:
		code = pk.AuthValidate()
	}
	if code != mp.CodeSuccess {
		return code
	}
	return nil
}

func fromMochi(pk *mp.Packet) *Packet {
	fh := &pk.FixedHeader
	p := &Packet{Type: fh.Type, Version: pk.ProtocolVersion, PacketID: pk.PacketID}
	if pk.ProtocolVersion == V5 {
		p.Props = fromMochiProps(&pk.Properties)
	}
	switch fh.Type {
	case Connect:
		c := &pk.Connect
		p.ProtocolName = string(c.ProtocolName)
		p.CleanStart = c.Clean
		p.KeepAlive = c.Keepalive
		p.ClientID = strings.Clone(c.ClientIdentifier)
		p.HasUsername, p.Username = c.UsernameFlag, string(c.Username)
		p.HasPassword, p.Password = c.PasswordFlag, string(c.Password)
		if c.WillFlag {
			p.Will = &Will{QoS: c.WillQos, Retain: c.WillRetain, Topic: strings.Clone(c.WillTopic), Payload: string(c.WillPayload)}
			if pk.ProtocolVersion == V5 {
				p.Will.Props = fromMochiProps(&c.WillProperties)
			}
		}
	case Connack:
		p.SessionPresent, p.Reason = pk.SessionPresent, pk.ReasonCode
	case Publish:
		p.Dup, p.QoS, p.Retain = fh.Dup, fh.Qos, fh.Retain
		p.Topic, p.Payload = strings.Clone(pk.TopicName), string(pk.Payload)
	case Puback, Pubrec, Pubrel, Pubcomp, Disconnect, Auth:
		p.Reason = pk.ReasonCode
	case Subscribe:
		for _, s := range pk.Filters {
			p.Subs = append(p.Subs, Sub{Filter: strings.Clone(s.Filter), QoS: s.Qos, NoLocal: s.NoLocal,
				RetainAsPublished: s.RetainAsPublished, RetainHandling: s.RetainHandling})
		}
	case Suback, Unsuback:
		p.Reasons = append([]byte(nil), pk.ReasonCodes...)
	case Unsubscribe:
		for _, s := range pk.Filters {
			p.Filters = append(p.Filters, strings.Clone(s.Filter))
		}
	}
	return p
}

// fromMochiProps lists mochi's properties in identifier order. Mochi keeps
// no order and takes zero values of most properties for absent ones.
func fromMochiProps(m *mp.Properties) []Prop {
	var ps []Prop
	n := func(id byte, v uint32, ok bool) {
		if ok {
			ps = append(ps, Prop{ID: id, N: v})
		}
	}
	s := func(id byte, v string) {
		if v != "" {
			ps = append(ps, Prop{ID: id, S: strings.Clone(v)})
		}
	}
	n(PropPayloadFormat, uint32(m.PayloadFormat), m.PayloadFormatFlag)
	n(PropMessageExpiry, m.MessageExpiryInterval, m.MessageExpiryInterval > 0)
	s(PropContentType, m.ContentType)
	s(PropResponseTopic, m.ResponseTopic)
	s(PropCorrelationData, string(m.CorrelationData))
	for _, id := range m.SubscriptionIdentifier {
		ps = append(ps, Prop{ID: PropSubscriptionID, N: uint32(id)})
	}
	n(PropSessionExpiry, m.SessionExpiryInterval, m.SessionExpiryIntervalFlag)
	s(PropAssignedClientID, m.AssignedClientID)
	n(PropServerKeepAlive, uint32(m.ServerKeepAlive), m.ServerKeepAliveFlag)
	s(PropAuthMethod, m.AuthenticationMethod)
	s(PropAuthData, string(m.AuthenticationData))
	n(PropRequestProblemInfo, uint32(m.RequestProblemInfo), m.RequestProblemInfoFlag)
	n(PropWillDelay, m.WillDelayInterval, m.WillDelayInterval > 0)
	n(PropRequestResponseInfo, uint32(m.RequestResponseInfo), m.RequestResponseInfo > 0)
	s(PropResponseInfo, m.ResponseInfo)
	s(PropServerReference, m.ServerReference)
	s(PropReasonString, m.ReasonString)
	n(PropReceiveMaximum, uint32(m.ReceiveMaximum), m.ReceiveMaximum > 0)
	n(PropTopicAliasMaximum, uint32(m.TopicAliasMaximum), m.TopicAliasMaximum > 0)
	n(PropTopicAlias, uint32(m.TopicAlias), m.TopicAliasFlag)
	n(PropMaximumQoS, uint32(m.MaximumQos), m.MaximumQosFlag)
	n(PropRetainAvailable, uint32(m.RetainAvailable), m.RetainAvailableFlag)
	for _, u := range m.User {
		ps = append(ps, Prop{ID: PropUser, Key: strings.Clone(u.Key), S: strings.Clone(u.Val)})
	}
	n(PropMaximumPacketSize, m.MaximumPacketSize, m.MaximumPacketSize > 0)
	n(PropWildcardSubAvail, uint32(m.WildcardSubAvailable), m.WildcardSubAvailableFlag)
	n(PropSubIDAvailable, uint32(m.SubIDAvailable), m.SubIDAvailableFlag)
	n(PropSharedSubAvailable, uint32(m.SharedSubAvailable), m.SharedSubAvailableFlag)
	return ps
}
