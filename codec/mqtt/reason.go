package mqtt

import "strconv"

// A ReasonCode is the one-byte result MQTT 5.0 acknowledgements, CONNACK,
// DISCONNECT and AUTH carry. Codes below 0x80 report success; 0x80 and
// above report failure. In MQTT 3.1.1 a CONNACK carries a return code
// (0 to 5) and a SUBACK granted QoS values or 0x80, in the same field.
type ReasonCode byte

// The reason codes of MQTT 5.0 (§2.4). Some values have several names in
// the specification; the aliases below give the names the packets use.
const (
	Success                     ReasonCode = 0x00
	NormalDisconnection         ReasonCode = 0x00
	GrantedQoS0                 ReasonCode = 0x00
	GrantedQoS1                 ReasonCode = 0x01
	GrantedQoS2                 ReasonCode = 0x02
	DisconnectWithWill          ReasonCode = 0x04
	NoMatchingSubscribers       ReasonCode = 0x10
	NoSubscriptionExisted       ReasonCode = 0x11
	ContinueAuthentication      ReasonCode = 0x18
	ReAuthenticate              ReasonCode = 0x19
	UnspecifiedError            ReasonCode = 0x80
	MalformedPacket             ReasonCode = 0x81
	ProtocolError               ReasonCode = 0x82
	ImplementationSpecific      ReasonCode = 0x83
	UnsupportedProtocolVersion  ReasonCode = 0x84
	ClientIDNotValid            ReasonCode = 0x85
	BadUsernameOrPassword       ReasonCode = 0x86
	NotAuthorized               ReasonCode = 0x87
	ServerUnavailable           ReasonCode = 0x88
	ServerBusy                  ReasonCode = 0x89
	Banned                      ReasonCode = 0x8A
	ServerShuttingDown          ReasonCode = 0x8B
	BadAuthenticationMethod     ReasonCode = 0x8C
	KeepAliveTimeout            ReasonCode = 0x8D
	SessionTakenOver            ReasonCode = 0x8E
	TopicFilterInvalid          ReasonCode = 0x8F
	TopicNameInvalid            ReasonCode = 0x90
	PacketIDInUse               ReasonCode = 0x91
	PacketIDNotFound            ReasonCode = 0x92
	ReceiveMaximumExceeded      ReasonCode = 0x93
	TopicAliasInvalid           ReasonCode = 0x94
	PacketTooLarge              ReasonCode = 0x95
	MessageRateTooHigh          ReasonCode = 0x96
	QuotaExceeded               ReasonCode = 0x97
	AdministrativeAction        ReasonCode = 0x98
	PayloadFormatInvalid        ReasonCode = 0x99
	RetainNotSupported          ReasonCode = 0x9A
	QoSNotSupported             ReasonCode = 0x9B
	UseAnotherServer            ReasonCode = 0x9C
	ServerMoved                 ReasonCode = 0x9D
	SharedSubsNotSupported      ReasonCode = 0x9E
	ConnectionRateExceeded      ReasonCode = 0x9F
	MaximumConnectTime          ReasonCode = 0xA0
	SubscriptionIDsNotSupported ReasonCode = 0xA1
	WildcardSubsNotSupported    ReasonCode = 0xA2
)

var reasonNames = map[ReasonCode]string{
	0x00: "success", 0x01: "granted QoS 1", 0x02: "granted QoS 2",
	0x04: "disconnect with will message", 0x10: "no matching subscribers",
	0x11: "no subscription existed", 0x18: "continue authentication",
	0x19: "re-authenticate", 0x80: "unspecified error", 0x81: "malformed packet",
	0x82: "protocol error", 0x83: "implementation specific error",
	0x84: "unsupported protocol version", 0x85: "client identifier not valid",
	0x86: "bad user name or password", 0x87: "not authorized",
	0x88: "server unavailable", 0x89: "server busy", 0x8A: "banned",
	0x8B: "server shutting down", 0x8C: "bad authentication method",
	0x8D: "keep alive timeout", 0x8E: "session taken over",
	0x8F: "topic filter invalid", 0x90: "topic name invalid",
	0x91: "packet identifier in use", 0x92: "packet identifier not found",
	0x93: "receive maximum exceeded", 0x94: "topic alias invalid",
	0x95: "packet too large", 0x96: "message rate too high",
	0x97: "quota exceeded", 0x98: "administrative action",
	0x99: "payload format invalid", 0x9A: "retain not supported",
	0x9B: "QoS not supported", 0x9C: "use another server", 0x9D: "server moved",
	0x9E: "shared subscriptions not supported",
	0x9F: "connection rate exceeded", 0xA0: "maximum connect time",
	0xA1: "subscription identifiers not supported",
	0xA2: "wildcard subscriptions not supported",
}

// String returns the code's name in lower case with its value
// ("packet too large (0x95)").
func (r ReasonCode) String() string {
	name, ok := reasonNames[r]
	if !ok {
		name = "reason"
	}
	return name + " (0x" + strconv.FormatUint(uint64(r)|0x100, 16)[1:] + ")"
}

// The return codes of an MQTT 3.1.1 (and 3.1) CONNACK, which its Reason
// field holds.
const (
	Accepted                     ReasonCode = 0
	RefusedProtocolVersion       ReasonCode = 1
	RefusedIdentifierRejected    ReasonCode = 2
	RefusedServerUnavailable     ReasonCode = 3
	RefusedBadUsernameOrPassword ReasonCode = 4
	RefusedNotAuthorized         ReasonCode = 5
)

// ReturnCode returns the MQTT 3.1.1 (and 3.1) CONNACK return code that
// says what the MQTT 5.0 reason code r says, for a server refusing a
// 3.1.1 client: Accepted for Success, RefusedProtocolVersion for
// UnsupportedProtocolVersion, RefusedIdentifierRejected for
// ClientIDNotValid, RefusedServerUnavailable for the server's own
// conditions (unavailable, busy, shutting down, moved, rate or quota
// exceeded), RefusedBadUsernameOrPassword, and RefusedNotAuthorized for
// NotAuthorized, Banned and BadAuthenticationMethod.
//
// ok is false when no return code applies: a malformed CONNECT or a
// protocol error, for which 3.1.1 has the server close the connection
// without a CONNACK ([MQTT-3.1.4-1], [MQTT-3.2.2-6]).
func ReturnCode(r ReasonCode) (code ReasonCode, ok bool) {
	switch r {
	case Success:
		return Accepted, true
	case UnsupportedProtocolVersion:
		return RefusedProtocolVersion, true
	case ClientIDNotValid:
		return RefusedIdentifierRejected, true
	case ServerUnavailable, ServerBusy, ServerShuttingDown, UseAnotherServer, ServerMoved,
		ConnectionRateExceeded, QuotaExceeded:
		return RefusedServerUnavailable, true
	case BadUsernameOrPassword:
		return RefusedBadUsernameOrPassword, true
	case NotAuthorized, Banned, BadAuthenticationMethod:
		return RefusedNotAuthorized, true
	}
	return 0, false
}

// ReturnCodeOf returns the 3.1.1 CONNACK return code for the error
// decoding a CONNECT returned: ReturnCode(ReasonOf(err)). A server
// answers a 3.1.1 or 3.1 client (or one whose version it refuses) with a
// CONNACK carrying code when ok, and closes the connection either way.
func ReturnCodeOf(err error) (code ReasonCode, ok bool) { return ReturnCode(ReasonOf(err)) }

// IsError reports whether r reports a failure (r >= 0x80).
func (r ReasonCode) IsError() bool { return r >= 0x80 }

// codeSet is a set of reason codes, one bit per value.
type codeSet [4]uint64

func codes(cs ...ReasonCode) codeSet {
	var s codeSet
	for _, c := range cs {
		s[c>>6] |= 1 << (c & 63)
	}
	return s
}

func (s *codeSet) has(c ReasonCode) bool { return s[c>>6]&(1<<(c&63)) != 0 }

// The reason codes each packet may carry (MQTT 5.0 §3.x.2.1).
var (
	connackCodes = codes(0x00, 0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87,
		0x88, 0x89, 0x8A, 0x8C, 0x90, 0x95, 0x97, 0x99, 0x9A, 0x9B, 0x9C, 0x9D, 0x9F)
	pubackCodes   = codes(0x00, 0x10, 0x80, 0x83, 0x87, 0x90, 0x91, 0x97, 0x99)
	pubrelCodes   = codes(0x00, 0x92)
	subackCodes   = codes(0x00, 0x01, 0x02, 0x80, 0x83, 0x87, 0x8F, 0x91, 0x97, 0x9E, 0xA1, 0xA2)
	subackCodes3  = codes(0x00, 0x01, 0x02, 0x80)
	unsubackCodes = codes(0x00, 0x11, 0x80, 0x83, 0x87, 0x8F, 0x91)
	disconnCodes  = codes(0x00, 0x04, 0x80, 0x81, 0x82, 0x83, 0x87, 0x89, 0x8B, 0x8D,
		0x8E, 0x8F, 0x90, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9A, 0x9B, 0x9C,
		0x9D, 0x9E, 0x9F, 0xA0, 0xA1, 0xA2)
	authCodes     = codes(0x00, 0x18, 0x19)
	connackCodes3 = codes(0, 1, 2, 3, 4, 5)
)
