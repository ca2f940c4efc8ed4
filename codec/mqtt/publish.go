package mqtt

// A Publish is a PUBLISH packet: an application message.
type Publish struct {
	Dup    bool
	QoS    byte // 0, 1 or 2
	Retain bool
	// Topic is the topic name: no wildcards, and not empty unless an MQTT
	// 5.0 packet carries a topic alias instead.
	Topic []byte
	// PacketID is present (non-zero) only when QoS > 0.
	PacketID uint16
	Props    Properties
	Payload  []byte
}

func (r *reader) publish(p *Publish, v Version, lim *limits) {
	c := r.p[0]
	p.Dup = c&8 != 0
	p.QoS = c >> 1 & 3
	p.Retain = c&1 != 0
	at := r.i + 2
	p.Topic = r.bin()
	if err := checkTopic(p.Topic); err != nil {
		r.failAt(err, at)
	}
	p.PacketID = 0
	if p.QoS > 0 {
		at := r.i
		p.PacketID = r.u16()
		if p.PacketID == 0 && r.err == nil {
			r.failAt(ErrZeroPacketID, at)
		}
	}
	if v == V5 {
		r.props(&p.Props, int(TypePublish), lim)
	} else {
		p.Props.reset()
	}
	if len(p.Topic) == 0 && !p.Props.Present.Has(PropTopicAlias) {
		r.failAt(ErrTopicEmpty, at)
	}
	p.Payload = r.p[r.i:len(r.p):len(r.p)]
	r.i = len(r.p)
}

// AppendPublish appends a PUBLISH to dst.
func (e *Encoder) AppendPublish(dst []byte, p *Publish) ([]byte, error) {
	v, err := e.version()
	if err != nil {
		return dst, err
	}
	switch {
	case p.QoS > 2:
		return dst, ErrBadQoS
	case p.QoS == 0 && p.Dup:
		return dst, ErrDupOnQoS0
	case p.QoS > 0 && p.PacketID == 0:
		return dst, ErrZeroPacketID
	case p.QoS == 0 && p.PacketID != 0:
		return dst, ErrPacketIDOnQoS0
	}
	if err := checkStr("topic", -1, p.Topic, false); err != nil {
		return dst, err
	}
	if err := checkTopic(p.Topic); err != nil {
		return dst, fieldErr("topic", err)
	}
	if len(p.Topic) == 0 && !(v == V5 && p.Props.Present.Has(PropTopicAlias)) {
		return dst, fieldErr("topic", ErrTopicEmpty)
	}
	rl := 2 + len(p.Topic) + len(p.Payload)
	if p.QoS > 0 {
		rl += 2
	}
	pn, err := propList(&p.Props, int(TypePublish), v)
	if err != nil {
		return dst, err
	}
	rl += propWire(pn, v)
	first := byte(TypePublish)<<4 | p.QoS<<1
	if p.Dup {
		first |= 8
	}
	if p.Retain {
		first |= 1
	}
	dst, err = e.head(dst, first, rl)
	if err != nil {
		return dst, err
	}
	dst = appendString(dst, p.Topic)
	if p.QoS > 0 {
		dst = appendU16(dst, p.PacketID)
	}
	if v == V5 {
		dst = p.Props.append(dst, pn)
	}
	return append(dst, p.Payload...), nil
}
