package mqtt

// An Unsubscribe is an UNSUBSCRIBE packet: one or more topic filters to
// drop, compared with the subscriptions' filters byte for byte.
type Unsubscribe struct {
	PacketID uint16
	Props    Properties // MQTT 5.0
	Filters  [][]byte
}

func (r *reader) unsubscribe(u *Unsubscribe, v Version, lim *limits) {
	at := r.i
	u.PacketID = r.u16()
	if r.err == nil && u.PacketID == 0 {
		r.failAt(ErrZeroPacketID, at)
	}
	if v == V5 {
		r.props(&u.Props, int(TypeUnsubscribe), lim)
	} else {
		u.Props.reset()
	}
	u.Filters = u.Filters[:0]
	for r.i < len(r.p) {
		at := r.i + 2
		f := r.str()
		if _, err := checkFilter(f, v); err != nil {
			r.failAt(err, at)
		}
		if r.err != nil {
			return
		}
		if len(u.Filters) >= lim.filters {
			r.failAt(ErrTooMany, at-2)
			return
		}
		u.Filters = append(u.Filters, f)
	}
	if r.err == nil && len(u.Filters) == 0 {
		r.fail(ErrNoFilters)
	}
}

// AppendUnsubscribe appends an UNSUBSCRIBE to dst.
func (e *Encoder) AppendUnsubscribe(dst []byte, u *Unsubscribe) ([]byte, error) {
	v, err := e.version()
	if err != nil {
		return dst, err
	}
	if u.PacketID == 0 {
		return dst, ErrZeroPacketID
	}
	if len(u.Filters) == 0 {
		return dst, ErrNoFilters
	}
	pn, err := propList(&u.Props, int(TypeUnsubscribe), v)
	if err != nil {
		return dst, err
	}
	rl := 2 + propWire(pn, v)
	for i, f := range u.Filters {
		if err := checkStr("topic filter", i, f, false); err != nil {
			return dst, err
		}
		if _, verr := checkFilter(f, v); verr != nil {
			return dst, fieldErrAt("topic filter", i, verr)
		}
		rl += 2 + len(f)
	}
	dst, err = e.head(dst, byte(TypeUnsubscribe)<<4|TypeUnsubscribe.flags(), rl)
	if err != nil {
		return dst, err
	}
	dst = appendU16(dst, u.PacketID)
	if v == V5 {
		dst = u.Props.append(dst, pn)
	}
	for _, f := range u.Filters {
		dst = appendString(dst, f)
	}
	return dst, nil
}
