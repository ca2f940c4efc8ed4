package mqtt

// A Connack is a CONNACK packet, the server's answer to a CONNECT. In MQTT
// 3.1.1 Reason holds the return code, 0 (accepted) to 5.
type Connack struct {
	SessionPresent bool
	Reason         ReasonCode
	Props          Properties // MQTT 5.0
}

func connackSet(v Version) *codeSet {
	if v == V5 {
		return &connackCodes
	}
	return &connackCodes3
}

func (r *reader) connack(c *Connack, v Version, lim *limits) {
	at := r.i
	flags := r.u8()
	if flags&^1 != 0 {
		r.failAt(ErrConnackFlags, at)
	}
	c.SessionPresent = flags&1 != 0
	at = r.i
	c.Reason = ReasonCode(r.u8())
	switch {
	case r.err != nil:
	case !connackSet(v).has(c.Reason):
		r.failAt(ErrBadReasonCode, at)
	case c.SessionPresent && c.Reason != Success:
		r.failAt(ErrSessionPresent, at-1)
	}
	if v == V5 {
		r.props(&c.Props, int(TypeConnack), lim)
	} else {
		c.Props.reset()
	}
}

// AppendConnack appends a CONNACK to dst.
func (e *Encoder) AppendConnack(dst []byte, c *Connack) ([]byte, error) {
	v, err := e.version()
	if err != nil {
		return dst, err
	}
	if !connackSet(v).has(c.Reason) {
		return dst, ErrBadReasonCode
	}
	if c.SessionPresent && c.Reason != Success {
		return dst, ErrSessionPresent
	}
	pn, err := propList(&c.Props, int(TypeConnack), v)
	if err != nil {
		return dst, err
	}
	dst, err = e.head(dst, byte(TypeConnack)<<4, 2+propWire(pn, v))
	if err != nil {
		return dst, err
	}
	var flags byte
	if c.SessionPresent {
		flags = 1
	}
	dst = append(dst, flags, byte(c.Reason))
	if v == V5 {
		dst = c.Props.append(dst, pn)
	}
	return dst, nil
}
