package mqtt

import "strconv"

// A Version is the protocol level byte a CONNECT carries: 3 for MQTT 3.1,
// 4 for MQTT 3.1.1, 5 for MQTT 5.0.
//
// MQTT 3.1 (protocol name "MQIsdp", level 3), which brokers such as
// mosquitto still accept, is decoded and encoded by default with the rules
// and packet forms of 3.1.1 (which only clarified it): everything said of
// 3.1.1 holds for it, and its CONNECT must carry a client identifier. A
// [Decoder] with RefuseV31 set refuses it (ErrVersion).
type Version byte

// The supported protocol versions.
const (
	V31  Version = 3 // MQTT 3.1 ("MQIsdp")
	V311 Version = 4 // MQTT 3.1.1
	V5   Version = 5 // MQTT 5.0
)

// String returns "3.1", "3.1.1", "5.0" or the level in decimal.
func (v Version) String() string {
	switch v {
	case V31:
		return "3.1"
	case V311:
		return "3.1.1"
	case V5:
		return "5.0"
	}
	return "level " + strconv.Itoa(int(v))
}

// A Type is a control packet type, the high nibble of the first byte.
type Type byte

// The control packet types. AUTH exists in MQTT 5.0 only.
const (
	TypeConnect     Type = 1
	TypeConnack     Type = 2
	TypePublish     Type = 3
	TypePuback      Type = 4
	TypePubrec      Type = 5
	TypePubrel      Type = 6
	TypePubcomp     Type = 7
	TypeSubscribe   Type = 8
	TypeSuback      Type = 9
	TypeUnsubscribe Type = 10
	TypeUnsuback    Type = 11
	TypePingreq     Type = 12
	TypePingresp    Type = 13
	TypeDisconnect  Type = 14
	TypeAuth        Type = 15
)

var typeNames = [...]string{
	"RESERVED", "CONNECT", "CONNACK", "PUBLISH", "PUBACK", "PUBREC", "PUBREL",
	"PUBCOMP", "SUBSCRIBE", "SUBACK", "UNSUBSCRIBE", "UNSUBACK", "PINGREQ",
	"PINGRESP", "DISCONNECT", "AUTH",
}

// String returns the packet type's name as the specification writes it
// ("PUBLISH").
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "type " + strconv.Itoa(int(t))
}

// flags is the value the low nibble of the first byte must have for every
// type but PUBLISH, whose nibble carries DUP, QoS and RETAIN
// [MQTT-2.1.3-1].
func (t Type) flags() byte {
	switch t {
	case TypePubrel, TypeSubscribe, TypeUnsubscribe:
		return 0b0010
	}
	return 0
}
