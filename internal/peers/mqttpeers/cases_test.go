package mqttpeers

import "strings"

// A packetCase is one packet of the differential tables.
type packetCase struct {
	name string
	p    Packet
}

func user(k, v string) Prop      { return Prop{ID: PropUser, Key: k, S: v} }
func num(id byte, n uint32) Prop { return Prop{ID: id, N: n} }
func str(id byte, s string) Prop { return Prop{ID: id, S: s} }

// Topics and payloads of the benchmarks: a 21-byte topic and a 64-byte
// payload.
var (
	benchTopic   = "sensors/7/temperature"
	benchPayload = strings.Repeat("0123456789abcdef", 4)
)

// cases holds a packet of every type in both versions, with every
// property each type may carry, repeated user properties and several
// subscription identifiers on one PUBLISH.
var cases = []packetCase{
	// MQTT 3.1.1
	{"connect-311", Packet{Type: Connect, Version: V311, ProtocolName: "MQTT", CleanStart: true, KeepAlive: 60, ClientID: "client-1"}},
	{"connect-311-full", Packet{Type: Connect, Version: V311, ProtocolName: "MQTT", KeepAlive: 30, ClientID: "client-2",
		Will:        &Will{QoS: 1, Retain: true, Topic: "clients/client-2/status", Payload: "offline"},
		HasUsername: true, Username: "alice", HasPassword: true, Password: "s3cr\x00t"}},
	{"connect-311-empty-id", Packet{Type: Connect, Version: V311, ProtocolName: "MQTT", CleanStart: true}},
	{"connack-311", Packet{Type: Connack, Version: V311, SessionPresent: true}},
	{"connack-311-refused", Packet{Type: Connack, Version: V311, Reason: 5}},
	{"publish-311-qos0", Packet{Type: Publish, Version: V311, Topic: "a/b", Payload: "hello"}},
	{"publish-311-qos1", Packet{Type: Publish, Version: V311, QoS: 1, Topic: benchTopic, PacketID: 7, Payload: benchPayload}},
	{"publish-311-qos2-dup-retain", Packet{Type: Publish, Version: V311, Dup: true, QoS: 2, Retain: true, Topic: "x", PacketID: 65535, Payload: "\x00\xff"}},
	{"publish-311-empty-payload", Packet{Type: Publish, Version: V311, Retain: true, Topic: "retained/clear"}},
	{"puback-311", Packet{Type: Puback, Version: V311, PacketID: 7}},
	{"pubrec-311", Packet{Type: Pubrec, Version: V311, PacketID: 8}},
	{"pubrel-311", Packet{Type: Pubrel, Version: V311, PacketID: 8}},
	{"pubcomp-311", Packet{Type: Pubcomp, Version: V311, PacketID: 8}},
	{"subscribe-311", Packet{Type: Subscribe, Version: V311, PacketID: 1, Subs: []Sub{
		{Filter: "a/+/c", QoS: 0}, {Filter: "d/#", QoS: 1}, {Filter: "e", QoS: 2}}}},
	{"suback-311", Packet{Type: Suback, Version: V311, PacketID: 1, Reasons: []byte{0, 1, 2, 0x80}}},
	{"unsubscribe-311", Packet{Type: Unsubscribe, Version: V311, PacketID: 2, Filters: []string{"a/+/c", "d/#"}}},
	{"unsuback-311", Packet{Type: Unsuback, Version: V311, PacketID: 2}},
	{"pingreq-311", Packet{Type: Pingreq, Version: V311}},
	{"pingresp-311", Packet{Type: Pingresp, Version: V311}},
	{"disconnect-311", Packet{Type: Disconnect, Version: V311}},

	// MQTT 5.0
	{"connect-5", Packet{Type: Connect, Version: V5, ProtocolName: "MQTT", CleanStart: true, KeepAlive: 60, ClientID: "client-1"}},
	{"connect-5-props", Packet{Type: Connect, Version: V5, ProtocolName: "MQTT", KeepAlive: 30, ClientID: "client-2",
		Props: []Prop{num(PropSessionExpiry, 3600), num(PropReceiveMaximum, 100), num(PropMaximumPacketSize, 1<<20),
			num(PropTopicAliasMaximum, 10), num(PropRequestResponseInfo, 1), num(PropRequestProblemInfo, 0),
			user("region", "eu"), user("region", "us"), str(PropAuthMethod, "SCRAM-SHA-256"), str(PropAuthData, "\x01\x02")},
		HasUsername: true, Username: "alice", HasPassword: true, Password: "secret"}},
	{"connect-5-will", Packet{Type: Connect, Version: V5, ProtocolName: "MQTT", CleanStart: true, KeepAlive: 10, ClientID: "client-3",
		Will: &Will{QoS: 2, Topic: "clients/client-3/status", Payload: "gone", Props: []Prop{
			num(PropWillDelay, 5), user("why", "timeout")}}}},
	{"connect-5-will-props", Packet{Type: Connect, Version: V5, ProtocolName: "MQTT", ClientID: "client-4",
		Will: &Will{QoS: 1, Retain: true, Topic: "clients/client-4/status", Payload: `{"up":false}`, Props: []Prop{
			num(PropPayloadFormat, 1), num(PropMessageExpiry, 120), str(PropContentType, "application/json"),
			str(PropResponseTopic, "replies/4"), str(PropCorrelationData, "\x00\x01"), num(PropWillDelay, 5),
			user("a", "1"), user("b", "2")}}}},
	{"connack-5", Packet{Type: Connack, Version: V5, Props: []Prop{
		num(PropSessionExpiry, 0), num(PropReceiveMaximum, 20), num(PropMaximumQoS, 1), num(PropRetainAvailable, 0),
		num(PropMaximumPacketSize, 65536), str(PropAssignedClientID, "auto-1"), num(PropTopicAliasMaximum, 5),
		str(PropReasonString, "welcome"), user("node", "n1"), user("node", "n2"), num(PropWildcardSubAvail, 1),
		num(PropSubIDAvailable, 1), num(PropSharedSubAvailable, 0), num(PropServerKeepAlive, 120),
		str(PropResponseInfo, "replies/"), str(PropServerReference, "other:1883"),
		str(PropAuthMethod, "SCRAM-SHA-256"), str(PropAuthData, "\x03")}}},
	{"connack-5-refused", Packet{Type: Connack, Version: V5, Reason: 0x87}},
	{"publish-5-qos0", Packet{Type: Publish, Version: V5, Topic: "a/b", Payload: "hello"}},
	{"publish-5-bench", Packet{Type: Publish, Version: V5, QoS: 1, Topic: benchTopic, PacketID: 7, Payload: benchPayload,
		Props: benchPublishProps}},
	{"publish-5-props", Packet{Type: Publish, Version: V5, QoS: 2, Retain: true, Topic: "a/b", PacketID: 9, Payload: "{}",
		Props: []Prop{num(PropPayloadFormat, 1), num(PropMessageExpiry, 60), str(PropContentType, "application/json"),
			str(PropResponseTopic, "replies/9"), str(PropCorrelationData, "\xde\xad"), num(PropTopicAlias, 3),
			user("k", "v1"), user("k", "v2"), user("other", "")}}},
	{"publish-5-subid", Packet{Type: Publish, Version: V5, Topic: "a/b", Payload: "x", Props: []Prop{num(PropSubscriptionID, 268435455)}}},
	{"publish-5-subids", Packet{Type: Publish, Version: V5, QoS: 1, Topic: "a/b", PacketID: 10, Payload: "x",
		Props: []Prop{num(PropSubscriptionID, 1), num(PropSubscriptionID, 200), num(PropSubscriptionID, 268435455)}}},
	{"publish-5-alias-only", Packet{Type: Publish, Version: V5, Payload: "x", Props: []Prop{num(PropTopicAlias, 3)}}},
	{"puback-5", Packet{Type: Puback, Version: V5, PacketID: 7}},
	{"puback-5-reason", Packet{Type: Puback, Version: V5, PacketID: 7, Reason: 0x10}},
	{"puback-5-props", Packet{Type: Puback, Version: V5, PacketID: 7, Reason: 0x87,
		Props: []Prop{str(PropReasonString, "not yours"), user("a", "b"), user("a", "c")}}},
	{"pubrec-5", Packet{Type: Pubrec, Version: V5, PacketID: 8}},
	{"pubrec-5-error", Packet{Type: Pubrec, Version: V5, PacketID: 8, Reason: 0x97}},
	{"pubrel-5", Packet{Type: Pubrel, Version: V5, PacketID: 8}},
	{"pubrel-5-props", Packet{Type: Pubrel, Version: V5, PacketID: 8, Reason: 0x92, Props: []Prop{str(PropReasonString, "lost")}}},
	{"pubcomp-5", Packet{Type: Pubcomp, Version: V5, PacketID: 8}},
	{"pubcomp-5-props", Packet{Type: Pubcomp, Version: V5, PacketID: 8, Props: []Prop{user("t", "1")}}},
	{"subscribe-5", Packet{Type: Subscribe, Version: V5, PacketID: 1, Subs: []Sub{{Filter: "a/b", QoS: 1}}}},
	{"subscribe-5-props", Packet{Type: Subscribe, Version: V5, PacketID: 2,
		Props: []Prop{num(PropSubscriptionID, 7), user("u", "1"), user("u", "2")},
		Subs: []Sub{{Filter: "a/+/c", QoS: 0, NoLocal: true}, {Filter: "d/#", QoS: 1, RetainAsPublished: true, RetainHandling: 1},
			{Filter: "$share/g/e", QoS: 2, RetainHandling: 2}}}},
	{"suback-5", Packet{Type: Suback, Version: V5, PacketID: 2, Reasons: []byte{0, 1, 2, 0x8F},
		Props: []Prop{str(PropReasonString, "one filter is invalid"), user("x", "y")}}},
	{"unsubscribe-5", Packet{Type: Unsubscribe, Version: V5, PacketID: 3, Filters: []string{"a/+/c", "d/#"},
		Props: []Prop{user("u", "1")}}},
	{"unsuback-5", Packet{Type: Unsuback, Version: V5, PacketID: 3, Reasons: []byte{0x00, 0x11},
		Props: []Prop{str(PropReasonString, "one was not there")}}},
	{"pingreq-5", Packet{Type: Pingreq, Version: V5}},
	{"pingresp-5", Packet{Type: Pingresp, Version: V5}},
	{"disconnect-5", Packet{Type: Disconnect, Version: V5}},
	{"disconnect-5-reason", Packet{Type: Disconnect, Version: V5, Reason: 0x04}},
	{"disconnect-5-props", Packet{Type: Disconnect, Version: V5, Reason: 0x8B, Props: []Prop{num(PropSessionExpiry, 0),
		str(PropReasonString, "shutting down"), str(PropServerReference, "other:1883"), user("a", "b")}}},
	{"auth-5", Packet{Type: Auth, Version: V5, Reason: 0x18, Props: []Prop{str(PropAuthMethod, "SCRAM-SHA-256"),
		str(PropAuthData, "\x00\x01\x02"), str(PropReasonString, "continue"), user("a", "b")}}},
}

// benchPublishProps are the three properties of the 5.0 PUBLISH of the
// benchmarks: Content Type, Message Expiry Interval and one User Property.
var benchPublishProps = []Prop{str(PropContentType, "application/json"), num(PropMessageExpiry, 3600), user("trace", "4bf92f3577b34da6")}
