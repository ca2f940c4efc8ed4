// Package mqtt encodes and decodes the control packets of MQTT 3.1.1 and
// MQTT 5.0: every packet type, every MQTT 5.0 property (repeated user
// properties and several subscription identifiers included) and the reason
// codes. MQTT 3.1 ("MQIsdp", level 3), which brokers still accept, is
// decoded and encoded too, with the 3.1.1 forms and rules, unless a
// [Decoder] sets RefuseV31. It does no I/O.
//
// # Decoding
//
// The package follows the contract of every netkit codec (see package
// codec): Decode takes a stream, DecodeBytes a slice, encoders append,
// limits are Max* fields whose zero means the default, ErrShort is
// codec.ErrShort.
//
// [DecodeBytes] decodes the packet at the front of a []byte into a
// [Packet], a reusable value filled in place: Type says which packet
// arrived and which field of the Packet holds it. A [Decoder] does the
// same for one connection, with [Decoder.DecodeBytes] over a []byte or
// [Decoder.Decode] over the *buf.Composite its reads accumulate in, and
// keeps the protocol version the connection's CONNECT announced:
//
//	var d mqtt.Decoder // a server's: the first packet must be a CONNECT
//	var pk mqtt.Packet
//	in.Append(read)
//	for {
//		err := d.Decode(in, &pk)
//		if err == mqtt.ErrShort {
//			break // wait for the next read
//		}
//		if err != nil {
//			… // send DISCONNECT with mqtt.ReasonOf(err) (MQTT 5.0), or
//			… // CONNACK with mqtt.ReturnCodeOf(err) to a 3.1.1 CONNECT; close
//		}
//		handle(&pk)
//	}
//	pk.Release()
//
// Fields alias the input; nothing is copied. With the DecodeBytes
// function and method they alias the caller's slice. With Decoder.Decode the
// Packet holds a reference to the bytes (a view of the read, or a pooled
// copy when the packet straddles reads), so the composite may be released
// while the packet is in use; the fields stay valid until the Packet is
// decoded into again or [Packet.Release] is called. [Packet.Clone] (or
// [Publish.Clone], for a retained message) detaches a packet for a caller
// that keeps it longer, allocating in proportion to the packet. Decoding
// allocates nothing in steady state: the Packet points at one value per
// packet type it has held (pk.Publish for a PUBLISH …), allocated the
// first time, and their slices (subscriptions, filters, reason codes, user
// properties, subscription identifiers) keep their arrays from one packet
// to the next.
//
// # Validation and limits
//
// Decoding checks every rule of the specifications a receiver can check
// on one packet, and each violation is a *[SyntaxError] whose Kind is one
// of the package's [*Violation] sentinels. A Violation carries the MQTT 5.0
// reason code a broker answers with (in a CONNACK or a DISCONNECT;
// [ReasonOf] extracts it from any error) and the normative statement it
// breaks, which its message quotes: "mqtt: U+0000 in a string
// [MQTT-1.5.4-2] at offset 9". [ReturnCodeOf] maps a refused CONNECT to the
// return code of an MQTT 3.1.1 CONNACK (or says there is none, and the
// connection is closed without one). The rules checked: reserved packet types
// and flag bits; Variable Byte Integers longer than 4 bytes or not in
// their shortest form; fields running past the remaining length, or bytes
// after the last field; ill-formed UTF-8 (surrogates included) and U+0000
// in strings; wildcards in topic names (PUBLISH, will, response topic);
// misplaced wildcards and bad share names in topic filters; QoS 3; DUP on
// QoS 0; packet identifier 0 where one is required; protocol name and
// level (and that they go together); CONNECT and CONNACK flag rules; an
// empty 3.1.1 client identifier without clean session; authentication data
// without a method, and an AUTH without one; subscription options; reason
// codes the packet type does not allow; unknown properties, properties
// the packet type does not allow, duplicates of properties that may appear
// once, and property values out of range.
//
// Limits bound memory before it is taken. A packet's size (default
// [DefaultMaxPacketSize], 1 MiB; at most the protocol's 256 MiB) is checked
// as soon as its fixed header is read, before its bytes are awaited, held
// or allocated: the 5 bytes 10 FF FF FF 7F are rejected with
// ErrPacketTooLarge having allocated nothing. The counts of topic filters,
// reason codes, user properties and subscription identifiers in one packet
// are capped too ([Decoder] fields), so a packet cannot make the Packet's
// slices grow beyond them.
//
// The [DecodeBytes] function keeps no state, so it decodes any CONNECT; a
// [Decoder] refuses a second one. What is left to the caller, because it needs the connection's
// state: packet-identifier reuse, topic-alias ranges, Receive Maximum, which
// direction may send which property (a client must not send a
// subscription identifier on PUBLISH), and the payload format indicator
// (a receiver may check the payload's UTF-8 itself).
//
// # Encoding
//
// An [Encoder] holds a connection's protocol version and the peer's
// maximum packet size; its AppendX methods (and [Packet.Append]) append one
// packet to a []byte. They check what they write — every rule the decoder
// checks on one packet, with the same [*Violation] (string lengths too: a
// string over 65,535 bytes is an error, never truncated; and the packet's
// size against the peer's maximum) — and return dst unchanged with an
// error rather than write a packet the peer must reject: the *Violation,
// or a *[FieldError] whose Kind is the *Violation and which names the
// field at fault (and its position in a list). FuzzEncode holds them to
// it. They allocate only when dst must grow. MQTT 5.0 acknowledgements, DISCONNECT
// and AUTH are written in their shortest form.
//
// # Testing against real peers
//
// The interoperability tests start a mosquitto broker (installed by
// .ci/run; skipped loudly when absent, a failure in CI) and talk to it
// through net.Conn with this package's encoder and decoder only: CONNECT
// in both versions, SUBSCRIBE with subscription identifiers, PUBLISH at
// QoS 0, 1 and 2 with the full acknowledgement flows and the deliveries,
// MQTT 5.0 properties forwarded unchanged, UNSUBSCRIBE, PINGREQ, DISCONNECT
// with a will, a 300 KB message, the broker's DISCONNECT 0x82 for a
// wildcard topic, mosquitto_pub and mosquitto_sub as the other client, and
// mosquitto_pub -V mqttv31 to a listener that decodes with this package.
//
// TestViolations has one malformed packet per rule (70, each with its
// statement ID, reason code and offset). In internal/peers/mqttpeers,
// differential tests run 52 packets both ways against mochi, paho.golang
// and paho.mqtt.golang — each peer's bytes decode and re-encode
// identically here, and this package's bytes in each peer — and every
// disagreement is a row of a table with its reason (byte forms the
// specification allows, and peer defects). A table of 39 inputs the
// specification forbids runs through all four with their defaults: this
// package refuses each with its rule and reason code, where the peers
// accept some (and mochi panics on one). Fuzz targets: FuzzDecode (round
// trip; slice against composite), FuzzEncode (whatever the encoder accepts
// decodes to an equal packet; a refusal leaves dst as it was),
// FuzzCheckString (against slow references) and, in the peers module,
// FuzzPeersDecode (against mochi). The tables are in
// internal/peers/mqttpeers/README.md.
package mqtt
