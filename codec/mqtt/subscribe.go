package mqtt

// A Subscription is one topic filter of a SUBSCRIBE with its options.
// Before MQTT 5.0 only Filter and QoS exist.
type Subscription struct {
	Filter            []byte
	QoS               byte // the maximum QoS the subscriber accepts
	NoLocal           bool // MQTT 5.0: not for the subscriber's own messages
	RetainAsPublished bool // MQTT 5.0
	RetainHandling    byte // MQTT 5.0: 0, 1 or 2
}

// A Subscribe is a SUBSCRIBE packet: one or more subscriptions. In MQTT
// 5.0 its properties may carry one subscription identifier.
type Subscribe struct {
	PacketID      uint16
	Props         Properties // MQTT 5.0
	Subscriptions []Subscription
}

func (r *reader) subscribe(s *Subscribe, v Version, lim *limits) {
	at := r.i
	s.PacketID = r.u16()
	if r.err == nil && s.PacketID == 0 {
		r.failAt(ErrZeroPacketID, at)
	}
	if v == V5 {
		r.props(&s.Props, int(TypeSubscribe), lim)
	} else {
		s.Props.reset()
	}
	s.Subscriptions = s.Subscriptions[:0]
	for r.i < len(r.p) {
		at := r.i + 2
		f := r.str()
		shared, err := checkFilter(f, v)
		if err != nil {
			r.failAt(err, at)
		}
		at = r.i
		o := r.u8()
		sub := Subscription{Filter: f, QoS: o & 3}
		if v == V5 {
			sub.NoLocal = o&4 != 0
			sub.RetainAsPublished = o&8 != 0
			sub.RetainHandling = o >> 4 & 3
			switch {
			case o&0xc0 != 0:
				r.failAt(ErrSubOptions, at)
			case sub.QoS == 3:
				r.failAt(ErrSubQoS, at)
			case sub.RetainHandling == 3:
				r.failAt(ErrRetainHandling, at)
			case sub.NoLocal && shared:
				r.failAt(ErrSharedNoLocal, at)
			}
		} else if o&^3 != 0 {
			r.failAt(ErrSubOptions, at)
		} else if sub.QoS == 3 {
			r.failAt(ErrSubQoS, at)
		}
		if r.err != nil {
			return
		}
		if len(s.Subscriptions) >= lim.filters {
			r.failAt(ErrTooMany, at-2-len(f))
			return
		}
		s.Subscriptions = append(s.Subscriptions, sub)
	}
	if r.err == nil && len(s.Subscriptions) == 0 {
		r.fail(ErrNoSubscriptions)
	}
}

// AppendSubscribe appends a SUBSCRIBE to dst.
func (e *Encoder) AppendSubscribe(dst []byte, s *Subscribe) ([]byte, error) {
	v, err := e.version()
	if err != nil {
		return dst, err
	}
	if s.PacketID == 0 {
		return dst, ErrZeroPacketID
	}
	if len(s.Subscriptions) == 0 {
		return dst, ErrNoSubscriptions
	}
	pn, err := propList(&s.Props, int(TypeSubscribe), v)
	if err != nil {
		return dst, err
	}
	rl := 2 + propWire(pn, v)
	for i := range s.Subscriptions {
		sub := &s.Subscriptions[i]
		if err := checkStr("topic filter", i, sub.Filter, false); err != nil {
			return dst, err
		}
		shared, verr := checkFilter(sub.Filter, v)
		if verr != nil {
			return dst, fieldErrAt("topic filter", i, verr)
		}
		switch {
		case sub.QoS > 2:
			return dst, fieldErrAt("subscription options", i, ErrSubQoS)
		case v != V5 && (sub.NoLocal || sub.RetainAsPublished || sub.RetainHandling != 0):
			return dst, fieldErrAt("subscription options", i, ErrSubOptions)
		case sub.RetainHandling > 2:
			return dst, fieldErrAt("subscription options", i, ErrRetainHandling)
		case sub.NoLocal && shared:
			return dst, fieldErrAt("subscription options", i, ErrSharedNoLocal)
		}
		rl += 3 + len(sub.Filter)
	}
	dst, err = e.head(dst, byte(TypeSubscribe)<<4|TypeSubscribe.flags(), rl)
	if err != nil {
		return dst, err
	}
	dst = appendU16(dst, s.PacketID)
	if v == V5 {
		dst = s.Props.append(dst, pn)
	}
	for i := range s.Subscriptions {
		sub := &s.Subscriptions[i]
		o := sub.QoS | sub.RetainHandling<<4
		if sub.NoLocal {
			o |= 4
		}
		if sub.RetainAsPublished {
			o |= 8
		}
		dst = append(appendString(dst, sub.Filter), o)
	}
	return dst, nil
}

// A Suback is a SUBACK or an UNSUBACK packet: one reason code per filter of
// the SUBSCRIBE or UNSUBSCRIBE it answers. An MQTT 3.1.1 UNSUBACK has no
// reason codes, and a 3.1.1 SUBACK's are granted QoS values or 0x80.
type Suback struct {
	PacketID uint16
	Props    Properties // MQTT 5.0
	Reasons  []ReasonCode
}

func subackSet(t Type, v Version) *codeSet {
	switch {
	case t == TypeUnsuback:
		return &unsubackCodes
	case v == V5:
		return &subackCodes
	}
	return &subackCodes3
}

func (r *reader) suback(s *Suback, t Type, v Version, lim *limits) {
	at := r.i
	s.PacketID = r.u16()
	if r.err == nil && s.PacketID == 0 {
		r.failAt(ErrZeroPacketID, at)
	}
	if v == V5 {
		r.props(&s.Props, int(t), lim)
	} else {
		s.Props.reset()
	}
	s.Reasons = s.Reasons[:0]
	if t == TypeUnsuback && v != V5 {
		return
	}
	set := subackSet(t, v)
	for ; r.i < len(r.p); r.i++ {
		c := ReasonCode(r.p[r.i])
		if !set.has(c) {
			r.fail(ErrBadReasonCode)
			return
		}
		if len(s.Reasons) >= lim.filters {
			r.fail(ErrTooMany)
			return
		}
		s.Reasons = append(s.Reasons, c)
	}
	if r.err == nil && len(s.Reasons) == 0 {
		r.fail(ErrNoReasonCodes)
	}
}

// AppendSuback appends a SUBACK or, with t == TypeUnsuback, an UNSUBACK to
// dst.
func (e *Encoder) AppendSuback(dst []byte, t Type, s *Suback) ([]byte, error) {
	v, err := e.version()
	if err != nil {
		return dst, err
	}
	if t != TypeSuback && t != TypeUnsuback {
		return dst, errNotAck
	}
	if s.PacketID == 0 {
		return dst, ErrZeroPacketID
	}
	pn, err := propList(&s.Props, int(t), v)
	if err != nil {
		return dst, err
	}
	codes := s.Reasons
	if t == TypeUnsuback && v != V5 {
		if len(codes) > 0 {
			return dst, fieldErr("reason codes", ErrBadReasonCode)
		}
	} else {
		if len(codes) == 0 {
			return dst, ErrNoReasonCodes
		}
		set := subackSet(t, v)
		for i, c := range codes {
			if !set.has(c) {
				return dst, fieldErrAt("reason codes", i, ErrBadReasonCode)
			}
		}
	}
	dst, err = e.head(dst, byte(t)<<4, 2+propWire(pn, v)+len(codes))
	if err != nil {
		return dst, err
	}
	dst = appendU16(dst, s.PacketID)
	if v == V5 {
		dst = s.Props.append(dst, pn)
	}
	for _, c := range codes {
		dst = append(dst, byte(c))
	}
	return dst, nil
}
