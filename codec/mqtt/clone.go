package mqtt

import "bytes"

// Clone returns a copy of p that shares no memory with p or with the input
// p was decoded from, for a caller that keeps a packet past the input's
// lifetime. It copies the field Type selects (and Type and Version); the
// copy holds no reference to pooled memory and needs no Release.
func (p *Packet) Clone() *Packet {
	c := &Packet{Type: p.Type, Version: p.Version}
	switch p.Type {
	case TypeConnect:
		c.Connect = p.Connect
		cc := &c.Connect
		cc.ProtocolName = bytes.Clone(cc.ProtocolName)
		cc.ClientID = bytes.Clone(cc.ClientID)
		cc.WillTopic = bytes.Clone(cc.WillTopic)
		cc.WillPayload = bytes.Clone(cc.WillPayload)
		cc.Username = bytes.Clone(cc.Username)
		cc.Password = bytes.Clone(cc.Password)
		cc.Props.clone()
		cc.WillProps.clone()
	case TypeConnack:
		c.Connack = p.Connack
		c.Connack.Props.clone()
	case TypePublish:
		c.Publish = p.Publish
		c.Publish.Topic = bytes.Clone(c.Publish.Topic)
		c.Publish.Payload = bytes.Clone(c.Publish.Payload)
		c.Publish.Props.clone()
	case TypePuback, TypePubrec, TypePubrel, TypePubcomp:
		c.Ack = p.Ack
		c.Ack.Props.clone()
	case TypeSubscribe:
		c.Subscribe = p.Subscribe
		s := &c.Subscribe
		s.Subscriptions = append([]Subscription(nil), s.Subscriptions...)
		for i := range s.Subscriptions {
			s.Subscriptions[i].Filter = bytes.Clone(s.Subscriptions[i].Filter)
		}
		s.Props.clone()
	case TypeSuback, TypeUnsuback:
		c.Suback = p.Suback
		c.Suback.Reasons = append([]ReasonCode(nil), c.Suback.Reasons...)
		c.Suback.Props.clone()
	case TypeUnsubscribe:
		c.Unsubscribe = p.Unsubscribe
		u := &c.Unsubscribe
		u.Filters = append([][]byte(nil), u.Filters...)
		for i := range u.Filters {
			u.Filters[i] = bytes.Clone(u.Filters[i])
		}
		u.Props.clone()
	case TypeDisconnect:
		c.Disconnect = p.Disconnect
		c.Disconnect.Props.clone()
	case TypeAuth:
		c.Auth = p.Auth
		c.Auth.Props.clone()
	}
	return c
}

// clone replaces every slice of ps with a copy.
func (ps *Properties) clone() {
	for _, f := range [...]*[]byte{&ps.ContentType, &ps.ResponseTopic,
		&ps.CorrelationData, &ps.AssignedClientID, &ps.AuthMethod, &ps.AuthData,
		&ps.ResponseInfo, &ps.ServerReference, &ps.ReasonString} {
		*f = bytes.Clone(*f)
	}
	ps.SubscriptionIDs = append([]uint32(nil), ps.SubscriptionIDs...)
	ps.User = append([]UserProperty(nil), ps.User...)
	for i := range ps.User {
		ps.User[i].Key = bytes.Clone(ps.User[i].Key)
		ps.User[i].Value = bytes.Clone(ps.User[i].Value)
	}
}
