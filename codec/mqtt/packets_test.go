package mqtt

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sample returns one packet of every type and shape, for version v: the
// table the round-trip tests and the fuzz seeds start from.
func samples(v Version) []Packet {
	user := []UserProperty{{[]byte("k1"), []byte("v1")}, {[]byte("k1"), []byte("v2")}, {[]byte("ключ"), []byte("")}}
	var pubProps, connProps, willProps, ackProps, connackProps Properties
	if v == V5 {
		pubProps = Properties{PayloadFormat: 1, MessageExpiry: 60, ContentType: []byte("text/plain"),
			ResponseTopic: []byte("re/ply"), CorrelationData: []byte{0, 1, 2}, TopicAlias: 3,
			SubscriptionIDs: []uint32{7, 268435455, 128}, User: user}
		for _, id := range []PropID{PropPayloadFormat, PropMessageExpiry, PropContentType, PropResponseTopic, PropCorrelationData, PropTopicAlias} {
			pubProps.Present.Add(id)
		}
		connProps = Properties{SessionExpiry: 3600, ReceiveMaximum: 20, MaximumPacketSize: 1 << 20,
			TopicAliasMaximum: 10, RequestResponseInfo: 1, RequestProblemInfo: 0,
			AuthMethod: []byte("SCRAM-SHA-1"), AuthData: []byte{9, 9}, User: user[:1]}
		for _, id := range []PropID{PropSessionExpiry, PropReceiveMaximum, PropMaximumPacketSize, PropTopicAliasMaximum, PropRequestResponseInfo, PropRequestProblemInfo, PropAuthMethod, PropAuthData} {
			connProps.Present.Add(id)
		}
		willProps = Properties{WillDelay: 5, PayloadFormat: 0, ContentType: []byte("json")}
		for _, id := range []PropID{PropWillDelay, PropPayloadFormat, PropContentType} {
			willProps.Present.Add(id)
		}
		ackProps = Properties{ReasonString: []byte("no"), User: user[1:2]}
		ackProps.Present.Add(PropReasonString)
		connackProps = Properties{SessionExpiry: 10, ReceiveMaximum: 100, MaximumQoS: 1, RetainAvailable: 0,
			MaximumPacketSize: 4096, AssignedClientID: []byte("auto-1"), TopicAliasMaximum: 5,
			ReasonString: []byte("ok"), WildcardSubAvailable: 1, SubIDAvailable: 1, SharedSubAvailable: 0,
			ServerKeepAlive: 30, ResponseInfo: []byte("resp"), ServerReference: []byte("other"),
			AuthMethod: []byte("m"), AuthData: []byte("d")}
		for _, id := range []PropID{PropSessionExpiry, PropReceiveMaximum, PropMaximumQoS, PropRetainAvailable, PropMaximumPacketSize, PropAssignedClientID, PropTopicAliasMaximum, PropReasonString, PropWildcardSubAvailable, PropSubIDAvailable, PropSharedSubAvailable, PropServerKeepAlive, PropResponseInfo, PropServerReference, PropAuthMethod, PropAuthData} {
			connackProps.Present.Add(id)
		}
	}
	pk := func(t Type) Packet { return newPacket(t, v) }
	var out []Packet
	p := pk(TypeConnect)
	p.Connect = &Connect{Version: v, CleanStart: true, KeepAlive: 30, ClientID: []byte("client-1"), Props: connProps}
	out = append(out, p)
	willID := []byte{} // MQTT 3.1 has no empty client identifier
	if v == V31 {
		willID = []byte("c31")
	}
	p = pk(TypeConnect)
	p.Connect = &Connect{Version: v, CleanStart: v != V5, KeepAlive: 0, ClientID: willID, WillFlag: true, WillQoS: 2, WillRetain: true,
		WillProps: willProps, WillTopic: []byte("last/will"), WillPayload: []byte("bye"),
		HasUsername: true, Username: []byte("user"), HasPassword: true, Password: []byte{0, 0xff}}
	out = append(out, p)
	p = pk(TypeConnack)
	p.Connack = &Connack{SessionPresent: true, Props: connackProps}
	out = append(out, p)
	p = pk(TypeConnack)
	if v == V5 {
		p.Connack = &Connack{Reason: NotAuthorized}
	} else {
		p.Connack = &Connack{Reason: 5}
	}
	out = append(out, p)
	for q := byte(0); q < 3; q++ {
		p = pk(TypePublish)
		p.Publish = &Publish{QoS: q, Retain: q == 1, Dup: q == 2, Topic: []byte("a/b/c/d/e/f/sensor/1"), Payload: bytes.Repeat([]byte{'x'}, 64)}
		if q > 0 {
			p.Publish.PacketID = uint16(q) * 1000
		}
		if q == 2 {
			p.Publish.Props = pubProps
		}
		out = append(out, p)
	}
	p = pk(TypePublish)
	p.Publish = &Publish{Topic: []byte("empty/payload")}
	out = append(out, p)
	for t := TypePuback; t <= TypePubcomp; t++ {
		p = pk(t)
		p.Ack = &Ack{PacketID: 1}
		out = append(out, p)
		if v == V5 {
			p = pk(t)
			p.Ack = &Ack{PacketID: 65535, Reason: ackCodesList(t)[1], Props: ackProps}
			out = append(out, p)
			p = pk(t)
			p.Ack = &Ack{PacketID: 2, Reason: ackCodesList(t)[1]}
			out = append(out, p)
		}
	}
	p = pk(TypeSubscribe)
	subs := []Subscription{{Filter: []byte("a/+/c"), QoS: 1}, {Filter: []byte("#"), QoS: 2}, {Filter: []byte("x/y/#")}}
	if v == V5 {
		subs = append(subs, Subscription{Filter: []byte("$share/group/s/+"), QoS: 1, RetainAsPublished: true, RetainHandling: 2},
			Subscription{Filter: []byte("n/l"), NoLocal: true, RetainHandling: 1})
		p.Subscribe.Props = Properties{SubscriptionIDs: []uint32{42}, User: user[:1]}
	}
	p.Subscribe.PacketID = 10
	p.Subscribe.Subscriptions = subs
	out = append(out, p)
	p = pk(TypeSuback)
	p.Suback = &Suback{PacketID: 10, Reasons: []ReasonCode{0, 1, 2, 0x80}}
	if v == V5 {
		p.Suback.Reasons = append(p.Suback.Reasons, 0x8F, 0xA2)
		p.Suback.Props = ackProps
	}
	out = append(out, p)
	p = pk(TypeUnsubscribe)
	p.Unsubscribe = &Unsubscribe{PacketID: 11, Filters: [][]byte{[]byte("a/+/c"), []byte("#")}}
	if v == V5 {
		p.Unsubscribe.Props.User = user
	}
	out = append(out, p)
	p = pk(TypeUnsuback)
	p.Suback = &Suback{PacketID: 11}
	if v == V5 {
		p.Suback.Reasons = []ReasonCode{0, 0x11}
		p.Suback.Props = ackProps
	}
	out = append(out, p)
	out = append(out, pk(TypePingreq), pk(TypePingresp), pk(TypeDisconnect))
	if v == V5 {
		p = pk(TypeDisconnect)
		p.Disconnect = &Disconnect{Reason: DisconnectWithWill}
		out = append(out, p)
		p = pk(TypeDisconnect)
		p.Disconnect = &Disconnect{Reason: ServerMoved, Props: Properties{ServerReference: []byte("elsewhere"), SessionExpiry: 0, ReasonString: []byte("moved")}}
		p.Disconnect.Props.Present.Add(PropServerReference)
		p.Disconnect.Props.Present.Add(PropSessionExpiry)
		p.Disconnect.Props.Present.Add(PropReasonString)
		out = append(out, p)
		p = pk(TypeAuth)
		p.Auth = &Auth{Reason: ContinueAuthentication, Props: Properties{AuthMethod: []byte("SCRAM-SHA-1"), AuthData: []byte("abc")}}
		p.Auth.Props.Present.Add(PropAuthMethod)
		p.Auth.Props.Present.Add(PropAuthData)
		out = append(out, p)
	}
	return out
}

// newPacket returns a Packet of type t whose field for t points at a zero
// value.
func newPacket(t Type, v Version) Packet {
	p := Packet{Type: t, Version: v}
	switch t {
	case TypeConnect:
		p.Connect = new(Connect)
	case TypeConnack:
		p.Connack = new(Connack)
	case TypePublish:
		p.Publish = new(Publish)
	case TypePuback, TypePubrec, TypePubrel, TypePubcomp:
		p.Ack = new(Ack)
	case TypeSubscribe:
		p.Subscribe = new(Subscribe)
	case TypeSuback, TypeUnsuback:
		p.Suback = new(Suback)
	case TypeUnsubscribe:
		p.Unsubscribe = new(Unsubscribe)
	case TypeDisconnect:
		p.Disconnect = new(Disconnect)
	case TypeAuth:
		p.Auth = new(Auth)
	}
	return p
}

func ackCodesList(t Type) []ReasonCode {
	if t == TypePubrel || t == TypePubcomp {
		return []ReasonCode{0, 0x92}
	}
	return []ReasonCode{0, 0x10, 0x80}
}

func mustEncode(t *testing.T, p *Packet) []byte {
	t.Helper()
	b, err := p.Append(nil)
	require.NoError(t, err, "%v %v: encode", p.Version, p.Type)
	return b
}

func TestRoundTrip(t *testing.T) {
	for _, v := range []Version{V31, V311, V5} {
		for _, p := range samples(v) {
			b := mustEncode(t, &p)
			var d Packet
			n, err := DecodeBytes(b, v, &d)
			if p.Type == TypeConnect {
				n, err = DecodeBytes(b, 0, &d)
			}
			require.NoError(t, err, "%v %v: decode %x: n=%d err=%v", v, p.Type, b, n, err)
			require.Equal(t, len(b), n, "%v %v: decode %x: n=%d err=%v", v, p.Type, b, n, err)
			require.Equal(t, p.Type, d.Type, "%v %v: decoded as %v %v", v, p.Type, d.Version, d.Type)
			require.Equal(t, v, d.Version, "%v %v: decoded as %v %v", v, p.Type, d.Version, d.Type)
			b2 := mustEncode(t, &d)
			require.Equal(t, b2, b, "%v %v: re-encoded\n%x\nwant\n%x", v, p.Type, b2, b)
			c := d.Clone()
			b3 := mustEncode(t, c)
			require.Equal(t, b3, b, "%v %v: clone encodes\n%x\nwant\n%x", v, p.Type, b3, b)
			// Every prefix is short.
			for i := range b {
				n, err := DecodeBytes(b[:i], v, &d)
				require.False(t, err != ErrShort && !(p.Type == TypeConnect && err != nil), "%v %v: prefix %d: n=%d err=%v", v, p.Type, i, n, err)
			}
		}
	}
}

// TestKnownBytes decodes packets written by hand from the specification,
// so that the encoder and decoder cannot agree on a mistake.
func TestKnownBytes(t *testing.T) {
	h := func(s string) []byte {
		b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
		require.NoError(t, err)
		return b
	}
	// CONNECT 3.1.1: "MQTT", level 4, clean session, keep alive 60, client id "abc".
	var p Packet
	b := h("10 0f 0004 4d515454 04 02 003c 0003 616263")
	decode := func(b []byte, v Version, what string) {
		t.Helper()
		n, err := DecodeBytes(b, v, &p)
		require.NoError(t, err, what)
		require.Equal(t, len(b), n, what)
	}
	decode(b, 0, "CONNECT 3.1.1")
	assert.Equal(t, V311, p.Connect.Version)
	assert.True(t, p.Connect.CleanStart)
	assert.Equal(t, uint16(60), p.Connect.KeepAlive)
	assert.Equal(t, "abc", string(p.Connect.ClientID))
	// CONNECT 5.0 with session expiry 10 and an empty client id.
	b = h("10 12 0004 4d515454 05 02 000a 05 11 0000000a 0000")
	decode(b, 0, "CONNECT 5")
	assert.Equal(t, V5, p.Connect.Version)
	assert.Equal(t, uint32(10), p.Connect.Props.SessionExpiry)
	assert.True(t, p.Connect.Props.Present.Has(PropSessionExpiry))
	assert.Empty(t, p.Connect.ClientID)
	// PUBLISH 3.1.1 QoS 1 retain, topic "a/b", id 0x1234, payload "hi".
	b = h("33 09 0003 612f62 1234 6869")
	decode(b, V311, "PUBLISH")
	assert.Equal(t, byte(1), p.Publish.QoS)
	assert.True(t, p.Publish.Retain)
	assert.Equal(t, "a/b", string(p.Publish.Topic))
	assert.Equal(t, uint16(0x1234), p.Publish.PacketID)
	assert.Equal(t, "hi", string(p.Publish.Payload))
	// PUBLISH 5.0 QoS 0 with two subscription identifiers (1 and 300) and a user property.
	b = h("30 12 0001 74 0c 0b01 0b ac02 26 0001 6b 0001 76 7061")
	decode(b, V5, "PUBLISH 5")
	assert.Equal(t, []uint32{1, 300}, p.Publish.Props.SubscriptionIDs)
	assert.Len(t, p.Publish.Props.User, 1)
	assert.Equal(t, "pa", string(p.Publish.Payload))
	// SUBACK 5.0 id 7, no properties, granted QoS 1 and 0x87.
	b = h("90 05 0007 00 01 87")
	decode(b, V5, "SUBACK")
	assert.Equal(t, uint16(7), p.Suback.PacketID)
	assert.Equal(t, []ReasonCode{GrantedQoS1, NotAuthorized}, p.Suback.Reasons)
	// PUBACK 5.0 short forms: no reason (Success), reason without properties.
	for _, s := range []string{"40 02 0001", "40 03 0001 10"} {
		b = h(s)
		n, err := DecodeBytes(b, V5, &p)
		require.NoError(t, err, "PUBACK %s: n=%d err=%v", s, n, err)
		require.Equal(t, len(b), n, "PUBACK %s: n=%d err=%v", s, n, err)
		require.Equal(t, uint16(1), p.Ack.PacketID, "PUBACK %s: n=%d err=%v", s, n, err)
	}
	require.Equal(t, NoMatchingSubscribers, p.Ack.Reason, "PUBACK reason %v", p.Ack.Reason)
}

func hexBytes(s string) ([]byte, error) { return hex.DecodeString(strings.ReplaceAll(s, " ", "")) }

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestEncodeRefuses checks that the encoder refuses, rather than drops or
// truncates, what it cannot write.
func TestEncodeRefuses(t *testing.T) {
	long := bytes.Repeat([]byte("a"), 65536)
	e5, e3 := Encoder{Version: V5}, Encoder{Version: V311}
	user := []UserProperty{{[]byte("k"), []byte("v")}}
	for _, c := range []struct {
		name string
		err  error
		f    func() ([]byte, error)
	}{
		{"no version", ErrNoVersion, func() ([]byte, error) { return (&Encoder{}).AppendPublish(nil, &Publish{Topic: []byte("a")}) }},
		{"long topic", ErrStringTooLong, func() ([]byte, error) { return e5.AppendPublish(nil, &Publish{Topic: long}) }},
		{"long user property", ErrStringTooLong, func() ([]byte, error) {
			return e5.AppendPublish(nil, &Publish{Topic: []byte("a"), Props: Properties{User: []UserProperty{{long, nil}}}})
		}},
		{"too large for the peer", ErrPacketTooLarge, func() ([]byte, error) {
			return (&Encoder{Version: V5, MaxPacketSize: 100}).AppendPublish(nil, &Publish{Topic: []byte("a"), Payload: make([]byte, 95)})
		}},
		{"over 256 MiB", ErrPacketTooLarge, func() ([]byte, error) { return e3.head(nil, 0x30, MaxVarInt+1) }},
		{"properties in 3.1.1", ErrPropertyNotAllowed, func() ([]byte, error) {
			return e3.AppendPublish(nil, &Publish{Topic: []byte("a"), Props: Properties{User: user}})
		}},
		{"reason code in 3.1.1", ErrBadReasonCode, func() ([]byte, error) { return e3.AppendAck(nil, TypePuback, &Ack{PacketID: 1, Reason: 0x80}) }},
		{"user name without its flag", ErrFieldNoFlag, func() ([]byte, error) {
			return e5.AppendConnect(nil, &Connect{Version: V5, Username: []byte("u")})
		}},
		{"will without its flag", ErrFieldNoFlag, func() ([]byte, error) {
			return e5.AppendConnect(nil, &Connect{Version: V5, WillTopic: []byte("w")})
		}},
		{"two subscription ids on SUBSCRIBE", ErrDuplicateProperty, func() ([]byte, error) {
			return e5.AppendSubscribe(nil, &Subscribe{PacketID: 1, Props: Properties{SubscriptionIDs: []uint32{1, 2}}, Subscriptions: []Subscription{{Filter: []byte("a")}}})
		}},
		{"5.0 options in 3.1.1", ErrSubOptions, func() ([]byte, error) {
			return e3.AppendSubscribe(nil, &Subscribe{PacketID: 1, Subscriptions: []Subscription{{Filter: []byte("a"), NoLocal: true}}})
		}},
		{"unsuback codes in 3.1.1", ErrBadReasonCode, func() ([]byte, error) {
			return e3.AppendSuback(nil, TypeUnsuback, &Suback{PacketID: 1, Reasons: []ReasonCode{0}})
		}},
		{"AUTH in 3.1.1", ErrUnknownType, func() ([]byte, error) { return e3.AppendAuth(nil, &Auth{}) }},
	} {
		b, err := c.f()
		assert.False(t, !errors.Is(err, c.err) || b != nil, "%s: %q, %v; want nothing and %v", c.name, b, err, c.err)
	}
}
