package mqtt_test

import (
	"fmt"

	"github.com/netkit/netkit/codec/mqtt"
)

// A broker that serves only MQTT 3.1.1 and 5.0 refuses an MQTT 3.1
// client (RefuseV31) and answers it the way 3.1 clients understand: a
// CONNACK with the 3.1.1 return code for the refusal, then a close. An
// error with no return code (a malformed CONNECT) is answered by closing
// without a CONNACK.
func ExampleReturnCodeOf() {
	old := mqtt.Connect{Version: mqtt.V31, CleanStart: true, KeepAlive: 60, ClientID: []byte("legacy-1")}
	enc := mqtt.Encoder{Version: mqtt.V31}
	wire, _ := enc.AppendConnect(nil, &old)

	d := mqtt.Decoder{RefuseV31: true}
	var pk mqtt.Packet
	defer pk.Release()
	_, err := d.DecodeBytes(wire, &pk)
	fmt.Println("refused:", err != nil)
	if code, ok := mqtt.ReturnCodeOf(err); ok {
		ack := mqtt.Encoder{Version: mqtt.V311}
		connack, _ := ack.AppendConnack(nil, &mqtt.Connack{Reason: code})
		fmt.Printf("CONNACK % x, then close\n", connack)
	}

	_, err = d.DecodeBytes([]byte{0x10, 0x02, 0x00, 0x04}, &pk) // a truncated CONNECT body
	_, ok := mqtt.ReturnCodeOf(err)
	fmt.Println("malformed: CONNACK?", ok)
	// Output:
	// refused: true
	// CONNACK 20 02 00 01, then close
	// malformed: CONNACK? false
}
