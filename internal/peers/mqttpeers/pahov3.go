package mqttpeers

import (
	"bytes"
	"fmt"

	p3 "github.com/eclipse/paho.mqtt.golang/packets"
)

// PahoV3 is the packets package of eclipse/paho.mqtt.golang, MQTT 3.1.1
// only (no AUTH, no properties).
//
// Encode writes with the packet's Write, as paho.mqtt.golang's client does;
// Decode reads with packets.ReadPacket from a bytes.Reader, as its client
// reads from its connection.
var PahoV3 = &Impl{Name: "pahov3", Versions: []byte{V311}, Encode: pahoV3Encode, Decode: pahoV3Decode}

func pahoV3Encode(p *Packet) ([]byte, error) {
	if p.Version != V311 {
		return nil, inexpressible("pahov3", "protocol level %d", p.Version)
	}
	if len(p.Props) > 0 || (p.Will != nil && len(p.Will.Props) > 0) {
		return nil, inexpressible("pahov3", "properties")
	}
	cp := p3.NewControlPacket(p.Type)
	if cp == nil {
		return nil, inexpressible("pahov3", "packet type %d", p.Type)
	}
	ackReason := func() error {
		if p.Reason != 0 {
			return inexpressible("pahov3", "a reason code on %s", TypeName(p.Type))
		}
		return nil
	}
	switch c := cp.(type) {
	case *p3.ConnectPacket:
		c.ProtocolName, c.ProtocolVersion, c.CleanSession, c.Keepalive = p.ProtocolName, p.Version, p.CleanStart, p.KeepAlive
		c.ClientIdentifier = p.ClientID
		c.UsernameFlag, c.Username = p.HasUsername, p.Username
		c.PasswordFlag, c.Password = p.HasPassword, []byte(p.Password)
		if w := p.Will; w != nil {
			c.WillFlag, c.WillQos, c.WillRetain, c.WillTopic, c.WillMessage = true, w.QoS, w.Retain, w.Topic, []byte(w.Payload)
		}
	case *p3.ConnackPacket:
		c.SessionPresent, c.ReturnCode = p.SessionPresent, p.Reason
	case *p3.PublishPacket:
		c.Dup, c.Qos, c.Retain = p.Dup, p.QoS, p.Retain
		c.TopicName, c.MessageID, c.Payload = p.Topic, p.PacketID, []byte(p.Payload)
	case *p3.PubackPacket:
		c.MessageID = p.PacketID
		if err := ackReason(); err != nil {
			return nil, err
		}
	case *p3.PubrecPacket:
		c.MessageID = p.PacketID
		if err := ackReason(); err != nil {
			return nil, err
		}
	case *p3.PubrelPacket:
		c.MessageID = p.PacketID
		if err := ackReason(); err != nil {
			return nil, err
		}
	case *p3.PubcompPacket:
		c.MessageID = p.PacketID
		if err := ackReason(); err != nil {
			return nil, err
		}
	case *p3.SubscribePacket:
		c.MessageID = p.PacketID
		for _, s := range p.Subs {
			if s.NoLocal || s.RetainAsPublished || s.RetainHandling != 0 {
				return nil, inexpressible("pahov3", "5.0 subscription options")
			}
			c.Topics, c.Qoss = append(c.Topics, s.Filter), append(c.Qoss, s.QoS)
		}
	case *p3.SubackPacket:
		c.MessageID, c.ReturnCodes = p.PacketID, p.Reasons
	case *p3.UnsubscribePacket:
		c.MessageID, c.Topics = p.PacketID, p.Filters
	case *p3.UnsubackPacket:
		c.MessageID = p.PacketID
		if len(p.Reasons) > 0 {
			return nil, inexpressible("pahov3", "reason codes on UNSUBACK")
		}
	case *p3.DisconnectPacket:
		if err := ackReason(); err != nil {
			return nil, err
		}
	}
	var b bytes.Buffer
	if err := cp.Write(&b); err != nil {
		return nil, fmt.Errorf("pahov3: %w", err)
	}
	return b.Bytes(), nil
}

func pahoV3Decode(b []byte, v byte) (p *Packet, n int, err error) {
	defer recoverInto("pahov3", &err)
	r := bytes.NewReader(b)
	cp, err := p3.ReadPacket(r)
	if err != nil {
		return nil, 0, err
	}
	return fromPahoV3(cp, v), len(b) - r.Len(), nil
}

func fromPahoV3(cp p3.ControlPacket, v byte) *Packet {
	p := &Packet{Version: v}
	switch c := cp.(type) {
	case *p3.ConnectPacket:
		p.Type, p.Version = Connect, c.ProtocolVersion
		p.ProtocolName, p.CleanStart, p.KeepAlive, p.ClientID = c.ProtocolName, c.CleanSession, c.Keepalive, c.ClientIdentifier
		p.HasUsername, p.Username = c.UsernameFlag, c.Username
		p.HasPassword, p.Password = c.PasswordFlag, string(c.Password)
		if c.WillFlag {
			p.Will = &Will{QoS: c.WillQos, Retain: c.WillRetain, Topic: c.WillTopic, Payload: string(c.WillMessage)}
		}
	case *p3.ConnackPacket:
		p.Type, p.SessionPresent, p.Reason = Connack, c.SessionPresent, c.ReturnCode
	case *p3.PublishPacket:
		p.Type, p.Dup, p.QoS, p.Retain = Publish, c.Dup, c.Qos, c.Retain
		p.Topic, p.PacketID, p.Payload = c.TopicName, c.MessageID, string(c.Payload)
	case *p3.PubackPacket:
		p.Type, p.PacketID = Puback, c.MessageID
	case *p3.PubrecPacket:
		p.Type, p.PacketID = Pubrec, c.MessageID
	case *p3.PubrelPacket:
		p.Type, p.PacketID = Pubrel, c.MessageID
	case *p3.PubcompPacket:
		p.Type, p.PacketID = Pubcomp, c.MessageID
	case *p3.SubscribePacket:
		p.Type, p.PacketID = Subscribe, c.MessageID
		for i, t := range c.Topics {
			p.Subs = append(p.Subs, Sub{Filter: t, QoS: c.Qoss[i]})
		}
	case *p3.SubackPacket:
		p.Type, p.PacketID, p.Reasons = Suback, c.MessageID, append([]byte(nil), c.ReturnCodes...)
	case *p3.UnsubscribePacket:
		p.Type, p.PacketID, p.Filters = Unsubscribe, c.MessageID, c.Topics
	case *p3.UnsubackPacket:
		p.Type, p.PacketID = Unsuback, c.MessageID
	case *p3.PingreqPacket:
		p.Type = Pingreq
	case *p3.PingrespPacket:
		p.Type = Pingresp
	case *p3.DisconnectPacket:
		p.Type = Disconnect
	}
	return p
}
