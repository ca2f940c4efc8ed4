package mqtt_test

import (
	"errors"
	"fmt"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec/mqtt"
)

// A client encodes its CONNECT and a QoS 1 PUBLISH; a server decodes them
// from the bytes as they arrive, in one composite of reads.
func Example() {
	var wire []byte
	connect := mqtt.Connect{Version: mqtt.V5, CleanStart: true, KeepAlive: 30, ClientID: []byte("sensor-7")}
	enc := mqtt.Encoder{Version: connect.Version}
	wire, _ = enc.AppendConnect(wire, &connect)
	pub := mqtt.Publish{QoS: 1, PacketID: 1, Topic: []byte("site/3/temp"), Payload: []byte("21.5")}
	pub.Props.User = []mqtt.UserProperty{{Key: []byte("unit"), Value: []byte("C")}}
	wire, _ = enc.AppendPublish(wire, &pub)

	// The server's side: two reads, cut in the middle of the PUBLISH.
	in := buf.NewComposite()
	defer in.Release()
	var d mqtt.Decoder
	var pk mqtt.Packet
	defer pk.Release()
	for _, read := range [][]byte{wire[:30], wire[30:]} {
		b := buf.Get(len(read))
		b.Write(read)
		in.Append(b)
		for {
			err := d.Decode(in, &pk)
			if err == mqtt.ErrShort {
				break
			}
			if err != nil {
				fmt.Println("close with", mqtt.ReasonOf(err))
				return
			}
			switch pk.Type {
			case mqtt.TypeConnect:
				fmt.Printf("CONNECT %s, MQTT %v\n", pk.Connect.ClientID, pk.Connect.Version)
			case mqtt.TypePublish:
				p := pk.Publish
				fmt.Printf("PUBLISH %s %s qos=%d unit=%s\n", p.Topic, p.Payload, p.QoS, p.Props.User[0].Value)
			}
		}
	}
	// Output:
	// CONNECT sensor-7, MQTT 5.0
	// PUBLISH site/3/temp 21.5 qos=1 unit=C
}

// Decoding rejects what the specification forbids, with the reason code to
// send and the rule broken.
func ExampleDecodeBytes() {
	// A PUBLISH whose topic holds a wildcard.
	in := []byte{0x30, 0x05, 0x00, 0x03, 'a', '/', '#'}
	var pk mqtt.Packet
	_, err := mqtt.DecodeBytes(in, mqtt.V5, &pk)
	fmt.Println(err)
	fmt.Println(errors.Is(err, mqtt.ErrTopicWildcard), mqtt.ReasonOf(err))

	// The 256 MB remaining length is refused from its 5 bytes.
	_, err = mqtt.DecodeBytes([]byte{0x10, 0xff, 0xff, 0xff, 0x7f}, 0, &pk)
	fmt.Println(err)
	// Output:
	// mqtt: wildcard in a topic name [MQTT-3.3.2-2] at offset 4
	// true protocol error (0x82)
	// mqtt: packet larger than the maximum packet size [MQTT-3.2.2-15] at offset 1
}

// An Encoder refuses to write what the peer would have to reject: a
// *mqtt.FieldError names the field at fault.
func ExampleEncoder() {
	enc := mqtt.Encoder{Version: mqtt.V311, MaxPacketSize: 64}
	_, err := enc.AppendPublish(nil, &mqtt.Publish{Topic: []byte("a/+")})
	fmt.Println(err)
	var fe *mqtt.FieldError
	if errors.As(err, &fe) {
		fmt.Printf("field %q, %v\n", fe.Field, errors.Is(err, mqtt.ErrTopicWildcard))
	}
	_, err = enc.AppendPublish(nil, &mqtt.Publish{Topic: []byte("a"), Payload: make([]byte, 100)})
	fmt.Println(err)
	b, _ := enc.AppendPublish(nil, &mqtt.Publish{Topic: []byte("a"), Payload: []byte("hi")})
	fmt.Printf("% x\n", b)
	// Output:
	// mqtt: wildcard in a topic name [MQTT-3.3.2-2]: topic
	// field "topic", true
	// mqtt: packet larger than the maximum packet size [MQTT-3.2.2-15]
	// 30 05 00 01 61 68 69
}
