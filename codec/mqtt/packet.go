package mqtt

import (
	"errors"

	"github.com/netkit/netkit/buf"
)

// A Packet is one control packet, a reusable value that decoding fills in
// place. Type says which packet it is and which one of the fields below
// points at it; the others are left as they were and mean nothing.
// Decoding allocates the value a field points at the first time a packet
// of its type arrives and decodes into that value from then on; its slices
// keep their arrays from one packet to the next, so decoding into the same
// Packet allocates nothing in steady state. (A Packet is small: only the
// values of the types it has held exist.) The value is overwritten by the
// next packet of its type: keep a copy ([Publish.Clone], [Packet.Clone]),
// not the pointer.
//
// To encode, set Type and the field it selects; a nil field encodes as
// the zero value of its type.
//
// Every []byte of a decoded packet aliases the input: the caller's slice
// for [DecodeBytes] and [Decoder.DecodeBytes], or bytes the Packet holds a
// reference to for [Decoder.Decode]. They stay valid until the Packet is
// decoded into again or released, or, for a caller's slice, until that
// slice is modified. [Packet.Clone] makes a copy that shares nothing.
type Packet struct {
	Type    Type
	Version Version // the protocol version the packet was decoded or is encoded with

	Connect     *Connect
	Connack     *Connack
	Publish     *Publish
	Ack         *Ack // PUBACK, PUBREC, PUBREL and PUBCOMP
	Subscribe   *Subscribe
	Suback      *Suback // SUBACK and UNSUBACK
	Unsubscribe *Unsubscribe
	Disconnect  *Disconnect
	Auth        *Auth

	held *buf.Buffer // the bytes a Decoder lent, or nil
}

// Release drops the bytes a [Decoder] lent p (a reference to a pooled
// buffer); p's []byte fields are invalid afterwards. It is a no-op for a
// packet decoded from a caller's slice, or already released. Decoding into
// p again releases them as well.
func (p *Packet) Release() {
	if p.held != nil {
		p.held.Release()
		p.held = nil
	}
}

// Default limits of a [Decoder] (and of [DecodeBytes]).
const (
	// DefaultMaxPacketSize bounds a whole packet, fixed header included:
	// 1 MiB.
	DefaultMaxPacketSize = 1 << 20
	// MaxPacketSize is the largest packet the protocol can express: a
	// remaining length of 268,435,455 behind a 5-byte fixed header.
	MaxPacketSize = 1 + 4 + MaxVarInt
	// DefaultMaxFilters bounds the topic filters of one SUBSCRIBE or
	// UNSUBSCRIBE, and the reason codes of one SUBACK or UNSUBACK.
	DefaultMaxFilters = 256
	// DefaultMaxUserProperties bounds the user properties of one
	// property list.
	DefaultMaxUserProperties = 128
	// DefaultMaxSubscriptionIDs bounds the subscription identifiers of one
	// PUBLISH.
	DefaultMaxSubscriptionIDs = 64
)

type limits struct {
	packet, filters, userProps, subIDs int
	noV31                              bool // refuse MQTT 3.1 CONNECTs
}

var defaultLimits = limits{DefaultMaxPacketSize, DefaultMaxFilters, DefaultMaxUserProperties, DefaultMaxSubscriptionIDs, false}

func or(v, def, max int) int {
	if v <= 0 {
		return def
	}
	return min(v, max)
}

// A Decoder decodes the packets of one connection. Its zero value is ready
// for a server: the first packet must be a CONNECT, whose protocol version
// the Decoder then keeps. A client sets Version to the version of the
// CONNECT it sent.
//
// The limits bound what one packet may make the decoder hold or the
// caller's Packet grow to; each is checked before the memory is taken, and
// zero means the default. A Decoder is not safe for concurrent use.
type Decoder struct {
	// Version is the connection's protocol version: 0 until a CONNECT is
	// decoded, then the CONNECT's.
	Version Version
	// MaxPacketSize bounds a whole packet in bytes (default
	// DefaultMaxPacketSize, at most MaxPacketSize). A larger remaining
	// length is rejected as soon as the fixed header is read, before the
	// packet's bytes are waited for or held: ErrPacketTooLarge.
	MaxPacketSize int
	// MaxFilters bounds topic filters per SUBSCRIBE or UNSUBSCRIBE and
	// reason codes per SUBACK or UNSUBACK (default DefaultMaxFilters).
	MaxFilters int
	// MaxUserProperties bounds user properties per property list (default
	// DefaultMaxUserProperties).
	MaxUserProperties int
	// MaxSubscriptionIDs bounds subscription identifiers per PUBLISH
	// (default DefaultMaxSubscriptionIDs).
	MaxSubscriptionIDs int
	// RefuseV31 refuses MQTT 3.1 ("MQIsdp", level 3) CONNECTs with
	// ErrVersion (return code 1). By default they are accepted.
	RefuseV31 bool
}

func (d *Decoder) limits() limits {
	return limits{
		packet:    or(d.MaxPacketSize, DefaultMaxPacketSize, MaxPacketSize),
		filters:   or(d.MaxFilters, DefaultMaxFilters, MaxPacketSize),
		userProps: or(d.MaxUserProperties, DefaultMaxUserProperties, MaxPacketSize),
		subIDs:    or(d.MaxSubscriptionIDs, DefaultMaxSubscriptionIDs, MaxPacketSize),
		noV31:     d.RefuseV31,
	}
}

// DecodeBytes decodes the packet at the front of p, a connection's bytes,
// into pk with the default limits. v is the connection's protocol version;
// a CONNECT carries its own, and v does not matter for it: DecodeBytes
// keeps no state, so it cannot tell a second CONNECT (a [Decoder] does).
// It returns the packet's length, or ErrShort (and 0) when p ends inside
// the packet, or a *SyntaxError. pk's fields alias p. DecodeBytes
// allocates nothing in steady state (slices of pk grow to their
// high-water mark once).
func DecodeBytes(p []byte, v Version, pk *Packet) (n int, err error) {
	pk.Release()
	if len(p) > 0 && Type(p[0]>>4) == TypeConnect {
		v = 0 // DecodeBytes knows no connection: no CONNECT is a second one
	}
	return decode(p, v, pk, &defaultLimits)
}

// Decode is the former name of [DecodeBytes]: in every netkit codec
// Decode takes a stream (a *buf.Composite, as [Decoder.Decode] does) and
// DecodeBytes a slice.
//
// Deprecated: use DecodeBytes.
func Decode(p []byte, v Version, pk *Packet) (n int, err error) {
	return DecodeBytes(p, v, pk)
}

// DecodeBytes decodes the packet at the front of p as the function
// [DecodeBytes] does, with d's version and limits; decoding a CONNECT sets
// d.Version.
func (d *Decoder) DecodeBytes(p []byte, pk *Packet) (n int, err error) {
	pk.Release()
	lim := d.limits()
	n, err = decode(p, d.Version, pk, &lim)
	if err == nil {
		d.keepVersion(pk)
	}
	return n, err
}

// keepVersion records the protocol version a decoded CONNECT announced.
func (d *Decoder) keepVersion(pk *Packet) {
	if pk.Type == TypeConnect {
		d.Version = pk.Version
	}
}

// Decode decodes the packet at the front of in and consumes its bytes. It
// returns ErrShort, consuming nothing, while in holds less than the whole
// packet; a fixed header announcing more than MaxPacketSize is rejected at
// once. The packet's bytes stay referenced by pk (a view of the read that
// holds them, or a pooled copy when the packet straddles reads) until pk
// is decoded into again or released with [Packet.Release]; in may be
// released meanwhile. After an error other than ErrShort the stream is
// corrupt: close the connection (a MQTT 5.0 peer first gets a DISCONNECT
// with [ReasonOf] the error).
func (d *Decoder) Decode(in *buf.Composite, pk *Packet) error {
	pk.Release()
	var hdr [5]byte
	h := peek(in, hdr[:])
	lim := d.limits()
	total, hl, err := frame(h, &lim)
	if err != nil {
		return err
	}
	if in.Len() < total {
		return ErrShort
	}
	b, _ := in.NextRetained(total)
	in.Discard(0)
	if err := decodeFrame(b.Bytes(), hl, d.Version, pk, &lim); err != nil {
		b.Release()
		return err
	}
	pk.held = b
	d.keepVersion(pk)
	return nil
}

// peek copies up to len(dst) bytes from the front of in without consuming
// them.
func peek(in *buf.Composite, dst []byte) []byte {
	n := 0
	for n < len(dst) && n < in.Len() {
		n += copy(dst[n:], in.Span(n))
	}
	return dst[:n]
}

// frame checks the fixed header at the front of p (which may hold only
// part of the packet) and returns the packet's whole length and the
// header's.
func frame(p []byte, lim *limits) (total, hl int, err error) {
	if len(p) == 0 {
		return 0, 0, ErrShort
	}
	if err := checkFirst(p[0]); err != nil {
		return 0, 0, &SyntaxError{Offset: 0, Kind: err}
	}
	rl, n, verr := varInt(p[1:])
	if verr != nil {
		return 0, 0, &SyntaxError{Offset: 1, Kind: verr}
	}
	if n == 0 {
		return 0, 0, ErrShort
	}
	total = 1 + n + int(rl)
	if total > lim.packet {
		return 0, 0, &SyntaxError{Offset: 1, Kind: ErrPacketTooLarge}
	}
	return total, 1 + n, nil
}

// checkFirst checks the packet type and the flags of a fixed header's
// first byte.
func checkFirst(c byte) *Violation {
	t := Type(c >> 4)
	switch {
	case t == 0:
		return ErrUnknownType
	case t == TypePublish:
		if c>>1&3 == 3 {
			return ErrBadQoS
		}
		if c&0b1110 == 0b1000 {
			return ErrDupOnQoS0
		}
	case c&15 != t.flags():
		return ErrReservedFlags
	}
	return nil
}

// decode decodes the packet at the front of p and returns its length.
func decode(p []byte, v Version, pk *Packet, lim *limits) (int, error) {
	total, hl, err := frame(p, lim)
	if err != nil {
		return 0, err
	}
	if len(p) < total {
		return 0, ErrShort
	}
	if err := decodeFrame(p[:total], hl, v, pk, lim); err != nil {
		return 0, err
	}
	return total, nil
}

// decodeFrame decodes p, one whole packet whose fixed header (hl bytes)
// frame has checked.
func decodeFrame(p []byte, hl int, v Version, pk *Packet, lim *limits) error {
	t := Type(p[0] >> 4)
	switch {
	case t == TypeConnect:
		if v != 0 {
			return &SyntaxError{Offset: 0, Kind: ErrSecondConnect}
		}
	case v == 0:
		return &SyntaxError{Offset: 0, Kind: ErrNoVersion}
	case v != V31 && v != V311 && v != V5:
		return &SyntaxError{Offset: 0, Kind: ErrVersion}
	case t == TypeAuth && v != V5:
		return &SyntaxError{Offset: 0, Kind: ErrUnknownType}
	}
	r := reader{p: p, i: hl}
	pk.Type = t
	pk.Version = v
	switch t {
	case TypeConnect:
		r.connect(body(&pk.Connect), lim)
		pk.Version = pk.Connect.Version
	case TypeConnack:
		r.connack(body(&pk.Connack), v, lim)
	case TypePublish:
		r.publish(body(&pk.Publish), v, lim)
	case TypePuback, TypePubrec, TypePubrel, TypePubcomp:
		r.ack(body(&pk.Ack), t, v, lim)
	case TypeSubscribe:
		r.subscribe(body(&pk.Subscribe), v, lim)
	case TypeSuback, TypeUnsuback:
		r.suback(body(&pk.Suback), t, v, lim)
	case TypeUnsubscribe:
		r.unsubscribe(body(&pk.Unsubscribe), v, lim)
	case TypeDisconnect:
		r.disconnect(body(&pk.Disconnect), v, lim)
	case TypeAuth:
		r.auth(body(&pk.Auth), lim)
	}
	if r.err == nil && r.i != len(p) {
		r.fail(ErrMalformed)
	}
	if r.err != nil {
		return &SyntaxError{Offset: r.at, Kind: r.err}
	}
	return nil
}

// body returns *f, allocating it the first time.
func body[T any](f **T) *T {
	if *f == nil {
		*f = new(T)
	}
	return *f
}

// orZero returns v, or a zero value for nil.
func orZero[T any](v *T) *T {
	if v == nil {
		return new(T)
	}
	return v
}

// An Encoder appends packets for one connection: its protocol version and
// the peer's maximum packet size. Every Append method checks what it
// encodes (string lengths, topic names and filters, QoS, packet
// identifiers, properties the packet may carry, the packet's size) and
// returns dst unchanged with an error wrapping the *Violation instead of
// writing a packet the peer must reject; nothing is ever truncated. It
// allocates only when dst must grow.
type Encoder struct {
	// Version is the connection's protocol version; AppendConnect uses the
	// CONNECT's own.
	Version Version
	// MaxPacketSize is the largest packet the peer accepts, fixed header
	// included (its Maximum Packet Size property); 0 means MaxPacketSize.
	// A larger packet is ErrPacketTooLarge.
	MaxPacketSize int
}

// fieldErr reports kind for a field that is not in a list.
func fieldErr(field string, kind error) error {
	return &FieldError{Kind: kind, Field: field, Index: -1}
}

// fieldErrAt reports kind for element i of a list of fields.
func fieldErrAt(field string, i int, kind error) error {
	return &FieldError{Kind: kind, Field: field, Index: i}
}

// head appends a fixed header for a packet of remaining length rl after
// checking the packet's size, and reserves room for the whole packet.
func (e *Encoder) head(dst []byte, first byte, rl int) ([]byte, error) {
	if rl > MaxVarInt {
		return dst, ErrPacketTooLarge
	}
	total := 1 + varIntLen(rl) + rl
	if total > or(e.MaxPacketSize, MaxPacketSize, MaxPacketSize) {
		return dst, ErrPacketTooLarge
	}
	if cap(dst)-len(dst) < total {
		nd := make([]byte, len(dst), len(dst)+total)
		copy(nd, dst)
		dst = nd
	}
	dst = append(dst, first)
	return appendVarInt(dst, rl), nil
}

func (e *Encoder) version() (Version, error) {
	if e.Version == 0 {
		return 0, ErrNoVersion
	}
	if e.Version != V31 && e.Version != V311 && e.Version != V5 {
		return 0, ErrVersion
	}
	return e.Version, nil
}

// checkStr checks a string field for encoding; i is its position in a
// list, or -1.
func checkStr(field string, i int, s []byte, utf bool) error {
	if len(s) > 0xffff {
		return fieldErrAt(field, i, ErrStringTooLong)
	}
	if utf {
		if err := checkString(s); err != nil {
			return fieldErrAt(field, i, err)
		}
	}
	return nil
}

// propList returns the length of ps's property list for packet kind k in
// version v: 0 before MQTT 5.0, where packets carry none and ps must be
// empty.
func propList(ps *Properties, k int, v Version) (int, error) {
	n, err := ps.size(k)
	if err != nil {
		return 0, err
	}
	if v != V5 && n > 0 {
		return 0, fieldErr("properties exist in MQTT 5.0 only", ErrPropertyNotAllowed)
	}
	return n, nil
}

// propWire returns the bytes a property list of length n takes on the
// wire, its length in front: none before MQTT 5.0.
func propWire(n int, v Version) int {
	if v != V5 {
		return 0
	}
	return varIntLen(n) + n
}

// Append appends p, as p.Type and p.Version say, to dst. PINGREQ and
// PINGRESP have no fields; the other types take the field of the same
// name (nil: its zero value).
func (p *Packet) Append(dst []byte) ([]byte, error) {
	e := Encoder{Version: p.Version}
	return e.Append(dst, p)
}

// Append appends p, as p.Type says, to dst with e's version (p.Version is
// not consulted, but for a CONNECT, which carries its own).
func (e *Encoder) Append(dst []byte, p *Packet) ([]byte, error) {
	switch p.Type {
	case TypeConnect:
		return e.AppendConnect(dst, orZero(p.Connect))
	case TypeConnack:
		return e.AppendConnack(dst, orZero(p.Connack))
	case TypePublish:
		return e.AppendPublish(dst, orZero(p.Publish))
	case TypePuback, TypePubrec, TypePubrel, TypePubcomp:
		return e.AppendAck(dst, p.Type, orZero(p.Ack))
	case TypeSubscribe:
		return e.AppendSubscribe(dst, orZero(p.Subscribe))
	case TypeSuback, TypeUnsuback:
		return e.AppendSuback(dst, p.Type, orZero(p.Suback))
	case TypeUnsubscribe:
		return e.AppendUnsubscribe(dst, orZero(p.Unsubscribe))
	case TypePingreq, TypePingresp:
		if _, err := e.version(); err != nil {
			return dst, err
		}
		return e.head(dst, byte(p.Type)<<4, 0)
	case TypeDisconnect:
		return e.AppendDisconnect(dst, orZero(p.Disconnect))
	case TypeAuth:
		return e.AppendAuth(dst, orZero(p.Auth))
	}
	return dst, ErrUnknownType
}

// AppendPingreq appends a PINGREQ.
func AppendPingreq(dst []byte) []byte { return append(dst, byte(TypePingreq)<<4, 0) }

// AppendPingresp appends a PINGRESP.
func AppendPingresp(dst []byte) []byte { return append(dst, byte(TypePingresp)<<4, 0) }

var errNotAck = errors.New("mqtt: not an acknowledgement type")
