package mqtt_test

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec/mqtt"
	"github.com/stretchr/testify/require"
)

// ioTimeout bounds every read and write of a test client, so a broker that
// hangs fails the test instead of hanging it.
const ioTimeout = 5 * time.Second

// A testClient speaks MQTT to a broker through a net.Conn with nothing but
// netkit's Encoder and Decoder: packets go out as Encoder.Append's bytes and
// come in through a Decoder over a buf.Composite fed by the connection's
// reads. Every packet is traced in the test log ("sub → SUBSCRIBE …").
type testClient struct {
	t    testing.TB
	name string
	conn net.Conn
	enc  mqtt.Encoder
	dec  mqtt.Decoder
	in   *buf.Composite
	out  []byte
	pk   mqtt.Packet

	reads int // conn.Read calls so far, each into a fresh readSize buffer
}

// readSize is the size of the buffer each read fills; a larger packet
// reaches the Decoder in several composite components.
const readSize = 4096

// dial connects a client of protocol version v to b; it does not send a
// CONNECT. The connection and the composite are closed and released when
// the test ends.
func dial(t testing.TB, b *broker, name string, v mqtt.Version) *testClient {
	t.Helper()
	conn, err := net.DialTimeout("tcp", b.Addr, ioTimeout)
	require.NoError(t, err, "%s", name)
	c := &testClient{t: t, name: name, conn: conn, in: buf.NewComposite()}
	c.enc.Version = v
	c.dec.Version = v
	t.Cleanup(func() {
		conn.Close()
		c.pk.Release()
		c.in.Release()
	})
	return c
}

// send encodes p with the client's Encoder and writes it.
func (c *testClient) send(p *mqtt.Packet) {
	c.t.Helper()
	p.Version = c.enc.Version
	var err error
	c.out, err = c.enc.Append(c.out[:0], p)
	require.NoError(c.t, err, "%s: encoding %s", c.name, describe(p))
	c.t.Logf("%s → %s", c.name, describe(p))
	c.write(c.out)
}

// sendRaw writes bytes built by hand (for packets the Encoder refuses).
func (c *testClient) sendRaw(p []byte, what string) {
	c.t.Helper()
	c.t.Logf("%s → %s (hand-built: % x)", c.name, what, p)
	c.write(p)
}

func (c *testClient) write(p []byte) {
	c.t.Helper()
	c.conn.SetWriteDeadline(time.Now().Add(ioTimeout))
	_, err := c.conn.Write(p)
	require.NoError(c.t, err, "%s: write", c.name)
}

// next returns the next packet from the broker. The packet, and every slice
// in it, is valid until the next call of next or recv; Clone it to keep it.
// A read error (a timeout, the broker closing) fails the test.
func (c *testClient) next() *mqtt.Packet {
	c.t.Helper()
	p, err := c.recv()
	require.NoError(c.t, err, "%s: waiting for a packet", c.name)
	return p
}

// recv is next that returns read errors (io.EOF when the broker closed the
// connection) instead of failing. A decoding error fails the test.
func (c *testClient) recv() (*mqtt.Packet, error) {
	c.t.Helper()
	c.pk.Release()
	c.in.Discard(0) // release the buffers the last packet was read from
	for {
		err := c.dec.Decode(c.in, &c.pk)
		if err == nil {
			c.t.Logf("%s ← %s", c.name, describe(&c.pk))
			return &c.pk, nil
		}
		require.ErrorIs(c.t, err, mqtt.ErrShort, "%s: decoding what the broker sent", c.name)
		b := buf.Get(readSize)
		p := b.AvailableBuffer()
		c.conn.SetReadDeadline(time.Now().Add(ioTimeout))
		n, err := c.conn.Read(p[:readSize])
		c.reads++
		b.Commit(n)
		if n > 0 {
			c.in.Append(b) // the composite takes b's reference
		} else {
			b.Release()
		}
		if err != nil {
			if n > 0 {
				continue // decode what arrived before the error first
			}
			if c.in.Len() > 0 {
				return nil, fmt.Errorf("%w with %d bytes of a partial packet", err, c.in.Len())
			}
			return nil, err
		}
	}
}

// expect returns the next packet and fails the test unless it is of type
// want.
func (c *testClient) expect(want mqtt.Type) *mqtt.Packet {
	c.t.Helper()
	p := c.next()
	require.Equal(c.t, want, p.Type, "%s: got %s", c.name, describe(p))
	return p
}

// expectClosed reads until the broker closes the connection and returns
// the packets it sent first (clones). A timeout fails the test.
func (c *testClient) expectClosed() []*mqtt.Packet {
	c.t.Helper()
	var got []*mqtt.Packet
	for {
		p, err := c.recv()
		require.NotErrorIs(c.t, err, os.ErrDeadlineExceeded, "%s: the broker did not close the connection within %v", c.name, ioTimeout)
		if err != nil {
			require.True(c.t, errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET),
				"%s: want the broker to close the connection, got %v", c.name, err)
			c.t.Logf("%s ← (connection closed: %v)", c.name, err)
			return got
		}
		got = append(got, p.Clone())
	}
}

// connect sends a CONNECT (clean start, keep alive 30 s) with client
// identifier id (empty: the broker assigns one in v5) and expects a
// CONNACK that accepts it, which it returns.
func (c *testClient) connect(id string, edit func(*mqtt.Connect)) *mqtt.Connack {
	c.t.Helper()
	p := &mqtt.Packet{Type: mqtt.TypeConnect}
	p.Connect = &mqtt.Connect{
		ProtocolName: []byte("MQTT"),
		Version:      c.enc.Version,
		CleanStart:   true,
		KeepAlive:    30,
		ClientID:     []byte(id),
	}
	if edit != nil {
		edit(p.Connect)
	}
	c.send(p)
	ack := c.expect(mqtt.TypeConnack)
	require.Equal(c.t, mqtt.Success, ack.Connack.Reason, "%s: CONNACK refuses the connection: %s", c.name, describe(ack))
	return ack.Clone().Connack
}

// publish sends a PUBLISH and completes its acknowledgement flow as the
// sender: PUBACK at QoS 1; PUBREC, PUBREL, PUBCOMP at QoS 2. It expects
// the PUBACK or PUBREC to carry reason Success.
func (c *testClient) publish(pub mqtt.Publish) {
	c.t.Helper()
	c.publishWant(pub, mqtt.Success)
}

// publishWant is publish expecting reason want in the PUBACK or PUBREC
// (a v5 broker says NoMatchingSubscribers, 0x10, when nobody subscribed).
func (c *testClient) publishWant(pub mqtt.Publish, want mqtt.ReasonCode) {
	c.t.Helper()
	c.send(&mqtt.Packet{Type: mqtt.TypePublish, Publish: &pub})
	switch pub.QoS {
	case 1:
		c.expectAck(mqtt.TypePuback, pub.PacketID, want)
	case 2:
		c.expectAck(mqtt.TypePubrec, pub.PacketID, want)
		c.send(&mqtt.Packet{Type: mqtt.TypePubrel, Ack: &mqtt.Ack{PacketID: pub.PacketID}})
		c.expectAck(mqtt.TypePubcomp, pub.PacketID, mqtt.Success)
	}
}

// expectAck expects an acknowledgement of type t for packet id with reason
// want (3.1.1 acknowledgements have none: Success).
func (c *testClient) expectAck(t mqtt.Type, id uint16, want mqtt.ReasonCode) {
	c.t.Helper()
	if c.enc.Version != mqtt.V5 {
		want = mqtt.Success
	}
	p := c.expect(t)
	require.Equal(c.t, id, p.Ack.PacketID, "%s: got %s", c.name, describe(p))
	require.Equal(c.t, want, p.Ack.Reason, "%s: got %s", c.name, describe(p))
}

// subscribe sends a SUBSCRIBE of one filter at QoS 2 (v5: with
// subscription identifier subID unless 0) and expects a SUBACK that grants
// QoS 2.
func (c *testClient) subscribe(id uint16, filter string, subID uint32) {
	c.t.Helper()
	p := &mqtt.Packet{Type: mqtt.TypeSubscribe, Subscribe: new(mqtt.Subscribe)}
	p.Subscribe.PacketID = id
	p.Subscribe.Subscriptions = []mqtt.Subscription{{Filter: []byte(filter), QoS: 2}}
	if subID != 0 {
		p.Subscribe.Props.SubscriptionIDs = []uint32{subID}
	}
	c.send(p)
	ack := c.expect(mqtt.TypeSuback)
	require.Equal(c.t, id, ack.Suback.PacketID, "%s: got %s", c.name, describe(ack))
	require.Equal(c.t, []mqtt.ReasonCode{mqtt.GrantedQoS2}, ack.Suback.Reasons, "%s: got %s, want QoS 2 granted", c.name, describe(ack))
}

// receive reads n deliveries (PUBLISH packets) and acknowledges each as the
// receiver — PUBACK at QoS 1; PUBREC, then PUBCOMP for the broker's PUBREL,
// at QoS 2 — until every QoS 2 flow is complete. It returns clones of the
// deliveries in arrival order.
func (c *testClient) receive(n int) []*mqtt.Publish {
	c.t.Helper()
	var got []*mqtt.Publish
	pending := map[uint16]bool{} // PUBREC sent, PUBREL not yet received
	for len(got) < n || len(pending) > 0 {
		p := c.next()
		switch p.Type {
		case mqtt.TypePublish:
			require.Less(c.t, len(got), n, "%s: an unexpected delivery %s", c.name, describe(p))
			pub := p.Publish.Clone()
			got = append(got, pub)
			switch pub.QoS {
			case 1:
				c.send(&mqtt.Packet{Type: mqtt.TypePuback, Ack: &mqtt.Ack{PacketID: pub.PacketID}})
			case 2:
				pending[pub.PacketID] = true
				c.send(&mqtt.Packet{Type: mqtt.TypePubrec, Ack: &mqtt.Ack{PacketID: pub.PacketID}})
			}
		case mqtt.TypePubrel:
			id := p.Ack.PacketID
			require.True(c.t, pending[id], "%s: %s for no PUBREC of ours", c.name, describe(p))
			delete(pending, id)
			c.send(&mqtt.Packet{Type: mqtt.TypePubcomp, Ack: &mqtt.Ack{PacketID: id}})
		default:
			c.t.Fatalf("%s: got %s, want a delivery", c.name, describe(p))
		}
	}
	return got
}

// ping sends a PINGREQ and expects a PINGRESP; as the broker answers in
// order, it also shows that no delivery was queued for c before it.
func (c *testClient) ping() {
	c.t.Helper()
	c.send(&mqtt.Packet{Type: mqtt.TypePingreq})
	c.expect(mqtt.TypePingresp)
}

// describe renders a packet compactly for the trace: its type and the
// fields the interop tests check.
func describe(p *mqtt.Packet) string {
	q := *p // a nil field encodes as its zero value: describe it so
	orNew(&q.Connect)
	orNew(&q.Connack)
	orNew(&q.Publish)
	orNew(&q.Ack)
	orNew(&q.Subscribe)
	orNew(&q.Suback)
	orNew(&q.Unsubscribe)
	orNew(&q.Disconnect)
	orNew(&q.Auth)
	p = &q
	var b strings.Builder
	b.WriteString(p.Type.String())
	switch p.Type {
	case mqtt.TypeConnect:
		c := p.Connect
		fmt.Fprintf(&b, " %v id=%q clean=%t keepalive=%d", c.Version, c.ClientID, c.CleanStart, c.KeepAlive)
		if c.WillFlag {
			fmt.Fprintf(&b, " will(q%d %q %q%s)", c.WillQoS, c.WillTopic, c.WillPayload, props(&c.WillProps))
		}
		b.WriteString(props(&c.Props))
	case mqtt.TypeConnack:
		fmt.Fprintf(&b, " reason=0x%02x session=%t%s", byte(p.Connack.Reason), p.Connack.SessionPresent, props(&p.Connack.Props))
	case mqtt.TypePublish:
		q := p.Publish
		fmt.Fprintf(&b, " q%d", q.QoS)
		if q.QoS > 0 {
			fmt.Fprintf(&b, " id=%d", q.PacketID)
		}
		if q.Dup {
			b.WriteString(" dup")
		}
		if q.Retain {
			b.WriteString(" retain")
		}
		fmt.Fprintf(&b, " topic=%q payload=%s%s", q.Topic, short(q.Payload), props(&q.Props))
	case mqtt.TypePuback, mqtt.TypePubrec, mqtt.TypePubrel, mqtt.TypePubcomp:
		fmt.Fprintf(&b, " id=%d reason=0x%02x%s", p.Ack.PacketID, byte(p.Ack.Reason), props(&p.Ack.Props))
	case mqtt.TypeSubscribe:
		fmt.Fprintf(&b, " id=%d", p.Subscribe.PacketID)
		for _, s := range p.Subscribe.Subscriptions {
			fmt.Fprintf(&b, " [%q q%d]", s.Filter, s.QoS)
		}
		b.WriteString(props(&p.Subscribe.Props))
	case mqtt.TypeSuback, mqtt.TypeUnsuback:
		fmt.Fprintf(&b, " id=%d reasons=%x%s", p.Suback.PacketID, p.Suback.Reasons, props(&p.Suback.Props))
	case mqtt.TypeUnsubscribe:
		fmt.Fprintf(&b, " id=%d filters=%q%s", p.Unsubscribe.PacketID, p.Unsubscribe.Filters, props(&p.Unsubscribe.Props))
	case mqtt.TypeDisconnect:
		if p.Version == mqtt.V5 {
			fmt.Fprintf(&b, " reason=0x%02x%s", byte(p.Disconnect.Reason), props(&p.Disconnect.Props))
		}
	case mqtt.TypeAuth:
		fmt.Fprintf(&b, " reason=0x%02x%s", byte(p.Auth.Reason), props(&p.Auth.Props))
	}
	return b.String()
}

// orNew points *f at a zero value when it is nil.
func orNew[T any](f **T) {
	if *f == nil {
		*f = new(T)
	}
}

// short quotes p, or its first 24 bytes and its length when it is longer.
func short(p []byte) string {
	if len(p) <= 32 {
		return fmt.Sprintf("%q", p)
	}
	return fmt.Sprintf("%q…(%d bytes)", p[:24], len(p))
}

// props renders the properties the interop tests meet, or "" when there
// are none.
func props(ps *mqtt.Properties) string {
	var f []string
	add := func(id mqtt.PropID, format string, v any) {
		if ps.Present.Has(id) {
			f = append(f, fmt.Sprintf(format, v))
		}
	}
	add(mqtt.PropPayloadFormat, "payload-format=%d", ps.PayloadFormat)
	add(mqtt.PropMessageExpiry, "expiry=%d", ps.MessageExpiry)
	add(mqtt.PropContentType, "content-type=%q", ps.ContentType)
	add(mqtt.PropResponseTopic, "response-topic=%q", ps.ResponseTopic)
	add(mqtt.PropCorrelationData, "correlation=%q", ps.CorrelationData)
	if len(ps.SubscriptionIDs) > 0 {
		f = append(f, fmt.Sprintf("sub-ids=%v", ps.SubscriptionIDs))
	}
	add(mqtt.PropSessionExpiry, "session-expiry=%d", ps.SessionExpiry)
	add(mqtt.PropAssignedClientID, "assigned-id=%q", ps.AssignedClientID)
	add(mqtt.PropServerKeepAlive, "server-keepalive=%d", ps.ServerKeepAlive)
	add(mqtt.PropWillDelay, "will-delay=%d", ps.WillDelay)
	add(mqtt.PropReasonString, "reason-string=%q", ps.ReasonString)
	add(mqtt.PropReceiveMaximum, "receive-max=%d", ps.ReceiveMaximum)
	add(mqtt.PropTopicAliasMaximum, "topic-alias-max=%d", ps.TopicAliasMaximum)
	add(mqtt.PropTopicAlias, "topic-alias=%d", ps.TopicAlias)
	add(mqtt.PropMaximumQoS, "max-qos=%d", ps.MaximumQoS)
	add(mqtt.PropRetainAvailable, "retain-available=%d", ps.RetainAvailable)
	add(mqtt.PropMaximumPacketSize, "max-packet=%d", ps.MaximumPacketSize)
	add(mqtt.PropWildcardSubAvailable, "wildcard-sub=%d", ps.WildcardSubAvailable)
	add(mqtt.PropSubIDAvailable, "sub-id-available=%d", ps.SubIDAvailable)
	add(mqtt.PropSharedSubAvailable, "shared-sub=%d", ps.SharedSubAvailable)
	for _, u := range ps.User {
		f = append(f, fmt.Sprintf("user[%q=%q]", u.Key, u.Value))
	}
	if len(f) == 0 {
		return ""
	}
	return " {" + strings.Join(f, " ") + "}"
}
