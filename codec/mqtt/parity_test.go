package mqtt

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// propsWith returns ps with the bits of ids added to Present.
func propsWith(ps Properties, ids ...PropID) Properties {
	for _, id := range ids {
		ps.Present.Add(id)
	}
	return ps
}

// parity is the table of values the decoder refuses: each case is a packet
// the encoder must refuse and the bytes a permissive writer would have sent
// for it, which the decoder refuses, both with the same sentinel.
var parity = []struct {
	name string
	v    Version // the encoder's version (a CONNECT carries its own)
	pk   Packet
	in   string // hex of the same value on the wire
	dv   Version
	want *Violation
}{
	{"topic alias 0", V5, Packet{Type: TypePublish, Publish: &Publish{Topic: []byte("t"),
		Props: propsWith(Properties{}, PropTopicAlias)}},
		"30 07 0001 74 03 23 0000", V5, ErrTopicAliasZero},
	{"topic alias 0 without topic", V5, Packet{Type: TypePublish, Publish: &Publish{
		Props: propsWith(Properties{}, PropTopicAlias)}},
		"30 06 0000 03 23 0000", V5, ErrTopicAliasZero},
	{"payload format 2", V5, Packet{Type: TypePublish, Publish: &Publish{Topic: []byte("t"),
		Props: propsWith(Properties{PayloadFormat: 2}, PropPayloadFormat)}},
		"30 06 0001 74 02 01 02", V5, ErrPropertyValue},
	{"will payload format 2", V5, Packet{Type: TypeConnect, Connect: &Connect{Version: V5, CleanStart: true, WillFlag: true,
		WillTopic: []byte("w"), WillProps: propsWith(Properties{PayloadFormat: 2}, PropPayloadFormat)}},
		"10 14 0004 4d515454 05 06 003c 00 0000 02 01 02 0001 77 0000", 0, ErrPropertyValue},
	{"wildcard response topic", V5, Packet{Type: TypePublish, Publish: &Publish{Topic: []byte("t"),
		Props: propsWith(Properties{ResponseTopic: []byte("a/#")}, PropResponseTopic)}},
		"30 0a 0001 74 06 08 0003 612f23", V5, ErrResponseTopic},
	{"empty response topic", V5, Packet{Type: TypePublish, Publish: &Publish{Topic: []byte("t"),
		Props: propsWith(Properties{}, PropResponseTopic)}},
		"30 07 0001 74 03 08 0000", V5, ErrTopicEmpty},
	{"will wildcard response topic", V5, Packet{Type: TypeConnect, Connect: &Connect{Version: V5, CleanStart: true, WillFlag: true,
		WillTopic: []byte("w"), WillProps: propsWith(Properties{ResponseTopic: []byte("+")}, PropResponseTopic)}},
		"10 15 0004 4d515454 05 06 003c 00 0000 04 08 0001 2b 0001 77 0000", 0, ErrResponseTopic},
	{"CONNACK maximum QoS 2", V5, Packet{Type: TypeConnack, Connack: &Connack{
		Props: propsWith(Properties{MaximumQoS: 2}, PropMaximumQoS)}},
		"20 05 00 00 02 24 02", V5, ErrPropertyValue},
	{"CONNACK retain available 2", V5, Packet{Type: TypeConnack, Connack: &Connack{
		Props: propsWith(Properties{RetainAvailable: 2}, PropRetainAvailable)}},
		"20 05 00 00 02 25 02", V5, ErrPropertyValue},
	{"CONNACK wildcard subscription available 2", V5, Packet{Type: TypeConnack, Connack: &Connack{
		Props: propsWith(Properties{WildcardSubAvailable: 2}, PropWildcardSubAvailable)}},
		"20 05 00 00 02 28 02", V5, ErrPropertyValue},
	{"CONNACK subscription identifiers available 2", V5, Packet{Type: TypeConnack, Connack: &Connack{
		Props: propsWith(Properties{SubIDAvailable: 2}, PropSubIDAvailable)}},
		"20 05 00 00 02 29 02", V5, ErrPropertyValue},
	{"CONNACK shared subscriptions available 2", V5, Packet{Type: TypeConnack, Connack: &Connack{
		Props: propsWith(Properties{SharedSubAvailable: 2}, PropSharedSubAvailable)}},
		"20 05 00 00 02 2a 02", V5, ErrPropertyValue},
	{"CONNACK receive maximum 0", V5, Packet{Type: TypeConnack, Connack: &Connack{
		Props: propsWith(Properties{}, PropReceiveMaximum)}},
		"20 06 00 00 03 21 0000", V5, ErrPropertyValue},
	{"CONNACK maximum packet size 0", V5, Packet{Type: TypeConnack, Connack: &Connack{
		Props: propsWith(Properties{}, PropMaximumPacketSize)}},
		"20 08 00 00 05 27 00000000", V5, ErrPropertyValue},
	{"CONNECT receive maximum 0", V5, Packet{Type: TypeConnect, Connect: &Connect{Version: V5, CleanStart: true,
		Props: propsWith(Properties{}, PropReceiveMaximum)}},
		"10 10 0004 4d515454 05 02 003c 03 21 0000 0000", 0, ErrPropertyValue},
	{"CONNECT maximum packet size 0", V5, Packet{Type: TypeConnect, Connect: &Connect{Version: V5, CleanStart: true,
		Props: propsWith(Properties{}, PropMaximumPacketSize)}},
		"10 12 0004 4d515454 05 02 003c 05 27 00000000 0000", 0, ErrPropertyValue},
	{"request problem information 2", V5, Packet{Type: TypeConnect, Connect: &Connect{Version: V5, CleanStart: true,
		Props: propsWith(Properties{RequestProblemInfo: 2}, PropRequestProblemInfo)}},
		"10 0f 0004 4d515454 05 02 003c 02 17 02 0000", 0, ErrPropertyValue},
	{"request response information 2", V5, Packet{Type: TypeConnect, Connect: &Connect{Version: V5, CleanStart: true,
		Props: propsWith(Properties{RequestResponseInfo: 2}, PropRequestResponseInfo)}},
		"10 0f 0004 4d515454 05 02 003c 02 19 02 0000", 0, ErrPropertyValue},
	{"subscription identifier 0", V5, Packet{Type: TypePublish, Publish: &Publish{Topic: []byte("t"),
		Props: Properties{SubscriptionIDs: []uint32{0}}}},
		"30 06 0001 74 02 0b 00", V5, ErrSubscriptionIDZero},
	{"subscription identifier 0 on SUBSCRIBE", V5, Packet{Type: TypeSubscribe, Subscribe: &Subscribe{PacketID: 1,
		Props: Properties{SubscriptionIDs: []uint32{0}}, Subscriptions: []Subscription{{Filter: []byte("a")}}}},
		"82 08 0001 02 0b 00 0001 61 00", V5, ErrSubscriptionIDZero},
	{"two subscription identifiers on SUBSCRIBE", V5, Packet{Type: TypeSubscribe, Subscribe: &Subscribe{PacketID: 1,
		Props: Properties{SubscriptionIDs: []uint32{1, 2}}, Subscriptions: []Subscription{{Filter: []byte("a")}}}},
		"82 0a 0001 04 0b01 0b02 0001 61 00", V5, ErrDuplicateProperty},
	{"property not allowed", V5, Packet{Type: TypePublish, Publish: &Publish{Topic: []byte("t"),
		Props: propsWith(Properties{SessionExpiry: 10}, PropSessionExpiry)}},
		"30 09 0001 74 05 11 0000000a", V5, ErrPropertyNotAllowed},
	{"bad UTF-8 in reason string", V5, Packet{Type: TypePuback, Ack: &Ack{PacketID: 1,
		Props: propsWith(Properties{ReasonString: []byte{0xff}}, PropReasonString)}},
		"40 08 0001 00 04 1f 0001 ff", V5, ErrBadUTF8},
	{"U+0000 in content type", V5, Packet{Type: TypePublish, Publish: &Publish{Topic: []byte("t"),
		Props: propsWith(Properties{ContentType: []byte{0}}, PropContentType)}},
		"30 08 0001 74 04 03 0001 00", V5, ErrNullChar},
	{"bad UTF-8 in will topic", V311, Packet{Type: TypeConnect, Connect: &Connect{Version: V311, CleanStart: true, WillFlag: true,
		WillTopic: []byte{0xc0, 0x80}}},
		"10 12 0004 4d515454 04 06 003c 0000 0002 c080 0000", 0, ErrBadUTF8},
	{"protocol level 6", V5, Packet{Type: TypeConnect, Connect: &Connect{Version: 6, CleanStart: true}},
		"10 0c 0004 4d515454 06 02 003c 0000", 0, ErrVersion},
	{"protocol name MQTX", V5, Packet{Type: TypeConnect, Connect: &Connect{Version: V311, CleanStart: true, ProtocolName: []byte("MQTX")}},
		"10 0c 0004 4d515458 04 02 003c 0000", 0, ErrProtocolName},
	{"packet before CONNECT", 0, Packet{Type: TypePingreq},
		"c0 00", 0, ErrNoVersion},
	{"AUTH in 3.1.1", V311, Packet{Type: TypeAuth},
		"f0 00", V311, ErrUnknownType},
	{"reserved type 0", V311, Packet{Type: 0},
		"00 00", V311, ErrUnknownType},
	{"will QoS 3", V311, Packet{Type: TypeConnect, Connect: &Connect{Version: V311, CleanStart: true, WillFlag: true, WillQoS: 3,
		WillTopic: []byte("t"), WillPayload: []byte("a")}},
		"10 12 0004 4d515454 04 1e 003c 0000 0001 74 0001 61", 0, ErrWillQoS},
	{"PUBLISH QoS 3", V311, Packet{Type: TypePublish, Publish: &Publish{QoS: 3, PacketID: 1, Topic: []byte("t")}},
		"36 05 0001 74 0001", V311, ErrBadQoS},
	{"CONNACK session present on refusal", V311, Packet{Type: TypeConnack, Connack: &Connack{SessionPresent: true, Reason: 5}},
		"20 02 01 05", V311, ErrSessionPresent},
	{"3.1.1 SUBACK code 0x87", V311, Packet{Type: TypeSuback, Suback: &Suback{PacketID: 1, Reasons: []ReasonCode{0x87}}},
		"90 03 0001 87", V311, ErrBadReasonCode},
	{"share name +", V5, Packet{Type: TypeUnsubscribe, Unsubscribe: &Unsubscribe{PacketID: 1, Filters: [][]byte{[]byte("$share/+/x")}}},
		"a2 0f 0001 00 000a 2473686172652f2b2f78", V5, ErrShareName},
	{"AUTH without authentication method", V5, Packet{Type: TypeAuth, Auth: &Auth{Reason: ContinueAuthentication}},
		"f0 02 18 00", V5, ErrAuthNoMethod},
	{"AUTH with data but no method", V5, Packet{Type: TypeAuth, Auth: &Auth{Reason: ContinueAuthentication,
		Props: propsWith(Properties{AuthData: []byte("a")}, PropAuthData)}},
		"f0 06 18 04 16 0001 61", V5, ErrAuthNoMethod},
	{"empty AUTH", V5, Packet{Type: TypeAuth},
		"f0 00", V5, ErrAuthNoMethod},
	{"CONNECT authentication data without method", V5, Packet{Type: TypeConnect, Connect: &Connect{Version: V5, CleanStart: true,
		Props: propsWith(Properties{AuthData: []byte("a")}, PropAuthData)}},
		"10 11 0004 4d515454 05 02 003c 04 16 0001 61 0000", 0, ErrAuthDataNoMethod},
	{"3.1.1 empty client id without clean session", V311, Packet{Type: TypeConnect, Connect: &Connect{Version: V311}},
		"10 0c 0004 4d515454 04 00 003c 0000", 0, ErrEmptyClientID},
}

// TestEncodeRefusesWhatDecodeRefuses: for every value the decoder refuses
// the encoder refuses too, with the same *Violation (errors.Is and
// errors.As), and leaves dst as it was.
func TestEncodeRefusesWhatDecodeRefuses(t *testing.T) {
	for _, c := range parity {
		t.Run(c.name, func(t *testing.T) {
			in, err := hexBytes(c.in)
			require.NoError(t, err)
			var p Packet
			_, derr := DecodeBytes(in, c.dv, &p)
			require.ErrorIs(t, derr, c.want, "decoding %s", c.in)

			e := Encoder{Version: c.v}
			prefix := []byte("prefix")
			dst := append(make([]byte, 0, 64), prefix...)
			out, err := e.Append(dst, &c.pk)
			require.ErrorIs(t, err, c.want, "encoding")
			var v *Violation
			require.True(t, errors.As(err, &v), "%v is not a *Violation", err)
			assert.Same(t, c.want, v)
			assert.Equal(t, prefix, out, "dst changed")
			assert.Equal(t, cap(dst), cap(out), "dst reallocated")
		})
	}
}
