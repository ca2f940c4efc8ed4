package mqtt

import "bytes"

// Clone returns a copy of p that shares no memory with p or with the input
// p was decoded from, for a caller that keeps a packet past the input's
// lifetime. It copies Type, Version and the field Type selects (the other
// fields of the copy are nil); the copy holds no reference to pooled memory
// and needs no Release.
//
// It allocates in proportion to the packet: one object holding the Packet
// and the value of its type, one array for all the bytes, and one for each
// non-empty list (user properties, subscription identifiers,
// subscriptions, filters, reason codes). A retained 5-byte PUBLISH costs
// two allocations of under 600 bytes together.
func (p *Packet) Clone() *Packet {
	switch p.Type {
	case TypeConnect:
		c, v := withValue[Connect](p)
		c.Connect = v
		orZero(p.Connect).cloneInto(v)
		return c
	case TypeConnack:
		c, v := withValue[Connack](p)
		c.Connack = v
		if p.Connack != nil {
			*v = *p.Connack
			a := newArena(p.Connack.Props.bytesLen())
			p.Connack.Props.cloneInto(&v.Props, &a)
		}
		return c
	case TypePublish:
		c, v := withValue[Publish](p)
		c.Publish = v
		orZero(p.Publish).cloneInto(v)
		return c
	case TypePuback, TypePubrec, TypePubrel, TypePubcomp:
		c, v := withValue[Ack](p)
		c.Ack = v
		if p.Ack != nil {
			*v = *p.Ack
			a := newArena(p.Ack.Props.bytesLen())
			p.Ack.Props.cloneInto(&v.Props, &a)
		}
		return c
	case TypeSubscribe:
		c, v := withValue[Subscribe](p)
		c.Subscribe = v
		orZero(p.Subscribe).cloneInto(v)
		return c
	case TypeSuback, TypeUnsuback:
		c, v := withValue[Suback](p)
		c.Suback = v
		if p.Suback != nil {
			*v = *p.Suback
			v.Reasons = cloneList(p.Suback.Reasons)
			a := newArena(p.Suback.Props.bytesLen())
			p.Suback.Props.cloneInto(&v.Props, &a)
		}
		return c
	case TypeUnsubscribe:
		c, v := withValue[Unsubscribe](p)
		c.Unsubscribe = v
		orZero(p.Unsubscribe).cloneInto(v)
		return c
	case TypeDisconnect:
		c, v := withValue[Disconnect](p)
		c.Disconnect = v
		if p.Disconnect != nil {
			*v = *p.Disconnect
			a := newArena(p.Disconnect.Props.bytesLen())
			p.Disconnect.Props.cloneInto(&v.Props, &a)
		}
		return c
	case TypeAuth:
		c, v := withValue[Auth](p)
		c.Auth = v
		if p.Auth != nil {
			*v = *p.Auth
			a := newArena(p.Auth.Props.bytesLen())
			p.Auth.Props.cloneInto(&v.Props, &a)
		}
		return c
	}
	return &Packet{Type: p.Type, Version: p.Version}
}

// packetWith is a Packet and the value of its type in one allocation.
type packetWith[T any] struct {
	Packet
	v T
}

// withValue allocates a Packet with p's Type and Version together with a
// zero T for it to point at.
func withValue[T any](p *Packet) (*Packet, *T) {
	c := &packetWith[T]{Packet: Packet{Type: p.Type, Version: p.Version}}
	return &c.Packet, &c.v
}

// Clone returns a copy of p that shares no memory with p or with the input
// p was decoded from: a broker keeps a retained message with it. It
// allocates the Publish, one array for the topic, the payload and the
// properties' bytes, and a list for user properties and one for
// subscription identifiers when there are any.
func (p *Publish) Clone() *Publish {
	c := new(Publish)
	p.cloneInto(c)
	return c
}

// ownArray is the payload length from which a payload gets an array of
// its own rather than a place in the arena: a large one is then allocated
// at its exact size, not rounded up with the topic's bytes to the next
// size class.
const ownArray = 512

func (p *Publish) cloneInto(c *Publish) {
	*c = *p
	n := len(p.Topic) + p.Props.bytesLen()
	if len(p.Payload) < ownArray {
		n += len(p.Payload)
	}
	a := newArena(n)
	c.Topic = a.copy(p.Topic)
	if len(p.Payload) < ownArray {
		c.Payload = a.copy(p.Payload)
	} else {
		c.Payload = bytes.Clone(p.Payload)
	}
	p.Props.cloneInto(&c.Props, &a)
}

func (p *Connect) cloneInto(c *Connect) {
	*c = *p
	a := newArena(len(p.ProtocolName) + len(p.ClientID) + len(p.WillTopic) + len(p.WillPayload) +
		len(p.Username) + len(p.Password) + p.Props.bytesLen() + p.WillProps.bytesLen())
	c.ProtocolName = a.copy(p.ProtocolName)
	c.ClientID = a.copy(p.ClientID)
	c.WillTopic = a.copy(p.WillTopic)
	c.WillPayload = a.copy(p.WillPayload)
	c.Username = a.copy(p.Username)
	c.Password = a.copy(p.Password)
	p.Props.cloneInto(&c.Props, &a)
	p.WillProps.cloneInto(&c.WillProps, &a)
}

func (s *Subscribe) cloneInto(c *Subscribe) {
	*c = *s
	n := s.Props.bytesLen()
	for i := range s.Subscriptions {
		n += len(s.Subscriptions[i].Filter)
	}
	a := newArena(n)
	c.Subscriptions = cloneList(s.Subscriptions)
	for i := range c.Subscriptions {
		c.Subscriptions[i].Filter = a.copy(s.Subscriptions[i].Filter)
	}
	s.Props.cloneInto(&c.Props, &a)
}

func (u *Unsubscribe) cloneInto(c *Unsubscribe) {
	*c = *u
	n := u.Props.bytesLen()
	for _, f := range u.Filters {
		n += len(f)
	}
	a := newArena(n)
	c.Filters = cloneList(u.Filters)
	for i := range c.Filters {
		c.Filters[i] = a.copy(u.Filters[i])
	}
	u.Props.cloneInto(&c.Props, &a)
}

// strFields returns the string and binary properties of ps.
func (ps *Properties) strFields() [9]*[]byte {
	return [...]*[]byte{&ps.ContentType, &ps.ResponseTopic, &ps.CorrelationData,
		&ps.AssignedClientID, &ps.AuthMethod, &ps.AuthData, &ps.ResponseInfo,
		&ps.ServerReference, &ps.ReasonString}
}

// bytesLen returns the number of bytes ps's slices of bytes hold.
func (ps *Properties) bytesLen() int {
	n := 0
	for _, f := range ps.strFields() {
		n += len(*f)
	}
	for _, u := range ps.User {
		n += len(u.Key) + len(u.Value)
	}
	return n
}

// cloneInto sets *c to a copy of ps whose bytes come from a.
func (ps *Properties) cloneInto(c *Properties, a *arena) {
	*c = *ps
	src, dst := ps.strFields(), c.strFields()
	for i, f := range src {
		*dst[i] = a.copy(*f)
	}
	c.SubscriptionIDs = cloneList(ps.SubscriptionIDs)
	c.User = cloneList(ps.User)
	for i := range c.User {
		c.User[i].Key = a.copy(ps.User[i].Key)
		c.User[i].Value = a.copy(ps.User[i].Value)
	}
}

// cloneList returns a copy of s, nil when s is empty.
func cloneList[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return append(make([]T, 0, len(s)), s...)
}

// An arena hands out copies of byte slices from one array, sized for all
// of them beforehand.
type arena []byte

func newArena(n int) arena {
	if n == 0 {
		return nil
	}
	return make(arena, 0, n)
}

// copy returns a copy of s in a's array (capacity limited to its length,
// so appending to it cannot reach the next one): nil for nil, empty for
// empty.
func (a *arena) copy(s []byte) []byte {
	switch {
	case s == nil:
		return nil
	case len(s) == 0:
		return []byte{}
	}
	n := len(*a)
	*a = append(*a, s...)
	return (*a)[n : n+len(s) : n+len(s)]
}
