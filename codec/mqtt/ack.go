package mqtt

// An Ack is a PUBACK, PUBREC, PUBREL or PUBCOMP packet: one step of the
// QoS 1 and QoS 2 flows. Before MQTT 5.0 it carries only the packet
// identifier.
type Ack struct {
	PacketID uint16
	Reason   ReasonCode // MQTT 5.0
	Props    Properties // MQTT 5.0
}

func ackCodes(t Type) *codeSet {
	if t == TypePubrel || t == TypePubcomp {
		return &pubrelCodes
	}
	return &pubackCodes
}

func (r *reader) ack(a *Ack, t Type, v Version, lim *limits) {
	at := r.i
	a.PacketID = r.u16()
	if r.err == nil && a.PacketID == 0 {
		r.failAt(ErrZeroPacketID, at)
	}
	a.Reason = Success
	if v != V5 || r.i == len(r.p) {
		// MQTT 5.0 leaves out a Success code that has no properties.
		a.Props.reset()
		return
	}
	at = r.i
	a.Reason = ReasonCode(r.u8())
	if !ackCodes(t).has(a.Reason) {
		r.failAt(ErrBadReasonCode, at)
	}
	if r.i == len(r.p) {
		a.Props.reset()
		return
	}
	r.props(&a.Props, int(t), lim)
}

// AppendAck appends a PUBACK, PUBREC, PUBREL or PUBCOMP (t) to dst. In
// MQTT 5.0 it writes the shortest form: no reason code when it is Success
// and there are no properties, no property length when there are none.
func (e *Encoder) AppendAck(dst []byte, t Type, a *Ack) ([]byte, error) {
	v, err := e.version()
	if err != nil {
		return dst, err
	}
	if t < TypePuback || t > TypePubcomp {
		return dst, errNotAck
	}
	if a.PacketID == 0 {
		return dst, ErrZeroPacketID
	}
	rl, pn := 2, 0
	if v == V5 {
		if !ackCodes(t).has(a.Reason) {
			return dst, ErrBadReasonCode
		}
		if pn, err = a.Props.size(int(t)); err != nil {
			return dst, err
		}
		switch {
		case pn > 0:
			rl += 1 + varIntLen(pn) + pn
		case a.Reason != Success:
			rl++
		}
	} else {
		if a.Reason != Success {
			return dst, fieldErr("reason", ErrBadReasonCode)
		}
		if _, err := propList(&a.Props, int(t), v); err != nil {
			return dst, err
		}
	}
	dst, err = e.head(dst, byte(t)<<4|t.flags(), rl)
	if err != nil {
		return dst, err
	}
	dst = appendU16(dst, a.PacketID)
	if rl > 2 {
		dst = append(dst, byte(a.Reason))
	}
	if pn > 0 {
		dst = a.Props.append(dst, pn)
	}
	return dst, nil
}
