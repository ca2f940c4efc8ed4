package mqtt

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/netkit/netkit/buf"
	"github.com/stretchr/testify/require"
)

// violations is the table of malformed packets: each input breaks one rule,
// and decoding must report that rule's sentinel, at that offset, with that
// rule's normative ID and reason code.
var violations = []struct {
	name string
	v    Version
	in   string // hex; spaces ignored
	want *Violation
	rule string
	at   int
}{
	{"reserved type 0", V311, "00 00", ErrUnknownType, "§2.1.2", 0},
	{"AUTH in 3.1.1", V311, "f0 00", ErrUnknownType, "§2.1.2", 0},
	{"SUBSCRIBE flags 0000", V311, "80 06 0001 0001 61 00", ErrReservedFlags, "MQTT-2.1.3-1", 0},
	{"PUBREL flags 0000", V311, "60 02 0001", ErrReservedFlags, "MQTT-2.1.3-1", 0},
	{"PINGREQ flag set", V311, "c1 00", ErrReservedFlags, "MQTT-2.1.3-1", 0},
	{"PUBLISH QoS 3", V311, "36 05 0001 74 0001", ErrBadQoS, "MQTT-3.3.1-4", 0},
	{"DUP on QoS 0", V311, "38 03 0001 74", ErrDupOnQoS0, "MQTT-3.3.1-2", 0},
	{"remaining length of 5 bytes", V311, "30 ff ff ff ff 01", ErrVarInt, "§1.5.5", 1},
	{"remaining length not shortest", V311, "30 80 00", ErrVarIntLong, "MQTT-1.5.5-1", 1},
	{"256 MB remaining length", 0, "10 ff ff ff 7f", ErrPacketTooLarge, "MQTT-3.2.2-15", 1},
	{"wildcard + in topic", V311, "30 05 0003 612b62", ErrTopicWildcard, "MQTT-3.3.2-2", 4},
	{"wildcard # in topic", V5, "30 06 0003 61232f 00", ErrTopicWildcard, "MQTT-3.3.2-2", 4},
	{"U+0000 in topic", V311, "30 05 0003 610062", ErrNullChar, "MQTT-1.5.4-2", 4},
	{"overlong UTF-8 in topic", V311, "30 05 0003 61c080", ErrBadUTF8, "MQTT-1.5.4-1", 4},
	{"surrogate in topic", V311, "30 06 0004 61eda080", ErrBadUTF8, "MQTT-1.5.4-1", 4},
	{"U+0000 in client id", 0, "10 0f 0004 4d515454 04 02 003c 0003 610062", ErrNullChar, "MQTT-1.5.4-2", 14},
	{"bad UTF-8 in user property", V5, "30 0b 0001 74 07 26 0001 ff 0001 61", ErrBadUTF8, "MQTT-1.5.4-1", 9},
	{"packet id 0 on QoS 1", V311, "32 05 0001 61 0000", ErrZeroPacketID, "MQTT-2.2.1-3", 5},
	{"packet id 0 on SUBSCRIBE", V311, "82 06 0000 0001 61 00", ErrZeroPacketID, "MQTT-2.2.1-3", 2},
	{"empty topic without alias", V311, "30 02 0000", ErrTopicEmpty, "MQTT-4.7.3-1", 4},
	{"string past remaining length", V311, "30 04 0003 6162", ErrMalformed, "§2.1.4", 4},
	{"bytes after PUBACK", V311, "40 03 0001 00", ErrMalformed, "§2.1.4", 4},
	{"PINGREQ with a body", V311, "c0 01 00", ErrMalformed, "§2.1.4", 2},
	{"SUBSCRIBE without filters", V311, "82 02 0001", ErrNoSubscriptions, "MQTT-3.8.3-2", 4},
	{"3.1.1 subscription option bits", V311, "82 06 0001 0001 61 04", ErrSubOptions, "MQTT-3.8.3-5", 7},
	{"3.1.1 subscription QoS 3", V311, "82 06 0001 0001 61 03", ErrSubQoS, "§3.8.3.1", 7},
	{"# not last", V311, "82 0a 0001 0005 612f232f62 00", ErrFilterMultiWild, "MQTT-4.7.1-1", 6},
	{"+ not alone", V311, "82 07 0001 0002 612b 00", ErrFilterWild, "MQTT-4.7.1-2", 6},
	{"empty filter", V311, "82 05 0001 0000 00", ErrTopicEmpty, "MQTT-4.7.3-1", 6},
	{"no local on shared", V5, "82 11 0001 00 000b 2473686172652f672f6162 04", ErrSharedNoLocal, "MQTT-3.8.3-4", 18},
	{"share name +", V5, "82 10 0001 00 000a 2473686172652f2b2f78 00", ErrShareName, "MQTT-4.8.2-2", 7},
	{"share without filter", V5, "82 0e 0001 00 0008 2473686172652f67 00", ErrShareName, "MQTT-4.8.2-2", 7},
	{"retain handling 3", V5, "82 07 0001 00 0001 61 30", ErrRetainHandling, "§3.8.3.1", 8},
	{"subscription QoS 3", V5, "82 07 0001 00 0001 61 03", ErrSubQoS, "§3.8.3.1", 8},
	{"5.0 subscription option bits", V5, "82 07 0001 00 0001 61 40", ErrSubOptions, "MQTT-3.8.3-5", 8},
	{"UNSUBSCRIBE without filters", V311, "a2 02 0001", ErrNoFilters, "MQTT-3.10.3-2", 4},
	{"duplicate message expiry", V5, "30 0e 0001 74 0a 02 0000000a 02 0000000b", ErrDuplicateProperty, "§2.2.2.2", 11},
	{"two subscription ids on SUBSCRIBE", V5, "82 0a 0001 04 0b01 0b02 0001 61 00", ErrDuplicateProperty, "§2.2.2.2", 7},
	{"session expiry on PUBLISH", V5, "30 09 0001 74 05 11 0000000a", ErrPropertyNotAllowed, "§2.2.2.2", 6},
	{"will delay on CONNECT", 0, "10 12 0004 4d515454 05 02 003c 05 18 00000001 0000", ErrPropertyNotAllowed, "§2.2.2.2", 13},
	{"unknown property 0x05", V5, "30 06 0001 74 02 05 00", ErrUnknownProperty, "§2.2.2.2", 6},
	{"property past its length", V5, "30 07 0001 74 01 02 000a", ErrMalformed, "§2.1.4", 7},
	{"topic alias 0", V5, "30 07 0001 74 03 23 0000", ErrTopicAliasZero, "MQTT-3.3.2-8", 6},
	{"subscription id 0", V5, "30 06 0001 74 02 0b 00", ErrSubscriptionIDZero, "§3.3.2.3.8", 6},
	{"payload format 2", V5, "30 06 0001 74 02 01 02", ErrPropertyValue, "§3", 6},
	{"receive maximum 0", 0, "10 10 0004 4d515454 05 02 003c 03 21 0000 0000", ErrPropertyValue, "§3", 13},
	{"wildcard in response topic", V5, "30 0a 0001 74 06 08 0003 612f23", ErrResponseTopic, "MQTT-3.3.2-14", 6},
	{"protocol name MQTX", 0, "10 0c 0004 4d515458 04 02 003c 0000", ErrProtocolName, "MQTT-3.1.2-1", 2},
	{"protocol level 3", 0, "10 0c 0004 4d515454 03 02 003c 0000", ErrVersion, "MQTT-3.1.2-2", 8},
	{"CONNECT reserved flag", 0, "10 0c 0004 4d515454 04 03 003c 0000", ErrConnectReserved, "MQTT-3.1.2-3", 9},
	{"will QoS without will", 0, "10 0c 0004 4d515454 04 0a 003c 0000", ErrWillQoSNoWill, "MQTT-3.1.2-11", 9},
	{"will retain without will", 0, "10 0c 0004 4d515454 04 22 003c 0000", ErrWillRetainNoWill, "MQTT-3.1.2-13", 9},
	{"will QoS 3", 0, "10 12 0004 4d515454 04 1e 003c 0000 0001 74 0001 61", ErrWillQoS, "MQTT-3.1.2-12", 9},
	{"wildcard in will topic", 0, "10 12 0004 4d515454 04 06 003c 0000 0001 23 0001 61", ErrTopicWildcard, "MQTT-3.3.2-2", 16},
	{"3.1.1 password without user name", 0, "10 0f 0004 4d515454 04 42 003c 0000 0001 61", ErrPasswordNoUser, "MQTT-3.1.2-22 (3.1.1)", 9},
	{"3.1.1 empty client id without clean session", 0, "10 0c 0004 4d515454 04 00 003c 0000", ErrEmptyClientID, "MQTT-3.1.3-7 (3.1.1)", 12},
	{"authentication data without method", 0, "10 11 0004 4d515454 05 02 003c 04 16 0001 61 0000", ErrAuthDataNoMethod, "§3.1.2.11.10", 13},
	{"AUTH without anything", V5, "f0 00", ErrAuthNoMethod, "§3.15.2.2.2", 2},
	{"AUTH without authentication method", V5, "f0 02 18 00", ErrAuthNoMethod, "§3.15.2.2.2", 2},
	{"AUTH with data but no method", V5, "f0 06 18 04 16 0001 61", ErrAuthNoMethod, "§3.15.2.2.2", 2},
	{"packet before CONNECT", 0, "c0 00", ErrNoVersion, "MQTT-3.1.0-1", 0},
	{"CONNACK reserved flags", V311, "20 02 02 00", ErrConnackFlags, "MQTT-3.2.2-1", 2},
	{"session present on refusal", V311, "20 02 01 05", ErrSessionPresent, "MQTT-3.2.2-6", 2},
	{"3.1.1 CONNACK return code 6", V311, "20 02 00 06", ErrBadReasonCode, "§2.4", 3},
	{"PUBACK reason 0x01", V5, "40 03 0001 01", ErrBadReasonCode, "§2.4", 4},
	{"PUBREL reason 0x10", V5, "62 03 0001 10", ErrBadReasonCode, "§2.4", 4},
	{"SUBACK without reason codes", V311, "90 02 0001", ErrNoReasonCodes, "MQTT-3.9.3-2", 4},
	{"3.1.1 SUBACK code 0x87", V311, "90 03 0001 87", ErrBadReasonCode, "§2.4", 4},
	{"DISCONNECT reason 0x01", V5, "e0 01 01", ErrBadReasonCode, "§2.4", 2},
	{"AUTH reason 0x80", V5, "f0 01 80", ErrBadReasonCode, "§2.4", 2},
}

func TestViolations(t *testing.T) {
	for _, c := range violations {
		t.Run(c.name, func(t *testing.T) {
			in, err := hex.DecodeString(strings.ReplaceAll(c.in, " ", ""))
			require.NoError(t, err)
			var p Packet
			n, err := DecodeBytes(in, c.v, &p)
			var se *SyntaxError
			var v *Violation
			require.ErrorIs(t, err, c.want, "DecodeBytes(%s) = %d, %v; want %v", c.in, n, err, c.want)
			require.ErrorAs(t, err, &se)
			require.ErrorAs(t, err, &v)
			require.Equal(t, 0, n, "DecodeBytes(%s)", c.in)
			require.Equal(t, c.rule, v.Ref, "%v: rule", err)
			require.Equal(t, c.want.Reason, ReasonOf(err), "%v: reason", err)
			require.Equal(t, c.at, se.Offset, "%v: offset", err)
			require.Contains(t, err.Error(), c.rule, "message %q does not name %s", err, c.rule)
		})
	}
}

// TestLimits checks the count limits: one more filter, user property or
// subscription identifier than the limit is ErrTooMany, the limit itself
// decodes.
func TestLimits(t *testing.T) {
	for _, c := range []struct {
		name  string
		build func(n int) *Packet
		set   func(d *Decoder, n int)
	}{
		{"filters", func(n int) *Packet {
			p := new(Packet)
			*p = newPacket(TypeSubscribe, V5)
			p.Subscribe.PacketID = 1
			for range n {
				p.Subscribe.Subscriptions = append(p.Subscribe.Subscriptions, Subscription{Filter: []byte("a/b")})
			}
			return p
		}, func(d *Decoder, n int) { d.MaxFilters = n }},
		{"user properties", func(n int) *Packet {
			p := new(Packet)
			*p = newPacket(TypePublish, V5)
			p.Publish.Topic = []byte("t")
			for range n {
				p.Publish.Props.User = append(p.Publish.Props.User, UserProperty{[]byte("k"), []byte("v")})
			}
			return p
		}, func(d *Decoder, n int) { d.MaxUserProperties = n }},
		{"subscription ids", func(n int) *Packet {
			p := new(Packet)
			*p = newPacket(TypePublish, V5)
			p.Publish.Topic = []byte("t")
			for i := range n {
				p.Publish.Props.SubscriptionIDs = append(p.Publish.Props.SubscriptionIDs, uint32(i+1))
			}
			return p
		}, func(d *Decoder, n int) { d.MaxSubscriptionIDs = n }},
	} {
		for _, lim := range []int{0, 5} {
			d := Decoder{Version: V5}
			max := map[string]int{"filters": DefaultMaxFilters, "user properties": DefaultMaxUserProperties, "subscription ids": DefaultMaxSubscriptionIDs}[c.name]
			if lim > 0 {
				c.set(&d, lim)
				max = lim
			}
			var pk Packet
			ok := mustEncode(t, c.build(max))
			_, err := d.DecodeBytes(ok, &pk)
			require.NoError(t, err, "%s: %d at the limit", c.name, max)
			over := mustEncode(t, c.build(max+1))
			_, err = d.DecodeBytes(over, &pk)
			require.ErrorIs(t, err, ErrTooMany, "%s: %d over a limit of %d", c.name, max+1, max)
			require.Equal(t, ImplementationSpecific, ReasonOf(err), "%s: %d over a limit of %d", c.name, max+1, max)
		}
	}
}

// TestSecondConnect: a Decoder, which knows the connection, reports a
// second CONNECT; stateless Decode, which does not, decodes a CONNECT
// whatever version it is given.
func TestSecondConnect(t *testing.T) {
	in := must(hexBytes("10 0c 0004 4d515454 04 02 003c 0000"))
	for _, v := range []Version{0, V311, V5} {
		var p Packet
		n, err := DecodeBytes(in, v, &p)
		require.NoError(t, err, "Decode with version %v", v)
		require.Equal(t, len(in), n)
		require.Equal(t, TypeConnect, p.Type)
		require.Equal(t, V311, p.Version)
	}
	d := Decoder{}
	var p Packet
	_, err := d.DecodeBytes(in, &p)
	require.NoError(t, err)
	_, err = d.DecodeBytes(in, &p)
	require.ErrorIs(t, err, ErrSecondConnect)
	var se *SyntaxError
	require.ErrorAs(t, err, &se)
	require.Equal(t, 0, se.Offset)

	c := buf.NewComposite()
	defer c.Release()
	r := buf.Get(len(in))
	r.Write(in)
	c.Append(r)
	d = Decoder{Version: V5}
	require.ErrorIs(t, d.Decode(c, &p), ErrSecondConnect)
}
