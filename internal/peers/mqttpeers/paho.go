package mqttpeers

import (
	"bytes"
	"fmt"
	"io"

	pp "github.com/eclipse/paho.golang/packets"
)

// Paho is the packets package of eclipse/paho.golang, MQTT 5.0 only.
//
// Encode writes with the packet's WriteTo, as paho's client does; Decode
// reads with packets.ReadPacket from a bytes.Reader, as paho's client reads
// from its connection.
var Paho = &Impl{Name: "paho", Versions: []byte{V5}, Encode: pahoEncode, Decode: pahoDecode}

type pahoWriter interface {
	WriteTo(w io.Writer) (int64, error)
}

func pahoEncode(p *Packet) ([]byte, error) {
	if p.Version != V5 {
		return nil, inexpressible("paho", "protocol level %d", p.Version)
	}
	props, err := toPahoProps(p.Type, p.Props)
	if err != nil {
		return nil, err
	}
	var w pahoWriter
	switch p.Type {
	case Connect:
		c := &pp.Connect{ProtocolName: p.ProtocolName, ProtocolVersion: p.Version, CleanStart: p.CleanStart,
			KeepAlive: p.KeepAlive, ClientID: p.ClientID, Properties: props,
			UsernameFlag: p.HasUsername, Username: p.Username, PasswordFlag: p.HasPassword, Password: []byte(p.Password)}
		if wl := p.Will; wl != nil {
			// paho packs a will's properties as CONNECT properties: of those
			// allowed on a will it writes only Will Delay Interval and User
			// Property.
			for _, wp := range wl.Props {
				if wp.ID != PropWillDelay && wp.ID != PropUser {
					return nil, inexpressible("paho", "will property 0x%02X", wp.ID)
				}
			}
			wprops, err := toPahoProps(willProps, wl.Props)
			if err != nil {
				return nil, err
			}
			c.WillFlag, c.WillQOS, c.WillRetain = true, wl.QoS, wl.Retain
			c.WillTopic, c.WillMessage, c.WillProperties = wl.Topic, []byte(wl.Payload), wprops
		}
		if props.WillDelayInterval != nil {
			return nil, inexpressible("paho", "Will Delay Interval outside a will")
		}
		w = c
	case Connack:
		w = &pp.Connack{SessionPresent: p.SessionPresent, ReasonCode: p.Reason, Properties: props}
	case Publish:
		w = &pp.Publish{Duplicate: p.Dup, QoS: p.QoS, Retain: p.Retain, Topic: p.Topic, PacketID: p.PacketID,
			Properties: props, Payload: []byte(p.Payload)}
	case Puback:
		w = &pp.Puback{PacketID: p.PacketID, ReasonCode: p.Reason, Properties: props}
	case Pubrec:
		w = &pp.Pubrec{PacketID: p.PacketID, ReasonCode: p.Reason, Properties: props}
	case Pubrel:
		w = &pp.Pubrel{PacketID: p.PacketID, ReasonCode: p.Reason, Properties: props}
	case Pubcomp:
		w = &pp.Pubcomp{PacketID: p.PacketID, ReasonCode: p.Reason, Properties: props}
	case Subscribe:
		s := &pp.Subscribe{PacketID: p.PacketID, Properties: props}
		for _, sub := range p.Subs {
			s.Subscriptions = append(s.Subscriptions, pp.SubOptions{Topic: sub.Filter, QoS: sub.QoS, NoLocal: sub.NoLocal,
				RetainAsPublished: sub.RetainAsPublished, RetainHandling: sub.RetainHandling})
		}
		w = s
	case Suback:
		w = &pp.Suback{PacketID: p.PacketID, Reasons: p.Reasons, Properties: props}
	case Unsubscribe:
		w = &pp.Unsubscribe{PacketID: p.PacketID, Topics: p.Filters, Properties: props}
	case Unsuback:
		w = &pp.Unsuback{PacketID: p.PacketID, Reasons: p.Reasons, Properties: props}
	case Pingreq:
		w = &pp.Pingreq{}
	case Pingresp:
		w = &pp.Pingresp{}
	case Disconnect:
		w = &pp.Disconnect{ReasonCode: p.Reason, Properties: props}
	case Auth:
		w = &pp.Auth{ReasonCode: p.Reason, Properties: props}
	default:
		return nil, inexpressible("paho", "packet type %d", p.Type)
	}
	var b bytes.Buffer
	if _, err := w.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("paho: %w", err)
	}
	return b.Bytes(), nil
}

// toPahoProps fills paho's properties from props. Paho holds one value per
// property (one Subscription Identifier) and takes an empty string or
// binary value for an absent one.
func toPahoProps(t byte, props []Prop) (*pp.Properties, error) {
	if err := checkProps("paho", t, props); err != nil {
		return nil, err
	}
	pr := &pp.Properties{}
	for _, p := range props {
		b, u16, u32 := byte(p.N), uint16(p.N), p.N
		if k := propSpec[p.ID].kind; (k == kindString || k == kindBinary) && p.S == "" {
			return nil, inexpressible("paho", "property 0x%02X with an empty value", p.ID)
		}
		switch p.ID {
		case PropPayloadFormat:
			pr.PayloadFormat = &b
		case PropMessageExpiry:
			pr.MessageExpiry = &u32
		case PropContentType:
			pr.ContentType = p.S
		case PropResponseTopic:
			pr.ResponseTopic = p.S
		case PropCorrelationData:
			pr.CorrelationData = []byte(p.S)
		case PropSubscriptionID:
			if pr.SubscriptionIdentifier != nil {
				return nil, inexpressible("paho", "a second subscription identifier")
			}
			id := int(p.N)
			pr.SubscriptionIdentifier = &id
		case PropSessionExpiry:
			pr.SessionExpiryInterval = &u32
		case PropAssignedClientID:
			pr.AssignedClientID = p.S
		case PropServerKeepAlive:
			pr.ServerKeepAlive = &u16
		case PropAuthMethod:
			pr.AuthMethod = p.S
		case PropAuthData:
			pr.AuthData = []byte(p.S)
		case PropRequestProblemInfo:
			pr.RequestProblemInfo = &b
		case PropWillDelay:
			pr.WillDelayInterval = &u32
		case PropRequestResponseInfo:
			pr.RequestResponseInfo = &b
		case PropResponseInfo:
			pr.ResponseInfo = p.S
		case PropServerReference:
			pr.ServerReference = p.S
		case PropReasonString:
			pr.ReasonString = p.S
		case PropReceiveMaximum:
			pr.ReceiveMaximum = &u16
		case PropTopicAliasMaximum:
			pr.TopicAliasMaximum = &u16
		case PropTopicAlias:
			pr.TopicAlias = &u16
		case PropMaximumQoS:
			pr.MaximumQOS = &b
		case PropRetainAvailable:
			pr.RetainAvailable = &b
		case PropUser:
			pr.User = append(pr.User, pp.User{Key: p.Key, Value: p.S})
		case PropMaximumPacketSize:
			pr.MaximumPacketSize = &u32
		case PropWildcardSubAvail:
			pr.WildcardSubAvailable = &b
		case PropSubIDAvailable:
			pr.SubIDAvailable = &b
		case PropSharedSubAvailable:
			pr.SharedSubAvailable = &b
		}
	}
	return pr, nil
}

func pahoDecode(b []byte, v byte) (p *Packet, n int, err error) {
	defer recoverInto("paho", &err)
	r := bytes.NewReader(b)
	cp, err := pp.ReadPacket(r)
	if err != nil {
		return nil, 0, err
	}
	return fromPaho(cp), len(b) - r.Len(), nil
}

func fromPaho(cp *pp.ControlPacket) *Packet {
	p := &Packet{Type: cp.Type, Version: V5}
	switch c := cp.Content.(type) {
	case *pp.Connect:
		p.Version = c.ProtocolVersion
		p.ProtocolName, p.CleanStart, p.KeepAlive, p.ClientID = c.ProtocolName, c.CleanStart, c.KeepAlive, c.ClientID
		p.HasUsername, p.Username = c.UsernameFlag, c.Username
		p.HasPassword, p.Password = c.PasswordFlag, string(c.Password)
		if c.WillFlag {
			p.Will = &Will{QoS: c.WillQOS, Retain: c.WillRetain, Topic: c.WillTopic, Payload: string(c.WillMessage),
				Props: fromPahoProps(c.WillProperties)}
		}
		p.Props = fromPahoProps(c.Properties)
	case *pp.Connack:
		p.SessionPresent, p.Reason, p.Props = c.SessionPresent, c.ReasonCode, fromPahoProps(c.Properties)
	case *pp.Publish:
		p.Dup, p.QoS, p.Retain = c.Duplicate, c.QoS, c.Retain
		p.Topic, p.PacketID, p.Payload, p.Props = c.Topic, c.PacketID, string(c.Payload), fromPahoProps(c.Properties)
	case *pp.Puback:
		p.PacketID, p.Reason, p.Props = c.PacketID, c.ReasonCode, fromPahoProps(c.Properties)
	case *pp.Pubrec:
		p.PacketID, p.Reason, p.Props = c.PacketID, c.ReasonCode, fromPahoProps(c.Properties)
	case *pp.Pubrel:
		p.PacketID, p.Reason, p.Props = c.PacketID, c.ReasonCode, fromPahoProps(c.Properties)
	case *pp.Pubcomp:
		p.PacketID, p.Reason, p.Props = c.PacketID, c.ReasonCode, fromPahoProps(c.Properties)
	case *pp.Subscribe:
		p.PacketID, p.Props = c.PacketID, fromPahoProps(c.Properties)
		for _, s := range c.Subscriptions {
			p.Subs = append(p.Subs, Sub{Filter: s.Topic, QoS: s.QoS, NoLocal: s.NoLocal,
				RetainAsPublished: s.RetainAsPublished, RetainHandling: s.RetainHandling})
		}
	case *pp.Suback:
		p.PacketID, p.Props, p.Reasons = c.PacketID, fromPahoProps(c.Properties), append([]byte(nil), c.Reasons...)
	case *pp.Unsubscribe:
		p.PacketID, p.Props, p.Filters = c.PacketID, fromPahoProps(c.Properties), c.Topics
	case *pp.Unsuback:
		p.PacketID, p.Props, p.Reasons = c.PacketID, fromPahoProps(c.Properties), append([]byte(nil), c.Reasons...)
	case *pp.Disconnect:
		p.Reason, p.Props = c.ReasonCode, fromPahoProps(c.Properties)
	case *pp.Auth:
		p.Reason, p.Props = c.ReasonCode, fromPahoProps(c.Properties)
	}
	return p
}

// fromPahoProps lists paho's properties in identifier order; paho keeps
// no order, one value per property, and empty strings for absent ones.
func fromPahoProps(pr *pp.Properties) []Prop {
	if pr == nil {
		return nil
	}
	var ps []Prop
	b := func(id byte, v *byte) {
		if v != nil {
			ps = append(ps, Prop{ID: id, N: uint32(*v)})
		}
	}
	u16 := func(id byte, v *uint16) {
		if v != nil {
			ps = append(ps, Prop{ID: id, N: uint32(*v)})
		}
	}
	u32 := func(id byte, v *uint32) {
		if v != nil {
			ps = append(ps, Prop{ID: id, N: *v})
		}
	}
	s := func(id byte, v string) {
		if v != "" {
			ps = append(ps, Prop{ID: id, S: v})
		}
	}
	b(PropPayloadFormat, pr.PayloadFormat)
	u32(PropMessageExpiry, pr.MessageExpiry)
	s(PropContentType, pr.ContentType)
	s(PropResponseTopic, pr.ResponseTopic)
	s(PropCorrelationData, string(pr.CorrelationData))
	if pr.SubscriptionIdentifier != nil {
		ps = append(ps, Prop{ID: PropSubscriptionID, N: uint32(*pr.SubscriptionIdentifier)})
	}
	u32(PropSessionExpiry, pr.SessionExpiryInterval)
	s(PropAssignedClientID, pr.AssignedClientID)
	u16(PropServerKeepAlive, pr.ServerKeepAlive)
	s(PropAuthMethod, pr.AuthMethod)
	s(PropAuthData, string(pr.AuthData))
	b(PropRequestProblemInfo, pr.RequestProblemInfo)
	u32(PropWillDelay, pr.WillDelayInterval)
	b(PropRequestResponseInfo, pr.RequestResponseInfo)
	s(PropResponseInfo, pr.ResponseInfo)
	s(PropServerReference, pr.ServerReference)
	s(PropReasonString, pr.ReasonString)
	u16(PropReceiveMaximum, pr.ReceiveMaximum)
	u16(PropTopicAliasMaximum, pr.TopicAliasMaximum)
	u16(PropTopicAlias, pr.TopicAlias)
	b(PropMaximumQoS, pr.MaximumQOS)
	b(PropRetainAvailable, pr.RetainAvailable)
	for _, u := range pr.User {
		ps = append(ps, Prop{ID: PropUser, Key: u.Key, S: u.Value})
	}
	u32(PropMaximumPacketSize, pr.MaximumPacketSize)
	b(PropWildcardSubAvail, pr.WildcardSubAvailable)
	b(PropSubIDAvailable, pr.SubIDAvailable)
	b(PropSharedSubAvailable, pr.SharedSubAvailable)
	return ps
}
