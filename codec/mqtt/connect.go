package mqtt

// A Connect is a CONNECT packet, the first packet a client sends. Its
// Version decides how the rest of the connection is encoded.
type Connect struct {
	// ProtocolName is "MQTT" ("MQIsdp" in MQTT 3.1); an encoder writes
	// the version's name when it is empty.
	ProtocolName []byte
	Version      Version
	CleanStart   bool // Clean Session in MQTT 3.1.1
	KeepAlive    uint16
	Props        Properties // MQTT 5.0
	// ClientID may be empty, asking the server to assign one; in MQTT
	// 3.1.1 only with CleanStart set [MQTT-3.1.3-7], and never in MQTT
	// 3.1 (ErrEmptyClientID, which a server answers with return code 2).
	ClientID []byte

	WillFlag    bool
	WillQoS     byte
	WillRetain  bool
	WillProps   Properties // MQTT 5.0
	WillTopic   []byte
	WillPayload []byte

	HasUsername bool
	Username    []byte
	HasPassword bool
	Password    []byte
}

var (
	protocolName   = []byte("MQTT")
	protocolName31 = []byte("MQIsdp")
)

// levelOK reports whether protocol name and level go together: "MQTT" with
// 4 or 5, "MQIsdp" with 3 (unless MQTT 3.1 is refused).
func levelOK(name []byte, v Version, noV31 bool) bool {
	if string(name) == "MQIsdp" {
		return v == V31 && !noV31
	}
	return v == V311 || v == V5
}

func (r *reader) connect(c *Connect, lim *limits) {
	at := r.i
	c.ProtocolName = r.bin()
	if r.err == nil && string(c.ProtocolName) != "MQTT" && string(c.ProtocolName) != "MQIsdp" {
		r.failAt(ErrProtocolName, at)
	}
	at = r.i
	c.Version = Version(r.u8())
	if r.err == nil && !levelOK(c.ProtocolName, c.Version, lim.noV31) {
		r.failAt(ErrVersion, at)
	}
	at = r.i
	flags := r.u8()
	c.CleanStart = flags&0x02 != 0
	c.WillFlag = flags&0x04 != 0
	c.WillQoS = flags >> 3 & 3
	c.WillRetain = flags&0x20 != 0
	c.HasPassword = flags&0x40 != 0
	c.HasUsername = flags&0x80 != 0
	switch {
	case flags&1 != 0:
		r.failAt(ErrConnectReserved, at)
	case !c.WillFlag && c.WillQoS != 0:
		r.failAt(ErrWillQoSNoWill, at)
	case !c.WillFlag && c.WillRetain:
		r.failAt(ErrWillRetainNoWill, at)
	case c.WillQoS == 3:
		r.failAt(ErrWillQoS, at)
	case c.Version != V5 && c.HasPassword && !c.HasUsername:
		r.failAt(ErrPasswordNoUser, at)
	}
	c.KeepAlive = r.u16()
	v5 := c.Version == V5
	if v5 {
		r.props(&c.Props, int(TypeConnect), lim)
	} else {
		c.Props.reset()
	}
	at = r.i
	c.ClientID = r.str()
	if r.err == nil && len(c.ClientID) == 0 && (c.Version == V311 && !c.CleanStart || c.Version == V31) {
		r.failAt(ErrEmptyClientID, at)
	}
	c.WillTopic, c.WillPayload = nil, nil
	if c.WillFlag {
		if v5 {
			r.props(&c.WillProps, kindWill, lim)
		} else {
			c.WillProps.reset()
		}
		at = r.i + 2
		c.WillTopic = r.bin()
		if err := checkTopic(c.WillTopic); err != nil {
			r.failAt(err, at)
		} else if len(c.WillTopic) == 0 {
			r.failAt(ErrTopicEmpty, at)
		}
		c.WillPayload = r.bin()
	} else {
		c.WillProps.reset()
	}
	c.Username, c.Password = nil, nil
	if c.HasUsername {
		c.Username = r.str()
	}
	if c.HasPassword {
		c.Password = r.bin()
	}
}

// AppendConnect appends a CONNECT to dst in c.Version (e.Version is not
// consulted; set it from c.Version for the rest of the connection).
func (e *Encoder) AppendConnect(dst []byte, c *Connect) ([]byte, error) {
	v := c.Version
	name := c.ProtocolName
	switch {
	case len(name) == 0 && v == V31:
		name = protocolName31
	case len(name) == 0:
		name = protocolName
	case string(name) != "MQTT" && string(name) != "MQIsdp":
		return dst, ErrProtocolName
	}
	if !levelOK(name, v, false) {
		return dst, ErrVersion
	}
	switch {
	case c.WillQoS > 2:
		return dst, ErrWillQoS
	case !c.WillFlag && c.WillQoS != 0:
		return dst, ErrWillQoSNoWill
	case !c.WillFlag && c.WillRetain:
		return dst, ErrWillRetainNoWill
	case v != V5 && c.HasPassword && !c.HasUsername:
		return dst, ErrPasswordNoUser
	case len(c.ClientID) == 0 && (v == V311 && !c.CleanStart || v == V31):
		return dst, ErrEmptyClientID
	case c.Props.Present.Has(PropAuthData) && !c.Props.Present.Has(PropAuthMethod):
		return dst, ErrAuthDataNoMethod
	case !c.HasUsername && len(c.Username) > 0:
		return dst, fieldErr("user name", ErrFieldNoFlag)
	case !c.HasPassword && len(c.Password) > 0:
		return dst, fieldErr("password", ErrFieldNoFlag)
	case !c.WillFlag && (len(c.WillTopic) > 0 || len(c.WillPayload) > 0 || c.WillProps.set() != 0):
		return dst, fieldErr("will", ErrFieldNoFlag)
	}
	if err := checkStr("client identifier", -1, c.ClientID, true); err != nil {
		return dst, err
	}
	rl := 2 + len(name) + 1 + 1 + 2 + 2 + len(c.ClientID)
	pn, err := propList(&c.Props, int(TypeConnect), v)
	if err != nil {
		return dst, err
	}
	rl += propWire(pn, v)
	wn := 0
	if c.WillFlag {
		if wn, err = propList(&c.WillProps, kindWill, v); err != nil {
			return dst, err
		}
		if err := checkStr("will topic", -1, c.WillTopic, false); err != nil {
			return dst, err
		}
		if err := checkTopic(c.WillTopic); err != nil {
			return dst, fieldErr("will topic", err)
		}
		if len(c.WillTopic) == 0 {
			return dst, fieldErr("will topic", ErrTopicEmpty)
		}
		if err := checkStr("will payload", -1, c.WillPayload, false); err != nil {
			return dst, err
		}
		rl += propWire(wn, v) + 4 + len(c.WillTopic) + len(c.WillPayload)
	}
	if c.HasUsername {
		if err := checkStr("user name", -1, c.Username, true); err != nil {
			return dst, err
		}
		rl += 2 + len(c.Username)
	}
	if c.HasPassword {
		if err := checkStr("password", -1, c.Password, false); err != nil {
			return dst, err
		}
		rl += 2 + len(c.Password)
	}
	flags := c.WillQoS << 3
	for _, f := range [...]struct {
		on  bool
		bit byte
	}{{c.CleanStart, 0x02}, {c.WillFlag, 0x04}, {c.WillRetain, 0x20}, {c.HasPassword, 0x40}, {c.HasUsername, 0x80}} {
		if f.on {
			flags |= f.bit
		}
	}
	dst, err = e.head(dst, byte(TypeConnect)<<4, rl)
	if err != nil {
		return dst, err
	}
	dst = appendString(dst, name)
	dst = append(dst, byte(v), flags)
	dst = appendU16(dst, c.KeepAlive)
	if v == V5 {
		dst = c.Props.append(dst, pn)
	}
	dst = appendString(dst, c.ClientID)
	if c.WillFlag {
		if v == V5 {
			dst = c.WillProps.append(dst, wn)
		}
		dst = appendString(dst, c.WillTopic)
		dst = appendString(dst, c.WillPayload)
	}
	if c.HasUsername {
		dst = appendString(dst, c.Username)
	}
	if c.HasPassword {
		dst = appendString(dst, c.Password)
	}
	return dst, nil
}
