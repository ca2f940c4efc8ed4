package mqtt_test

// Interoperability with a real broker: each test starts its own mosquitto
// (broker_linux_test.go) and talks to it through net.Conn with nothing but
// this package's Encoder and Decoder (interop_client_linux_test.go). Run
// with -v to see the trace of every packet exchanged.

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/netkit/netkit/codec/mqtt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bothVersions runs f as a parallel subtest for MQTT 3.1.1 and 5.0.
func bothVersions(t *testing.T, f func(t *testing.T, v mqtt.Version)) {
	for _, v := range []mqtt.Version{mqtt.V311, mqtt.V5} {
		t.Run(versionName(v), func(t *testing.T) {
			t.Parallel()
			f(t, v)
		})
	}
}

func versionName(v mqtt.Version) string {
	if v == mqtt.V5 {
		return "v5"
	}
	return "v311"
}

func userProps(kv ...string) []mqtt.UserProperty {
	var u []mqtt.UserProperty
	for i := 0; i+1 < len(kv); i += 2 {
		u = append(u, mqtt.UserProperty{Key: []byte(kv[i]), Value: []byte(kv[i+1])})
	}
	return u
}

func equalUser(a, b []mqtt.UserProperty) bool {
	return slices.EqualFunc(a, b, func(x, y mqtt.UserProperty) bool {
		return bytes.Equal(x.Key, y.Key) && bytes.Equal(x.Value, y.Value)
	})
}

// TestInteropConnect: mosquitto accepts our CONNECT and we decode its
// CONNACK; in v5, the properties mosquitto announces (a client identifier
// it assigns for an empty one, Receive Maximum, Topic Alias Maximum and the
// Maximum Packet Size of the harness's configuration).
func TestInteropConnect(t *testing.T) {
	bothVersions(t, func(t *testing.T, v mqtt.Version) {
		b := startBroker(t)
		c := dial(t, b, "client", v)
		if v == mqtt.V311 {
			ack := c.connect("netkit-connect", nil)
			assert.False(t, ack.SessionPresent, "CONNACK session present after a clean session")
			return
		}
		ack := c.connect("", func(c *mqtt.Connect) {
			c.Props.SessionExpiry = 0
			c.Props.Present.Add(mqtt.PropSessionExpiry)
		})
		ps := &ack.Props
		assert.True(t, ps.Present.Has(mqtt.PropAssignedClientID), "CONNACK without an assigned client id")
		assert.True(t, bytes.HasPrefix(ps.AssignedClientID, []byte("auto-")), "CONNACK assigned client id %q, want mosquitto's auto-…", ps.AssignedClientID)
		for _, want := range []struct {
			id   mqtt.PropID
			name string
			got  uint32
			want uint32
		}{
			{mqtt.PropReceiveMaximum, "receive maximum", uint32(ps.ReceiveMaximum), 20},           // max_inflight_messages
			{mqtt.PropTopicAliasMaximum, "topic alias maximum", uint32(ps.TopicAliasMaximum), 10}, // max_topic_alias
			{mqtt.PropMaximumPacketSize, "maximum packet size", ps.MaximumPacketSize, 1 << 20},    // max_packet_size
		} {
			assert.True(t, ps.Present.Has(want.id), "CONNACK without %s", want.name)
			assert.Equal(t, want.want, want.got, "CONNACK %s", want.name)
		}
		c.send(&mqtt.Packet{Type: mqtt.TypeDisconnect})
		c.expectClosed()
	})
}

// TestInteropPublish: a subscriber (v5: two overlapping subscriptions with
// subscription identifiers 7 and 9) and a publisher that sends one message
// at each of QoS 0, 1 and 2 with the full acknowledgement flow; the
// subscriber receives each delivery with the topic, payload, QoS, user
// properties (in order) and subscription identifiers, and acknowledges it
// at its QoS.
func TestInteropPublish(t *testing.T) {
	bothVersions(t, func(t *testing.T, v mqtt.Version) {
		b := startBroker(t)
		sub := dial(t, b, "sub", v)
		sub.connect("netkit-sub", nil)
		wantIDs := [][]uint32{nil} // the subscription identifiers of each delivery of one message
		if v == mqtt.V5 {
			sub.subscribe(1, "interop/#", 7)
			sub.subscribe(2, "interop/+", 9)
			wantIDs = [][]uint32{{7}, {9}}
		} else {
			sub.subscribe(1, "interop/#", 0)
		}

		pub := dial(t, b, "pub", v)
		pub.connect("netkit-pub", nil)
		for qos := byte(0); qos <= 2; qos++ {
			msg := mqtt.Publish{
				QoS:     qos,
				Topic:   []byte("interop/qos" + strconv.Itoa(int(qos))),
				Payload: []byte(fmt.Sprintf("message at QoS %d", qos)),
			}
			if qos > 0 {
				msg.PacketID = uint16(100 + qos)
			}
			if v == mqtt.V5 {
				msg.Props.User = userProps("qos", strconv.Itoa(int(qos)), "k", "first", "k", "second")
			}
			pub.publish(msg)

			got := sub.receive(len(wantIDs))
			var ids [][]uint32
			for _, d := range got {
				assert.Equal(t, string(msg.Topic), string(d.Topic), "delivery topic")
				assert.Equal(t, string(msg.Payload), string(d.Payload), "delivery payload")
				assert.Equal(t, qos, d.QoS, "delivery QoS")
				assert.False(t, d.Retain, "delivery retained")
				assert.False(t, qos > 0 && d.PacketID == 0, "delivery at QoS %d without a packet identifier", qos)
				assert.True(t, equalUser(d.Props.User, msg.Props.User), "delivery user properties %q, want %q in order", d.Props.User, msg.Props.User)
				ids = append(ids, d.Props.SubscriptionIDs)
			}
			// mosquitto 2.0 sends one copy per matching subscription, each
			// with its own identifier, in no fixed order; the spec also
			// allows one copy carrying both [MQTT-3.3.4-3…5].
			slices.SortFunc(ids, slices.Compare)
			assert.True(t, slices.EqualFunc(ids, wantIDs, slices.Equal), "QoS %d: subscription identifiers per delivery %v, want %v", qos, ids, wantIDs)
		}
		sub.ping() // nothing else was delivered
	})
}

// TestInteropPublishProperties: the v5 properties of a PUBLISH that a
// broker forwards — payload format, message expiry, content type, response
// topic, correlation data, user properties — reach the subscriber unchanged
// (the expiry less the seconds the message waited).
func TestInteropPublishProperties(t *testing.T) {
	t.Parallel()
	b := startBroker(t)
	sub := dial(t, b, "sub", mqtt.V5)
	sub.connect("netkit-sub", nil)
	sub.subscribe(1, "interop/props", 7)
	pub := dial(t, b, "pub", mqtt.V5)
	pub.connect("netkit-pub", nil)

	msg := mqtt.Publish{QoS: 1, PacketID: 1, Topic: []byte("interop/props"), Payload: []byte(`{"temp": 21.5}`)}
	ps := &msg.Props
	ps.PayloadFormat = 1
	ps.MessageExpiry = 3600
	ps.ContentType = []byte("application/json")
	ps.ResponseTopic = []byte("interop/reply/π")
	ps.CorrelationData = []byte{0, 1, 2, 0xff}
	for _, id := range []mqtt.PropID{mqtt.PropPayloadFormat, mqtt.PropMessageExpiry, mqtt.PropContentType,
		mqtt.PropResponseTopic, mqtt.PropCorrelationData} {
		ps.Present.Add(id)
	}
	ps.User = userProps("a", "1", "b", "2", "a", "3", "empty", "")
	pub.publish(msg)

	d := sub.receive(1)[0]
	got := &d.Props
	assert.True(t, got.Present.Has(mqtt.PropPayloadFormat), "no payload format")
	assert.Equal(t, byte(1), got.PayloadFormat, "payload format")
	assert.True(t, got.Present.Has(mqtt.PropMessageExpiry), "no message expiry")
	assert.LessOrEqual(t, got.MessageExpiry, uint32(3600), "message expiry: 3600 less the seconds it waited")
	assert.GreaterOrEqual(t, got.MessageExpiry, uint32(3590), "message expiry: 3600 less the seconds it waited")
	for _, f := range []struct {
		id        mqtt.PropID
		name      string
		got, want []byte
	}{
		{mqtt.PropContentType, "content type", got.ContentType, ps.ContentType},
		{mqtt.PropResponseTopic, "response topic", got.ResponseTopic, ps.ResponseTopic},
		{mqtt.PropCorrelationData, "correlation data", got.CorrelationData, ps.CorrelationData},
	} {
		assert.True(t, got.Present.Has(f.id), "no %s", f.name)
		assert.Equal(t, string(f.want), string(f.got), f.name)
	}
	assert.True(t, equalUser(got.User, ps.User), "user properties %q, want %q in order", got.User, ps.User)
	assert.Equal(t, []uint32{7}, got.SubscriptionIDs, "subscription identifiers")
	assert.Equal(t, msg.Payload, d.Payload, "payload %q, want %q", d.Payload, msg.Payload)
}

// TestInteropLargePayload: a 300,000-byte PUBLISH reaches the subscriber
// in many reads, which the Decoder joins from the composite, intact. In v5
// our Encoder takes the broker's Maximum Packet Size from its CONNACK and
// refuses a larger PUBLISH with ErrPacketTooLarge instead of sending it.
func TestInteropLargePayload(t *testing.T) {
	bothVersions(t, func(t *testing.T, v mqtt.Version) {
		b := startBroker(t)
		sub := dial(t, b, "sub", v)
		sub.connect("netkit-sub", nil)
		sub.subscribe(1, "interop/large", 0)
		pub := dial(t, b, "pub", v)
		ack := pub.connect("netkit-pub", nil)

		payload := make([]byte, 300_000)
		for i := range payload {
			payload[i] = byte(i * 7)
		}
		pub.publish(mqtt.Publish{QoS: 1, PacketID: 1, Topic: []byte("interop/large"), Payload: payload})
		reads := sub.reads
		d := sub.receive(1)[0]
		reads = sub.reads - reads
		t.Logf("sub: the delivery took %d reads of at most %d bytes", reads, readSize)
		assert.Equal(t, payload, d.Payload, "delivered payload of %d bytes differs from the %d sent", len(d.Payload), len(payload))
		assert.GreaterOrEqual(t, reads, len(payload)/readSize, "the delivery took %d reads, want at least %d: the test lost its point", reads, len(payload)/readSize)
		sub.ping()

		if v == mqtt.V5 {
			pub.enc.MaxPacketSize = int(ack.Props.MaximumPacketSize)
			big := mqtt.Publish{QoS: 1, PacketID: 2, Topic: []byte("interop/large"), Payload: make([]byte, 1<<20)}
			_, err := pub.enc.AppendPublish(nil, &big)
			assert.ErrorIs(t, err, mqtt.ErrPacketTooLarge, "encoding a PUBLISH over the broker's maximum packet size %d", pub.enc.MaxPacketSize)
		}
	})
}

// TestInteropUnsubscribe: UNSUBSCRIBE → UNSUBACK (v5: reason Success), after
// which a message published (and acknowledged) on the topic is not
// delivered: a PINGREQ sent afterwards gets its PINGRESP first.
func TestInteropUnsubscribe(t *testing.T) {
	bothVersions(t, func(t *testing.T, v mqtt.Version) {
		b := startBroker(t)
		sub := dial(t, b, "sub", v)
		sub.connect("netkit-sub", nil)
		sub.subscribe(1, "interop/unsub", 0)
		sub.send(&mqtt.Packet{Type: mqtt.TypeUnsubscribe, Unsubscribe: &mqtt.Unsubscribe{
			PacketID: 2, Filters: [][]byte{[]byte("interop/unsub")},
		}})
		ack := sub.expect(mqtt.TypeUnsuback)
		want := []mqtt.ReasonCode(nil)
		if v == mqtt.V5 {
			want = []mqtt.ReasonCode{0}
		}
		assert.Equal(t, uint16(2), ack.Suback.PacketID, "got %s", describe(ack))
		assert.True(t, slices.Equal(ack.Suback.Reasons, want), "got %s, want reasons %x", describe(ack), want) // nil and empty alike
		pub := dial(t, b, "pub", v)
		pub.connect("netkit-pub", nil)
		// v5: the broker's PUBACK says nobody subscribed.
		pub.publishWant(mqtt.Publish{QoS: 1, PacketID: 1, Topic: []byte("interop/unsub"), Payload: []byte("nobody")},
			mqtt.NoMatchingSubscribers)
		sub.ping()
	})
}

// TestInteropWillAndDisconnect: DISCONNECT ends a session, and the broker
// closes the connection. A v5 DISCONNECT with reason 0x04 (Disconnect with
// Will Message) makes the broker publish the client's will, which a
// subscriber receives with the will's properties; a v3.1.1 DISCONNECT
// discards it [MQTT-3.14.4-3].
func TestInteropWillAndDisconnect(t *testing.T) {
	bothVersions(t, func(t *testing.T, v mqtt.Version) {
		b := startBroker(t)
		sub := dial(t, b, "sub", v)
		sub.connect("netkit-sub", nil)
		sub.subscribe(1, "interop/will", 0)

		c := dial(t, b, "client", v)
		c.connect("netkit-will", func(c *mqtt.Connect) {
			c.WillFlag = true
			c.WillQoS = 1
			c.WillTopic = []byte("interop/will")
			c.WillPayload = []byte("client gone")
			if v == mqtt.V5 {
				c.WillProps.ContentType = []byte("text/plain")
				c.WillProps.Present.Add(mqtt.PropContentType)
				c.WillProps.User = userProps("why", "test")
			}
		})
		c.ping()
		d := &mqtt.Packet{Type: mqtt.TypeDisconnect, Disconnect: new(mqtt.Disconnect)}
		if v == mqtt.V5 {
			d.Disconnect.Reason = 0x04
		}
		c.send(d)
		assert.Empty(t, c.expectClosed(), "the broker sent packets before closing")
		if v == mqtt.V311 {
			// The normal DISCONNECT discarded the will: nothing is queued
			// for sub before the PINGRESP. mosquitto has processed the
			// DISCONNECT once its log says so.
			require.True(t, b.WaitLog("Client netkit-will disconnected", 2*time.Second), "the broker's log does not show netkit-will disconnecting")
			sub.ping()
			return
		}
		will := sub.receive(1)[0]
		assert.Equal(t, "interop/will", string(will.Topic), "will topic")
		assert.Equal(t, "client gone", string(will.Payload), "will payload")
		assert.Equal(t, byte(1), will.QoS, "will QoS")
		assert.Equal(t, "text/plain", string(will.Props.ContentType), "will content type")
		assert.True(t, equalUser(will.Props.User, userProps("why", "test")), "will user properties %q", will.Props.User)
	})
}

// TestInteropRejectWildcardPublish: a PUBLISH whose topic holds a wildcard
// (which our Encoder refuses, so it is built by hand) makes mosquitto close
// the connection; in v5 it first sends a DISCONNECT with a reason code
// (0x82 Protocol Error from mosquitto 2.0; 0x90 Topic Name Invalid is the
// other the spec allows).
func TestInteropRejectWildcardPublish(t *testing.T) {
	bothVersions(t, func(t *testing.T, v mqtt.Version) {
		var enc mqtt.Encoder
		enc.Version = v
		_, err := enc.AppendPublish(nil, &mqtt.Publish{Topic: []byte("a/+"), Payload: []byte("x")})
		assert.Error(t, err, "the Encoder accepts a PUBLISH to a/+")
		b := startBroker(t)
		c := dial(t, b, "client", v)
		c.connect("netkit-bad", nil)
		raw := []byte{0x30, 0, 0, 3, 'a', '/', '+'} // PUBLISH QoS 0, remaining length filled in below
		if v == mqtt.V5 {
			raw = append(raw, 0) // no properties
		}
		raw = append(raw, 'x')
		raw[1] = byte(len(raw) - 2)
		c.sendRaw(raw, `PUBLISH q0 topic="a/+"`)
		got := c.expectClosed()
		if v == mqtt.V311 {
			assert.Empty(t, got, "the broker sent packets before closing (3.1.1 has no DISCONNECT from the server)")
			return
		}
		var s []string
		for _, p := range got {
			s = append(s, describe(p))
		}
		if assert.Len(t, got, 1, "the broker sent %q before closing, want one DISCONNECT", s) &&
			assert.Equal(t, mqtt.TypeDisconnect, got[0].Type, "the broker sent %q before closing", s) {
			assert.Contains(t, []mqtt.ReasonCode{mqtt.ProtocolError, mqtt.TopicNameInvalid}, got[0].Disconnect.Reason,
				"the broker's DISCONNECT reason")
		}
	})
}

// TestInteropMosquittoClients: mosquitto's own clients as the other side.
// mosquitto_pub (v5, QoS 1, two user properties and a content type)
// publishes to our v5 subscriber; mosquitto_sub (3.1.1) receives a message
// our 3.1.1 client published, retained so that it does not matter when
// mosquitto_sub subscribes.
func TestInteropMosquittoClients(t *testing.T) {
	t.Parallel()
	pubBin := requireClient(t, "mosquitto_pub")
	subBin := requireClient(t, "mosquitto_sub")
	b := startBroker(t)
	port := strconv.Itoa(b.Port)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	sub := dial(t, b, "sub", mqtt.V5)
	sub.connect("netkit-sub", nil)
	sub.subscribe(1, "interop/from-mosquitto", 7)
	args := []string{"-h", "127.0.0.1", "-p", port, "-V", "5", "-q", "1", "-i", "mosquitto-pub",
		"-t", "interop/from-mosquitto", "-m", "hello from mosquitto_pub",
		"-D", "publish", "user-property", "k1", "v1",
		"-D", "publish", "user-property", "k2", "v2",
		"-D", "publish", "content-type", "text/plain"}
	t.Logf("run mosquitto_pub %q", args)
	out, err := exec.CommandContext(ctx, pubBin, args...).CombinedOutput()
	require.NoError(t, err, "mosquitto_pub\n%s", out)
	d := sub.receive(1)[0]
	assert.Equal(t, "interop/from-mosquitto", string(d.Topic), "topic from mosquitto_pub")
	assert.Equal(t, "hello from mosquitto_pub", string(d.Payload), "payload from mosquitto_pub")
	assert.Equal(t, byte(1), d.QoS, "QoS from mosquitto_pub")
	assert.True(t, equalUser(d.Props.User, userProps("k1", "v1", "k2", "v2")), "user properties from mosquitto_pub: %q", d.Props.User)
	assert.Equal(t, "text/plain", string(d.Props.ContentType), "content type from mosquitto_pub")
	assert.Equal(t, []uint32{7}, d.Props.SubscriptionIDs, "subscription identifiers of the delivery from mosquitto_pub")

	pub := dial(t, b, "pub", mqtt.V311)
	pub.connect("netkit-pub", nil)
	pub.publish(mqtt.Publish{QoS: 1, PacketID: 1, Retain: true, Topic: []byte("interop/to-mosquitto"),
		Payload: []byte("hello from netkit")})
	args = []string{"-h", "127.0.0.1", "-p", port, "-V", "mqttv311", "-q", "1", "-C", "1", "-v",
		"-i", "mosquitto-sub", "-t", "interop/to-mosquitto"}
	t.Logf("run mosquitto_sub %q", args)
	out, err = exec.CommandContext(ctx, subBin, args...).CombinedOutput()
	t.Logf("mosquitto_sub printed %q", out)
	require.NoError(t, err, "mosquitto_sub\n%s", out)
	assert.Equal(t, "interop/to-mosquitto hello from netkit\n", string(out), "what mosquitto_sub printed")
}
