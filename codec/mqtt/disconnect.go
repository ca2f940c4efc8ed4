package mqtt

// A Disconnect is a DISCONNECT packet. Before MQTT 5.0 it has no fields.
type Disconnect struct {
	Reason ReasonCode // MQTT 5.0
	Props  Properties // MQTT 5.0
}

func (r *reader) disconnect(d *Disconnect, v Version, lim *limits) {
	d.Reason = NormalDisconnection
	if v != V5 || r.i == len(r.p) {
		d.Props.reset()
		return
	}
	r.reasonProps(&d.Reason, &d.Props, &disconnCodes, int(TypeDisconnect), lim)
}

// reasonProps reads the reason code and the properties, either of which
// may be left out at the end of the packet, of a DISCONNECT or an AUTH.
func (r *reader) reasonProps(rc *ReasonCode, ps *Properties, set *codeSet, k int, lim *limits) {
	at := r.i
	*rc = ReasonCode(r.u8())
	if !set.has(*rc) {
		r.failAt(ErrBadReasonCode, at)
	}
	if r.i == len(r.p) {
		ps.reset()
		return
	}
	r.props(ps, k, lim)
}

// AppendDisconnect appends a DISCONNECT to dst, in MQTT 5.0 in its shortest
// form (no reason code when it is NormalDisconnection without properties).
func (e *Encoder) AppendDisconnect(dst []byte, d *Disconnect) ([]byte, error) {
	return e.appendReasonProps(dst, TypeDisconnect, d.Reason, &d.Props, &disconnCodes)
}

func (e *Encoder) appendReasonProps(dst []byte, t Type, rc ReasonCode, ps *Properties, set *codeSet) ([]byte, error) {
	v, err := e.version()
	if err != nil {
		return dst, err
	}
	if v != V5 {
		if t == TypeAuth {
			return dst, ErrUnknownType
		}
		if rc != Success {
			return dst, fieldErr("reason", ErrBadReasonCode)
		}
		if _, err := propList(ps, int(t), v); err != nil {
			return dst, err
		}
		return e.head(dst, byte(t)<<4, 0)
	}
	if !set.has(rc) {
		return dst, ErrBadReasonCode
	}
	pn, err := ps.size(int(t))
	if err != nil {
		return dst, err
	}
	rl := 0
	switch {
	case pn > 0:
		rl = 1 + varIntLen(pn) + pn
	case rc != Success:
		rl = 1
	}
	dst, err = e.head(dst, byte(t)<<4, rl)
	if err != nil {
		return dst, err
	}
	if rl > 0 {
		dst = append(dst, byte(rc))
	}
	if pn > 0 {
		dst = ps.append(dst, pn)
	}
	return dst, nil
}

// An Auth is an AUTH packet (MQTT 5.0 only): a step of an extended
// authentication exchange. Its properties always hold the Authentication
// Method (§3.15.2.2.2), so an AUTH is never the empty short form.
type Auth struct {
	Reason ReasonCode
	Props  Properties
}

func (r *reader) auth(a *Auth, lim *limits) {
	at := r.i
	a.Reason = Success
	if r.i == len(r.p) {
		a.Props.reset()
	} else {
		r.reasonProps(&a.Reason, &a.Props, &authCodes, int(TypeAuth), lim)
	}
	if r.err == nil && !a.Props.Present.Has(PropAuthMethod) {
		r.failAt(ErrAuthNoMethod, at)
	}
}

// AppendAuth appends an AUTH to dst (MQTT 5.0 only). Its properties must
// hold the Authentication Method (§3.15.2.2.2): ErrAuthNoMethod.
func (e *Encoder) AppendAuth(dst []byte, a *Auth) ([]byte, error) {
	if e.Version == V5 && !a.Props.Present.Has(PropAuthMethod) {
		return dst, ErrAuthNoMethod
	}
	return e.appendReasonProps(dst, TypeAuth, a.Reason, &a.Props, &authCodes)
}
