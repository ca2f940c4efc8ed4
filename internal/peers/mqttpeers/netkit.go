package mqttpeers

import (
	"errors"
	"io"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec/mqtt"
)

// Netkit is netkit's codec/mqtt, both versions, with its default limits.
//
// Encode appends with an Encoder of the packet's version; Decode is
// mqtt.Decode (with version 0 for a CONNECT, which carries its own: netkit
// rejects a CONNECT on a connection whose version is known); ReadFrom feeds a Decoder the reads of r through a
// buf.Composite, as a connection's handler does.
var Netkit = &Impl{Name: "netkit", Versions: []byte{V311, V5}, Encode: netkitEncode, Decode: netkitDecode,
	ReadFrom: netkitReadFrom}

// ToNetkit returns p as netkit's packet; its fields alias p's strings'
// copies, made once.
func ToNetkit(p *Packet) *mqtt.Packet {
	pk := &mqtt.Packet{Type: mqtt.Type(p.Type), Version: mqtt.Version(p.Version)}
	switch p.Type {
	case Connect:
		pk.Connect = new(mqtt.Connect)
		c := pk.Connect
		c.ProtocolName, c.Version = []byte(p.ProtocolName), mqtt.Version(p.Version)
		c.CleanStart, c.KeepAlive, c.ClientID = p.CleanStart, p.KeepAlive, []byte(p.ClientID)
		c.Props = toNetkitProps(p.Props)
		if w := p.Will; w != nil {
			c.WillFlag, c.WillQoS, c.WillRetain = true, w.QoS, w.Retain
			c.WillTopic, c.WillPayload, c.WillProps = []byte(w.Topic), []byte(w.Payload), toNetkitProps(w.Props)
		}
		c.HasUsername, c.Username = p.HasUsername, bytesOf(p.HasUsername, p.Username)
		c.HasPassword, c.Password = p.HasPassword, bytesOf(p.HasPassword, p.Password)
	case Connack:
		pk.Connack = &mqtt.Connack{SessionPresent: p.SessionPresent, Reason: mqtt.ReasonCode(p.Reason), Props: toNetkitProps(p.Props)}
	case Publish:
		pk.Publish = &mqtt.Publish{Dup: p.Dup, QoS: p.QoS, Retain: p.Retain, Topic: []byte(p.Topic), PacketID: p.PacketID,
			Props: toNetkitProps(p.Props), Payload: []byte(p.Payload)}
	case Puback, Pubrec, Pubrel, Pubcomp:
		pk.Ack = &mqtt.Ack{PacketID: p.PacketID, Reason: mqtt.ReasonCode(p.Reason), Props: toNetkitProps(p.Props)}
	case Subscribe:
		pk.Subscribe = new(mqtt.Subscribe)
		s := pk.Subscribe
		s.PacketID, s.Props = p.PacketID, toNetkitProps(p.Props)
		for _, sub := range p.Subs {
			s.Subscriptions = append(s.Subscriptions, mqtt.Subscription{Filter: []byte(sub.Filter), QoS: sub.QoS,
				NoLocal: sub.NoLocal, RetainAsPublished: sub.RetainAsPublished, RetainHandling: sub.RetainHandling})
		}
	case Suback, Unsuback:
		pk.Suback = new(mqtt.Suback)
		s := pk.Suback
		s.PacketID, s.Props = p.PacketID, toNetkitProps(p.Props)
		for _, r := range p.Reasons {
			s.Reasons = append(s.Reasons, mqtt.ReasonCode(r))
		}
	case Unsubscribe:
		pk.Unsubscribe = new(mqtt.Unsubscribe)
		u := pk.Unsubscribe
		u.PacketID, u.Props = p.PacketID, toNetkitProps(p.Props)
		for _, f := range p.Filters {
			u.Filters = append(u.Filters, []byte(f))
		}
	case Disconnect:
		pk.Disconnect = &mqtt.Disconnect{Reason: mqtt.ReasonCode(p.Reason), Props: toNetkitProps(p.Props)}
	case Auth:
		pk.Auth = &mqtt.Auth{Reason: mqtt.ReasonCode(p.Reason), Props: toNetkitProps(p.Props)}
	}
	return pk
}

// bytesOf returns s as bytes, empty but not nil when present.
func bytesOf(present bool, s string) []byte {
	if !present {
		return nil
	}
	return append([]byte{}, s...)
}

func toNetkitProps(props []Prop) mqtt.Properties {
	var np mqtt.Properties
	for _, p := range props {
		id := mqtt.PropID(p.ID)
		switch p.ID {
		case PropSubscriptionID:
			np.SubscriptionIDs = append(np.SubscriptionIDs, p.N)
		case PropUser:
			np.User = append(np.User, mqtt.UserProperty{Key: []byte(p.Key), Value: []byte(p.S)})
		default:
			setNetkitProp(&np, p)
		}
		np.Present.Add(id)
	}
	return np
}

// netkitProp returns a pointer to the field of np that holds single-valued
// property id: one of *byte, *uint16, *uint32 or *[]byte.
func netkitProp(np *mqtt.Properties, id byte) any {
	switch id {
	case PropPayloadFormat:
		return &np.PayloadFormat
	case PropMessageExpiry:
		return &np.MessageExpiry
	case PropContentType:
		return &np.ContentType
	case PropResponseTopic:
		return &np.ResponseTopic
	case PropCorrelationData:
		return &np.CorrelationData
	case PropSessionExpiry:
		return &np.SessionExpiry
	case PropAssignedClientID:
		return &np.AssignedClientID
	case PropServerKeepAlive:
		return &np.ServerKeepAlive
	case PropAuthMethod:
		return &np.AuthMethod
	case PropAuthData:
		return &np.AuthData
	case PropRequestProblemInfo:
		return &np.RequestProblemInfo
	case PropWillDelay:
		return &np.WillDelay
	case PropRequestResponseInfo:
		return &np.RequestResponseInfo
	case PropResponseInfo:
		return &np.ResponseInfo
	case PropServerReference:
		return &np.ServerReference
	case PropReasonString:
		return &np.ReasonString
	case PropReceiveMaximum:
		return &np.ReceiveMaximum
	case PropTopicAliasMaximum:
		return &np.TopicAliasMaximum
	case PropTopicAlias:
		return &np.TopicAlias
	case PropMaximumQoS:
		return &np.MaximumQoS
	case PropRetainAvailable:
		return &np.RetainAvailable
	case PropMaximumPacketSize:
		return &np.MaximumPacketSize
	case PropWildcardSubAvail:
		return &np.WildcardSubAvailable
	case PropSubIDAvailable:
		return &np.SubIDAvailable
	case PropSharedSubAvailable:
		return &np.SharedSubAvailable
	}
	return nil
}

func setNetkitProp(np *mqtt.Properties, p Prop) {
	switch f := netkitProp(np, p.ID).(type) {
	case *byte:
		*f = byte(p.N)
	case *uint16:
		*f = uint16(p.N)
	case *uint32:
		*f = p.N
	case *[]byte:
		*f = []byte(p.S)
	}
}

// fromNetkitProps lists np's properties in identifier order.
func fromNetkitProps(np *mqtt.Properties) []Prop {
	var ps []Prop
	for id := range 0x2B {
		if !np.Present.Has(mqtt.PropID(id)) {
			continue
		}
		switch byte(id) {
		case PropSubscriptionID:
			for _, n := range np.SubscriptionIDs {
				ps = append(ps, Prop{ID: PropSubscriptionID, N: n})
			}
			continue
		case PropUser:
			for _, u := range np.User {
				ps = append(ps, Prop{ID: PropUser, Key: string(u.Key), S: string(u.Value)})
			}
			continue
		}
		p := Prop{ID: byte(id)}
		switch f := netkitProp(np, byte(id)).(type) {
		case *byte:
			p.N = uint32(*f)
		case *uint16:
			p.N = uint32(*f)
		case *uint32:
			p.N = *f
		case *[]byte:
			p.S = string(*f)
		}
		ps = append(ps, p)
	}
	return ps
}

// FromNetkit returns the neutral description of netkit's packet pk.
func FromNetkit(pk *mqtt.Packet) *Packet {
	p := &Packet{Type: byte(pk.Type), Version: byte(pk.Version)}
	switch p.Type {
	case Connect:
		c := pk.Connect
		p.Version = byte(c.Version)
		p.ProtocolName, p.CleanStart, p.KeepAlive, p.ClientID = string(c.ProtocolName), c.CleanStart, c.KeepAlive, string(c.ClientID)
		p.Props = fromNetkitProps(&c.Props)
		if c.WillFlag {
			p.Will = &Will{QoS: c.WillQoS, Retain: c.WillRetain, Topic: string(c.WillTopic), Payload: string(c.WillPayload),
				Props: fromNetkitProps(&c.WillProps)}
		}
		p.HasUsername, p.Username = c.HasUsername, string(c.Username)
		p.HasPassword, p.Password = c.HasPassword, string(c.Password)
	case Connack:
		c := pk.Connack
		p.SessionPresent, p.Reason, p.Props = c.SessionPresent, byte(c.Reason), fromNetkitProps(&c.Props)
	case Publish:
		u := pk.Publish
		p.Dup, p.QoS, p.Retain, p.Topic, p.PacketID = u.Dup, u.QoS, u.Retain, string(u.Topic), u.PacketID
		p.Props, p.Payload = fromNetkitProps(&u.Props), string(u.Payload)
	case Puback, Pubrec, Pubrel, Pubcomp:
		a := pk.Ack
		p.PacketID, p.Reason, p.Props = a.PacketID, byte(a.Reason), fromNetkitProps(&a.Props)
	case Subscribe:
		s := pk.Subscribe
		p.PacketID, p.Props = s.PacketID, fromNetkitProps(&s.Props)
		for _, sub := range s.Subscriptions {
			p.Subs = append(p.Subs, Sub{Filter: string(sub.Filter), QoS: sub.QoS, NoLocal: sub.NoLocal,
				RetainAsPublished: sub.RetainAsPublished, RetainHandling: sub.RetainHandling})
		}
	case Suback, Unsuback:
		s := pk.Suback
		p.PacketID, p.Props = s.PacketID, fromNetkitProps(&s.Props)
		for _, r := range s.Reasons {
			p.Reasons = append(p.Reasons, byte(r))
		}
	case Unsubscribe:
		u := pk.Unsubscribe
		p.PacketID, p.Props = u.PacketID, fromNetkitProps(&u.Props)
		for _, f := range u.Filters {
			p.Filters = append(p.Filters, string(f))
		}
	case Disconnect:
		d := pk.Disconnect
		p.Reason, p.Props = byte(d.Reason), fromNetkitProps(&d.Props)
	case Auth:
		a := pk.Auth
		p.Reason, p.Props = byte(a.Reason), fromNetkitProps(&a.Props)
	}
	return p
}

func netkitEncode(p *Packet) ([]byte, error) {
	e := mqtt.Encoder{Version: mqtt.Version(p.Version)}
	return e.Append(nil, ToNetkit(p))
}

func netkitDecode(b []byte, v byte) (p *Packet, n int, err error) {
	defer recoverInto("netkit", &err)
	var pk mqtt.Packet
	if len(b) > 0 && b[0]>>4 == Connect {
		v = 0 // the CONNECT of a connection: netkit takes its version from it
	}
	n, err = mqtt.DecodeBytes(b, mqtt.Version(v), &pk)
	if err != nil {
		return nil, 0, err
	}
	return FromNetkit(&pk), n, nil
}

// netkitReadFrom reads r 4 KiB at a time into a composite until its
// Decoder has a packet or an error. A connection whose first packet is a
// CONNECT gets a server's Decoder (no version yet).
func netkitReadFrom(r io.Reader, v byte) (p *Packet, err error) {
	defer recoverInto("netkit", &err)
	var d mqtt.Decoder
	var pk mqtt.Packet
	defer pk.Release()
	in := buf.NewComposite()
	defer in.Release()
	for first := true; ; first = false {
		b := buf.Get(4096)
		a := b.AvailableBuffer()
		n, rerr := r.Read(a[:cap(a)])
		b.Commit(n)
		in.Append(b)
		if first && (n == 0 || a[:n][0]>>4 != Connect) {
			d.Version = mqtt.Version(v)
		}
		err := d.Decode(in, &pk)
		if err == nil {
			return FromNetkit(&pk), nil
		}
		if !errors.Is(err, mqtt.ErrShort) {
			return nil, err
		}
		if rerr != nil {
			return nil, rerr
		}
	}
}
