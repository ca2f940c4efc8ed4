package mqtt

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// A gen draws the fields of a packet from fuzz bytes: zero once they run
// out, so every input gives a packet.
type gen struct {
	b []byte
	i int
}

func (g *gen) u8() byte {
	if g.i >= len(g.b) {
		return 0
	}
	c := g.b[g.i]
	g.i++
	return c
}

func (g *gen) bool() bool { return g.u8()&1 != 0 }

func (g *gen) u16() uint16 {
	switch g.u8() % 4 {
	case 0:
		return 0
	case 1:
		return 1
	case 2:
		return 0xffff
	}
	return uint16(g.u8())<<8 | uint16(g.u8())
}

func (g *gen) u32() uint32 {
	switch g.u8() % 4 {
	case 0:
		return 0
	case 1:
		return 1
	case 2:
		return MaxVarInt + uint32(g.u8()%2)
	}
	return uint32(g.u16())<<16 | uint32(g.u16())
}

// genStrings are the strings a field is drawn from, besides raw bytes:
// topics, filters, wildcards, share names and ill-formed ones.
var genStrings = []string{"", "a", "a/b", "+", "#", "a/#", "a/+/c", "a#", "+a", "$share/g/a", "$share/+/a",
	"$share/g", "$SYS/x", "\x00", "\xff", "é", "\xed\xa0\x80", "MQTT", "MQIsdp", "MQTX"}

func (g *gen) str() []byte {
	c := g.u8()
	if int(c) < 2*len(genStrings) {
		return []byte(genStrings[int(c)%len(genStrings)])
	}
	n := int(g.u8() % 8)
	s := make([]byte, 0, n)
	for range n {
		s = append(s, g.u8())
	}
	return s
}

// propIDs lists the property identifiers, for the generator.
var propIDs = func() (ids []PropID) {
	for id, pi := range propInfo {
		if pi.typ != 0 {
			ids = append(ids, PropID(id))
		}
	}
	return ids
}()

// props draws a property list, mostly of properties packet kind k allows.
func (g *gen) props(k int) Properties {
	var ps Properties
	if g.u8()%3 == 0 {
		return ps
	}
	var set PropertySet
	for _, id := range propIDs {
		if g.u8()%4 == 0 {
			set.Add(id)
		}
	}
	if g.u8()%4 != 0 {
		set &= allowed[k]
	}
	small := func() byte { return g.u8() % 4 }
	for _, id := range propIDs {
		if !set.Has(id) {
			continue
		}
		switch id {
		case PropUser:
			for range 1 + g.u8()%3 {
				ps.User = append(ps.User, UserProperty{g.str(), g.str()})
			}
			continue
		case PropSubscriptionID:
			for range 1 + g.u8()%3 {
				ps.SubscriptionIDs = append(ps.SubscriptionIDs, g.u32())
			}
			continue
		}
		ps.Present.Add(id)
		switch propInfo[id].typ {
		case pByte:
			b := small()
			switch id {
			case PropPayloadFormat:
				ps.PayloadFormat = b
			case PropRequestProblemInfo:
				ps.RequestProblemInfo = b
			case PropRequestResponseInfo:
				ps.RequestResponseInfo = b
			case PropMaximumQoS:
				ps.MaximumQoS = b
			case PropRetainAvailable:
				ps.RetainAvailable = b
			case PropWildcardSubAvailable:
				ps.WildcardSubAvailable = b
			case PropSubIDAvailable:
				ps.SubIDAvailable = b
			case PropSharedSubAvailable:
				ps.SharedSubAvailable = b
			}
		case pU16:
			v := g.u16()
			switch id {
			case PropServerKeepAlive:
				ps.ServerKeepAlive = v
			case PropReceiveMaximum:
				ps.ReceiveMaximum = v
			case PropTopicAliasMaximum:
				ps.TopicAliasMaximum = v
			case PropTopicAlias:
				ps.TopicAlias = v
			}
		case pU32:
			v := g.u32()
			switch id {
			case PropMessageExpiry:
				ps.MessageExpiry = v
			case PropSessionExpiry:
				ps.SessionExpiry = v
			case PropWillDelay:
				ps.WillDelay = v
			case PropMaximumPacketSize:
				ps.MaximumPacketSize = v
			}
		default:
			*ps.strField(id) = g.str()
		}
	}
	return ps
}

func (g *gen) reason() ReasonCode {
	codes := []ReasonCode{0, 1, 2, 4, 5, 6, 0x10, 0x11, 0x18, 0x19, 0x80, 0x81, 0x82, 0x85, 0x87, 0x8F, 0x92, 0x95, 0x9C, 0xA2, 0xFF}
	return codes[int(g.u8())%len(codes)]
}

// packet draws a packet of any type (reserved ones included) and fields
// that are mostly, not always, valid.
func (g *gen) packet() (Packet, Version) {
	versions := []Version{V311, V311, V5, V5, V5, 3, 0, 6}
	v := versions[g.u8()%8]
	p := Packet{Type: Type(g.u8() % 16), Version: v}
	switch p.Type {
	case TypeConnect:
		c := new(Connect)
		p.Connect = c
		c.Version = versions[g.u8()%8]
		if g.u8()%4 == 0 {
			c.ProtocolName = g.str()
		}
		c.CleanStart, c.KeepAlive = g.bool(), g.u16()
		c.Props = g.props(int(TypeConnect))
		c.ClientID = g.str()
		c.WillFlag = g.bool()
		c.WillQoS = g.u8() % 4
		c.WillRetain = g.bool()
		if c.WillFlag || g.u8()%8 == 0 {
			c.WillProps = g.props(kindWill)
			c.WillTopic, c.WillPayload = g.str(), g.str()
		}
		c.HasUsername, c.HasPassword = g.bool(), g.bool()
		if c.HasUsername || g.u8()%8 == 0 {
			c.Username = g.str()
		}
		if c.HasPassword || g.u8()%8 == 0 {
			c.Password = g.str()
		}
	case TypeConnack:
		p.Connack = &Connack{SessionPresent: g.bool(), Reason: g.reason(), Props: g.props(int(TypeConnack))}
	case TypePublish:
		p.Publish = &Publish{Dup: g.bool(), QoS: g.u8() % 4, Retain: g.bool(), Topic: g.str()}
		if p.Publish.QoS > 0 || g.u8()%8 == 0 {
			p.Publish.PacketID = g.u16()
		}
		p.Publish.Props = g.props(int(TypePublish))
		p.Publish.Payload = g.str()
	case TypePuback, TypePubrec, TypePubrel, TypePubcomp:
		p.Ack = &Ack{PacketID: g.u16(), Reason: g.reason(), Props: g.props(int(p.Type))}
	case TypeSubscribe:
		p.Subscribe = &Subscribe{PacketID: g.u16(), Props: g.props(int(TypeSubscribe))}
		for range g.u8() % 4 {
			p.Subscribe.Subscriptions = append(p.Subscribe.Subscriptions, Subscription{Filter: g.str(), QoS: g.u8() % 4,
				NoLocal: g.bool(), RetainAsPublished: g.bool(), RetainHandling: g.u8() % 4})
		}
	case TypeSuback, TypeUnsuback:
		p.Suback = &Suback{PacketID: g.u16(), Props: g.props(int(p.Type))}
		for range g.u8() % 4 {
			p.Suback.Reasons = append(p.Suback.Reasons, g.reason())
		}
	case TypeUnsubscribe:
		p.Unsubscribe = &Unsubscribe{PacketID: g.u16(), Props: g.props(int(TypeUnsubscribe))}
		for range g.u8() % 4 {
			p.Unsubscribe.Filters = append(p.Unsubscribe.Filters, g.str())
		}
	case TypeDisconnect:
		p.Disconnect = &Disconnect{Reason: g.reason(), Props: g.props(int(TypeDisconnect))}
	case TypeAuth:
		p.Auth = &Auth{Reason: g.reason(), Props: g.props(int(TypeAuth))}
	}
	return p, v
}

// nilIfEmpty makes an empty slice nil, so that a field left nil and one
// decoded as empty compare equal.
func nilIfEmpty(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

// normProps returns the properties ps carries on the wire in version v:
// fields whose bit is clear are zero, empty slices nil.
func normProps(ps *Properties, v Version) Properties {
	if v != V5 {
		return Properties{}
	}
	set := ps.set()
	var n Properties
	n.Present = set
	for _, id := range propIDs {
		if !set.Has(id) {
			continue
		}
		switch propInfo[id].typ {
		case pByte, pU16, pU32:
		case pVar:
			n.SubscriptionIDs = append([]uint32(nil), ps.SubscriptionIDs...)
		case pPair:
			for _, u := range ps.User {
				n.User = append(n.User, UserProperty{nilIfEmpty(u.Key), nilIfEmpty(u.Value)})
			}
		default:
			*n.strField(id) = nilIfEmpty(*ps.strField(id))
		}
	}
	if set.Has(PropPayloadFormat) {
		n.PayloadFormat = ps.PayloadFormat
	}
	if set.Has(PropRequestProblemInfo) {
		n.RequestProblemInfo = ps.RequestProblemInfo
	}
	if set.Has(PropRequestResponseInfo) {
		n.RequestResponseInfo = ps.RequestResponseInfo
	}
	if set.Has(PropMaximumQoS) {
		n.MaximumQoS = ps.MaximumQoS
	}
	if set.Has(PropRetainAvailable) {
		n.RetainAvailable = ps.RetainAvailable
	}
	if set.Has(PropWildcardSubAvailable) {
		n.WildcardSubAvailable = ps.WildcardSubAvailable
	}
	if set.Has(PropSubIDAvailable) {
		n.SubIDAvailable = ps.SubIDAvailable
	}
	if set.Has(PropSharedSubAvailable) {
		n.SharedSubAvailable = ps.SharedSubAvailable
	}
	if set.Has(PropServerKeepAlive) {
		n.ServerKeepAlive = ps.ServerKeepAlive
	}
	if set.Has(PropReceiveMaximum) {
		n.ReceiveMaximum = ps.ReceiveMaximum
	}
	if set.Has(PropTopicAliasMaximum) {
		n.TopicAliasMaximum = ps.TopicAliasMaximum
	}
	if set.Has(PropTopicAlias) {
		n.TopicAlias = ps.TopicAlias
	}
	if set.Has(PropMessageExpiry) {
		n.MessageExpiry = ps.MessageExpiry
	}
	if set.Has(PropSessionExpiry) {
		n.SessionExpiry = ps.SessionExpiry
	}
	if set.Has(PropWillDelay) {
		n.WillDelay = ps.WillDelay
	}
	if set.Has(PropMaximumPacketSize) {
		n.MaximumPacketSize = ps.MaximumPacketSize
	}
	return n
}

// norm returns what of p's active field its encoding in version v carries,
// in a form reflect.DeepEqual compares: what the wire cannot say is zero,
// empty slices are nil.
func norm(p *Packet, v Version) any {
	switch p.Type {
	case TypeConnect:
		c := *orZero(p.Connect)
		v = c.Version
		c.ProtocolName = nil
		c.Props = normProps(&c.Props, v)
		c.ClientID = nilIfEmpty(c.ClientID)
		if c.WillFlag {
			c.WillProps = normProps(&c.WillProps, v)
		} else {
			c.WillProps = Properties{}
		}
		c.WillTopic, c.WillPayload = nilIfEmpty(c.WillTopic), nilIfEmpty(c.WillPayload)
		c.Username, c.Password = nilIfEmpty(c.Username), nilIfEmpty(c.Password)
		return c
	case TypeConnack:
		c := *orZero(p.Connack)
		c.Props = normProps(&c.Props, v)
		return c
	case TypePublish:
		c := *orZero(p.Publish)
		c.Topic, c.Payload = nilIfEmpty(c.Topic), nilIfEmpty(c.Payload)
		c.Props = normProps(&c.Props, v)
		return c
	case TypePuback, TypePubrec, TypePubrel, TypePubcomp:
		c := *orZero(p.Ack)
		c.Props = normProps(&c.Props, v)
		return c
	case TypeSubscribe:
		c := *orZero(p.Subscribe)
		c.Props = normProps(&c.Props, v)
		c.Subscriptions = nil
		for _, s := range orZero(p.Subscribe).Subscriptions {
			s.Filter = nilIfEmpty(s.Filter)
			c.Subscriptions = append(c.Subscriptions, s)
		}
		return c
	case TypeSuback, TypeUnsuback:
		c := *orZero(p.Suback)
		c.Props = normProps(&c.Props, v)
		if len(c.Reasons) == 0 {
			c.Reasons = nil
		}
		return c
	case TypeUnsubscribe:
		c := *orZero(p.Unsubscribe)
		c.Props = normProps(&c.Props, v)
		c.Filters = nil
		for _, f := range orZero(p.Unsubscribe).Filters {
			c.Filters = append(c.Filters, nilIfEmpty(f))
		}
		return c
	case TypeDisconnect:
		c := *orZero(p.Disconnect)
		c.Props = normProps(&c.Props, v)
		return c
	case TypeAuth:
		c := *orZero(p.Auth)
		c.Props = normProps(&c.Props, v)
		return c
	}
	return nil
}

// FuzzEncode encodes random packets, mostly valid and often not, and
// requires of every encoding the encoder accepts that it decodes, in one
// piece, to an equal packet; of every refusal that it is a *Violation and
// leaves dst (its bytes up to its capacity included) as it was.
func FuzzEncode(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{2, 3, 0, 1, 2, 3, 4, 5, 6, 7})
	f.Add([]byte{4, 1, 4, 2, 1, 0})
	for i := range 64 {
		f.Add(bytes.Repeat([]byte{byte(i * 37)}, 40))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := gen{b: data}
		p, v := g.packet()
		e := Encoder{Version: v}
		if g.u8()%8 == 0 {
			e.MaxPacketSize = int(g.u8())
		}
		prefix := g.str()
		spare := int(g.u8() % 64)
		dst := make([]byte, len(prefix), len(prefix)+spare)
		copy(dst, prefix)
		for i := len(dst); i < cap(dst); i++ {
			dst[:cap(dst)][i] = 0xA5
		}
		out, err := e.Append(dst, &p)
		if err != nil {
			var vi *Violation
			require.False(t, !errors.As(err, &vi) && !errors.Is(err, errNotAck), "%v %v: refusal %v is not a *Violation", v, p.Type, err)
			require.Equal(t, len(dst), len(out), "%v %v: refused with %v but dst changed: %q", v, p.Type, err, out)
			require.Equal(t, cap(dst), cap(out), "%v %v: refused with %v but dst changed: %q", v, p.Type, err, out)
			require.Equal(t, prefix, out, "%v %v: refused with %v but dst changed: %q", v, p.Type, err, out)
			for _, c := range dst[len(dst):cap(dst)] {
				require.Equal(t, byte(0xA5), c, "%v %v: refused with %v but wrote past dst's length", v, p.Type, err)
			}
			return
		}
		require.Equal(t, prefix, out[:len(prefix)], "%v %v: dst's bytes changed", v, p.Type)
		b := out[len(prefix):]
		require.False(t, e.MaxPacketSize > 0 && len(b) > e.MaxPacketSize, "%v %v: %d bytes over the peer's maximum %d", v, p.Type, len(b), e.MaxPacketSize)
		var q Packet
		d := Decoder{Version: v}
		if p.Type == TypeConnect {
			d.Version = 0
		}
		n, derr := d.DecodeBytes(b, &q)
		require.NoError(t, derr, "%v %v: encoder accepted %+v\nas %x, which does not decode", v, p.Type, active(&p), b)
		require.Equal(t, len(b), n, "%v %v: encoder accepted %+v\nas %x, which decodes short", v, p.Type, active(&p), b)
		wv := v
		if p.Type == TypeConnect {
			wv = p.Connect.Version
		}
		require.Equal(t, p.Type, q.Type, "%v %v: %x decodes as %v %v", v, p.Type, b, q.Version, q.Type)
		require.Equal(t, wv, q.Version, "%v %v: %x decodes as %v %v", v, p.Type, b, q.Version, q.Type)
		got, want := norm(&q, wv), norm(&p, wv)
		require.Equal(t, want, got, "%v %v: %x decodes to\n%+v\nwant\n%+v", v, p.Type, b, got, want)
	})
}
