package mqttpeers

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/netkit/netkit/codec/mqtt"
	"github.com/netkit/netkit/internal/invariants"
	"github.com/netkit/netkit/internal/race"
	"github.com/stretchr/testify/assert"
)

// A forbiddenCase is an input the specification forbids, with what each
// implementation does with it.
type forbiddenCase struct {
	name   string
	v      byte   // the connection's protocol level
	in     []byte // one whole packet (or a header, when stream)
	stream bool   // in is followed by endless zero bytes, read from a stream
	rule   string // what the input breaks

	want   *mqtt.Violation // the sentinel netkit rejects it with
	reason mqtt.ReasonCode // what mqtt.ReasonOf returns for netkit's error

	// peers is the documented outcome of each peer that speaks v (see
	// peerOutcome).
	peers map[string]string
}

// h decodes space-separated hex bytes.
func h(s string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		panic(err)
	}
	return b
}

var forbidden = []forbiddenCase{
	{name: "remaining-length-256mib", v: V311, in: h("10 FF FF FF 7F"), stream: true,
		want: mqtt.ErrPacketTooLarge, reason: mqtt.PacketTooLarge,
		rule:  "Remaining Length 268,435,455 above the maximum packet size",
		peers: map[string]string{"mochi": "validate rejects; allocates 512 MiB", "pahov3": "accepts; allocates 256 MiB"}},
	{name: "remaining-length-256mib-5", v: V5, in: h("10 FF FF FF 7F"), stream: true,
		want: mqtt.ErrPacketTooLarge, reason: mqtt.PacketTooLarge,
		rule:  "Remaining Length 268,435,455 above the maximum packet size",
		peers: map[string]string{"mochi": "validate rejects; allocates 512 MiB", "paho": "accepts; allocates 768 MiB"}},
	{name: "remaining-length-5-bytes", v: V311, in: h("C0 80 80 80 80 00"),
		want: mqtt.ErrVarInt, reason: mqtt.MalformedPacket,
		rule:  "Variable Byte Integer of 5 bytes (Remaining Length)",
		peers: map[string]string{"mochi": "accepts", "pahov3": "accepts, leaves 1 byte"}},
	{name: "property-length-5-bytes", v: V5, in: h("30 09 0001 61 8080808000 78"),
		want: mqtt.ErrVarInt, reason: mqtt.MalformedPacket,
		rule:  "Variable Byte Integer of 5 bytes (Property Length)",
		peers: map[string]string{"mochi": "accepts", "paho": "accepts"}},
	{name: "publish-qos-3", v: V311, in: h("36 06 0001 61 0001 78"),
		want: mqtt.ErrBadQoS, reason: mqtt.MalformedPacket,
		rule:  "PUBLISH with both QoS bits set",
		peers: map[string]string{"mochi": "rejects", "pahov3": "accepts"}},
	{name: "publish-dup-qos-0", v: V311, in: h("38 04 0001 61 78"),
		want: mqtt.ErrDupOnQoS0, reason: mqtt.MalformedPacket,
		rule:  "PUBLISH with DUP set at QoS 0",
		peers: map[string]string{"mochi": "rejects", "pahov3": "accepts"}},
	{name: "publish-topic-wildcard", v: V311, in: h("30 06 0003 612F23 78"),
		want: mqtt.ErrTopicWildcard, reason: mqtt.ProtocolError,
		rule:  "wildcard '#' in a PUBLISH topic",
		peers: map[string]string{"mochi": "validate rejects", "pahov3": "accepts"}},
	{name: "publish-topic-plus", v: V5, in: h("30 07 0003 612B62 00 78"),
		want: mqtt.ErrTopicWildcard, reason: mqtt.ProtocolError,
		rule:  "wildcard '+' in a PUBLISH topic",
		peers: map[string]string{"mochi": "validate rejects", "paho": "accepts"}},
	{name: "publish-topic-empty", v: V311, in: h("30 03 0000 78"),
		want: mqtt.ErrTopicEmpty, reason: mqtt.ProtocolError,
		rule:  "empty PUBLISH topic (3.1.1)",
		peers: map[string]string{"mochi": "validate rejects", "pahov3": "accepts"}},
	{name: "publish-topic-bad-utf8", v: V311, in: h("30 05 0002 C328 78"),
		want: mqtt.ErrBadUTF8, reason: mqtt.MalformedPacket,
		rule:  "ill-formed UTF-8 in a topic",
		peers: map[string]string{"mochi": "rejects", "pahov3": "accepts"}},
	{name: "publish-topic-surrogate", v: V311, in: h("30 06 0003 EDA080 78"),
		want: mqtt.ErrBadUTF8, reason: mqtt.MalformedPacket,
		rule:  "UTF-16 surrogate U+D800 encoded in a topic",
		peers: map[string]string{"mochi": "rejects", "pahov3": "accepts"}},
	{name: "publish-topic-nul", v: V311, in: h("30 05 0002 6100 78"),
		want: mqtt.ErrNullChar, reason: mqtt.MalformedPacket,
		rule:  "U+0000 in a topic",
		peers: map[string]string{"mochi": "rejects", "pahov3": "accepts"}},
	{name: "publish-packet-id-0", v: V311, in: h("32 06 0001 61 0000 78"),
		want: mqtt.ErrZeroPacketID, reason: mqtt.ProtocolError,
		rule:  "zero packet identifier on a QoS 1 PUBLISH",
		peers: map[string]string{"mochi": "validate rejects", "pahov3": "accepts"}},
	{name: "publish-duplicate-property", v: V5, in: h("30 0F 0001 61 0A 0200000001 0200000002 78"),
		want: mqtt.ErrDuplicateProperty, reason: mqtt.ProtocolError,
		rule:  "Message Expiry Interval twice",
		peers: map[string]string{"mochi": "accepts", "paho": "accepts"}},
	{name: "publish-property-not-allowed", v: V5, in: h("30 0A 0001 61 05 1100000001 78"),
		want: mqtt.ErrPropertyNotAllowed, reason: mqtt.MalformedPacket,
		rule:  "Session Expiry Interval on a PUBLISH",
		peers: map[string]string{"mochi": "rejects", "paho": "rejects"}},
	{name: "publish-subscription-id-0", v: V5, in: h("30 07 0001 61 02 0B00 78"),
		want: mqtt.ErrSubscriptionIDZero, reason: mqtt.ProtocolError,
		rule:  "Subscription Identifier 0",
		peers: map[string]string{"mochi": "validate rejects", "paho": "accepts"}},
	{name: "publish-topic-alias-0", v: V5, in: h("30 08 0001 61 03 230000 78"),
		want: mqtt.ErrTopicAliasZero, reason: mqtt.TopicAliasInvalid,
		rule:  "Topic Alias 0",
		peers: map[string]string{"mochi": "validate rejects", "paho": "accepts"}},
	{name: "connect-property-not-allowed", v: V5, in: h("10 13 0004 4D515454 05 02 003C 05 020000000A 0001 63"),
		want: mqtt.ErrPropertyNotAllowed, reason: mqtt.MalformedPacket,
		rule:  "Message Expiry Interval in CONNECT properties",
		peers: map[string]string{"mochi": "rejects", "paho": "accepts"}},
	{name: "connect-reserved-flag", v: V311, in: h("10 0D 0004 4D515454 04 03 003C 0001 63"),
		want: mqtt.ErrConnectReserved, reason: mqtt.MalformedPacket,
		rule:  "CONNECT flags with the reserved bit set",
		peers: map[string]string{"mochi": "validate rejects", "pahov3": "accepts"}},
	{name: "connect-will-qos-3", v: V311, in: h("10 13 0004 4D515454 04 1E 003C 0001 63 0001 77 0001 6D"),
		want: mqtt.ErrWillQoS, reason: mqtt.MalformedPacket,
		rule:  "will QoS 3",
		peers: map[string]string{"mochi": "validate rejects", "pahov3": "accepts"}},
	{name: "connect-will-retain-no-will", v: V311, in: h("10 0D 0004 4D515454 04 22 003C 0001 63"),
		want: mqtt.ErrWillRetainNoWill, reason: mqtt.MalformedPacket,
		rule:  "will retain set without the will flag",
		peers: map[string]string{"mochi": "validate rejects", "pahov3": "accepts"}},
	{name: "connect-password-no-username", v: V311, in: h("10 10 0004 4D515454 04 42 003C 0001 63 0001 70"),
		want: mqtt.ErrPasswordNoUser, reason: mqtt.MalformedPacket,
		rule:  "password without user name (3.1.1)",
		peers: map[string]string{"mochi": "accepts", "pahov3": "accepts"}},
	{name: "connect-client-id-bad-utf8", v: V311, in: h("10 0E 0004 4D515454 04 02 003C 0002 C328"),
		want: mqtt.ErrBadUTF8, reason: mqtt.MalformedPacket,
		rule:  "ill-formed UTF-8 in the client identifier",
		peers: map[string]string{"mochi": "rejects", "pahov3": "accepts"}},
	{name: "subscribe-reserved-flags", v: V311, in: h("80 06 0001 0001 61 00"),
		want: mqtt.ErrReservedFlags, reason: mqtt.MalformedPacket,
		rule:  "SUBSCRIBE with fixed-header flags 0000",
		peers: map[string]string{"mochi": "rejects", "pahov3": "accepts"}},
	{name: "pubrel-reserved-flags", v: V311, in: h("60 02 0001"),
		want: mqtt.ErrReservedFlags, reason: mqtt.MalformedPacket,
		rule:  "PUBREL with fixed-header flags 0000",
		peers: map[string]string{"mochi": "rejects", "pahov3": "accepts"}},
	{name: "subscribe-packet-id-0", v: V311, in: h("82 06 0000 0001 61 00"),
		want: mqtt.ErrZeroPacketID, reason: mqtt.ProtocolError,
		rule:  "zero packet identifier on a SUBSCRIBE",
		peers: map[string]string{"mochi": "validate rejects", "pahov3": "accepts"}},
	{name: "subscribe-no-filters", v: V311, in: h("82 02 0001"),
		want: mqtt.ErrNoSubscriptions, reason: mqtt.ProtocolError,
		rule:  "SUBSCRIBE without a topic filter",
		peers: map[string]string{"mochi": "validate rejects", "pahov3": "accepts"}},
	{name: "subscribe-qos-3", v: V311, in: h("82 06 0001 0001 61 03"),
		want: mqtt.ErrSubQoS, reason: mqtt.ProtocolError,
		rule:  "requested QoS 3",
		peers: map[string]string{"mochi": "rejects", "pahov3": "accepts"}},
	{name: "subscribe-bad-filter", v: V311, in: h("82 08 0001 0003 612362 00"),
		want: mqtt.ErrFilterMultiWild, reason: mqtt.MalformedPacket,
		rule:  "topic filter \"a#b\"",
		peers: map[string]string{"mochi": "accepts", "pahov3": "accepts"}},
	{name: "subscribe-reserved-options", v: V5, in: h("82 07 0001 00 0001 61 C0"),
		want: mqtt.ErrSubOptions, reason: mqtt.MalformedPacket,
		rule:  "subscription options with reserved bits 6 and 7 set",
		peers: map[string]string{"mochi": "accepts", "paho": "accepts"}},
	{name: "subscribe-missing-options", v: V5, in: h("82 06 0001 00 0001 61"),
		want: mqtt.ErrMalformed, reason: mqtt.MalformedPacket,
		rule:  "SUBSCRIBE whose last filter lacks its options byte",
		peers: map[string]string{"mochi": "panics", "paho": "rejects"}},
	{name: "puback-property-overrun", v: V5, in: h("40 05 0001 10 05 1F"),
		want: mqtt.ErrMalformed, reason: mqtt.MalformedPacket,
		rule:  "Property Length beyond the packet",
		peers: map[string]string{"mochi": "rejects", "paho": "rejects"}},
	{name: "puback-trailing-byte", v: V311, in: h("40 03 0001 00"),
		want: mqtt.ErrMalformed, reason: mqtt.MalformedPacket,
		rule:  "3.1.1 PUBACK with a Remaining Length of 3",
		peers: map[string]string{"mochi": "accepts", "pahov3": "accepts"}},
	{name: "packet-type-0", v: V311, in: h("00 00"),
		want: mqtt.ErrUnknownType, reason: mqtt.MalformedPacket,
		rule:  "reserved packet type 0",
		peers: map[string]string{"mochi": "rejects", "pahov3": "rejects"}},
	{name: "auth-on-311", v: V311, in: h("F0 00"),
		want: mqtt.ErrUnknownType, reason: mqtt.MalformedPacket,
		rule:  "AUTH on a 3.1.1 connection",
		peers: map[string]string{"mochi": "rejects", "pahov3": "rejects"}},
	{name: "auth-empty", v: V5, in: h("F0 00"),
		want: mqtt.ErrAuthNoMethod, reason: mqtt.ProtocolError,
		rule:  "AUTH without an Authentication Method (its empty form)",
		peers: map[string]string{"mochi": "rejects", "paho": "accepts"}},
	{name: "auth-no-method", v: V5, in: h("F0 06 18 04 16 0001 61"),
		want: mqtt.ErrAuthNoMethod, reason: mqtt.ProtocolError,
		rule:  "AUTH with Authentication Data but no Authentication Method",
		peers: map[string]string{"mochi": "accepts", "paho": "accepts"}},
	{name: "connect-auth-data-no-method", v: V5, in: h("10 11 0004 4D515454 05 02 003C 04 16 0001 61 0000"),
		want: mqtt.ErrAuthDataNoMethod, reason: mqtt.ProtocolError,
		rule:  "CONNECT with Authentication Data but no Authentication Method",
		peers: map[string]string{"mochi": "accepts", "paho": "accepts"}},
	{name: "connect-311-empty-id", v: V311, in: h("10 0C 0004 4D515454 04 00 003C 0000"),
		want: mqtt.ErrEmptyClientID, reason: mqtt.ClientIDNotValid,
		rule:  "3.1.1 CONNECT with an empty ClientId and CleanSession 0",
		peers: map[string]string{"mochi": "accepts", "pahov3": "accepts"}},
}

var peers = []*Impl{Mochi, Paho, PahoV3}

// peerOutcome runs c through impl and describes what it did:
// "rejects", "panics", "accepts", "accepts, leaves N bytes" (it read
// fewer bytes than the packet has), or, for mochi, "validate rejects"
// (decodes it, but the XValidate method its server calls next rejects it);
// followed by "; allocates N MiB" when the attempt allocated over 1 MiB.
func peerOutcome(impl *Impl, c *forbiddenCase) string {
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	var out string
	n := len(c.in)
	var err, verr error
	switch {
	case c.stream && impl == Mochi:
		err, verr = MochiReadValidate(Endless(c.in), c.v)
	case c.stream:
		_, err = impl.ReadFrom(Endless(c.in), c.v)
	case impl == Mochi:
		if err, verr = MochiValidate(c.in, c.v); err == nil {
			_, n, err = impl.Decode(c.in, c.v)
		}
	default:
		_, n, err = impl.Decode(c.in, c.v)
	}
	if err == nil && verr != nil {
		out = "validate rejects"
	}
	runtime.ReadMemStats(&m1)
	switch {
	case out != "":
	case errors.Is(err, ErrPanic):
		out = "panics"
	case err != nil:
		out = "rejects"
	case n < len(c.in):
		out = fmt.Sprintf("accepts, leaves %d byte", len(c.in)-n)
		if len(c.in)-n > 1 {
			out += "s"
		}
	default:
		out = "accepts"
	}
	if a := m1.TotalAlloc - m0.TotalAlloc; a > 1<<20 {
		out += fmt.Sprintf("; allocates %d MiB", a>>20)
	}
	return out
}

// TestForbiddenPeers runs each forbidden input through each peer that
// speaks its version and checks that the peer does what the table says.
func TestForbiddenPeers(t *testing.T) {
	for i := range forbidden {
		c := &forbidden[i]
		for _, impl := range peers {
			if !impl.Speaks(c.v) {
				continue
			}
			if c.stream && (testing.Short() || race.Enabled) {
				continue // each reads and allocates hundreds of MiB, more under the race detector
			}
			got := peerOutcome(impl, c)
			if want := c.peers[impl.Name]; got != want {
				t.Errorf("%s/%s: %s (% X): got %q, want %q", c.name, impl.Name, c.rule, c.in, got, want)
			}
		}
	}
}

// TestForbiddenNetkit checks that netkit rejects each forbidden input, from
// a []byte (mqtt.Decode) and from a stream (a Decoder over a composite),
// with the table's sentinel and reason code, and a normative rule in the
// error; and that the stream inputs are rejected from their header, having
// allocated less than 4 KiB.
func TestForbiddenNetkit(t *testing.T) {
	for i := range forbidden {
		c := &forbidden[i]
		t.Run(c.name, func(t *testing.T) {
			check := func(how string, err error) {
				t.Helper()
				assert.ErrorIs(t, err, c.want, "%s % X (%s)", how, c.in, c.rule)
				got := mqtt.ReasonOf(err)
				assert.Equal(t, c.reason, got, "%s: ReasonOf", how)
				var v *mqtt.Violation
				if errors.As(err, &v) && (v.Ref == "" || !strings.Contains(err.Error(), v.Ref)) {
					t.Errorf("%s: %q does not name its rule %q", how, err, v.Ref)
				}
			}
			if !c.stream {
				_, _, err := Netkit.Decode(c.in, c.v)
				check("Decode", err)
				_, err = Netkit.ReadFrom(bytes.NewReader(c.in), c.v)
				check("Decoder", err)
				return
			}
			_, err := Netkit.ReadFrom(Endless(c.in), c.v)
			check("Decoder", err)
			var pk mqtt.Packet
			_, err = mqtt.DecodeBytes(c.in, mqtt.Version(c.v), &pk)
			check("Decode", err)
			assert.Less(t, allocatedBytes(func() { mqtt.DecodeBytes(c.in, mqtt.Version(c.v), &pk) }), uint64(4096), "decoding % X: bytes allocated", c.in)
			if race.Enabled || invariants.Enabled {
				return // the pool of the Decoder's reads drops or keeps buffers: they are allocated each time
			}
			assert.Less(t, allocatedBytes(func() { Netkit.ReadFrom(Endless(c.in), c.v) }), uint64(4096), "reading % X and endless zeros: bytes allocated", c.in)
		})
	}
}

// allocatedBytes returns the bytes f allocates, averaged over 100 runs.
func allocatedBytes(f func()) uint64 {
	const runs = 100
	f()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&m1)
	return (m1.TotalAlloc - m0.TotalAlloc) / runs
}

// sentinelNames names the sentinels of forbidden for the markdown table.
var sentinelNames = map[*mqtt.Violation]string{
	mqtt.ErrBadQoS:             "ErrBadQoS",
	mqtt.ErrBadUTF8:            "ErrBadUTF8",
	mqtt.ErrConnectReserved:    "ErrConnectReserved",
	mqtt.ErrDupOnQoS0:          "ErrDupOnQoS0",
	mqtt.ErrDuplicateProperty:  "ErrDuplicateProperty",
	mqtt.ErrFilterMultiWild:    "ErrFilterMultiWild",
	mqtt.ErrMalformed:          "ErrMalformed",
	mqtt.ErrNoSubscriptions:    "ErrNoSubscriptions",
	mqtt.ErrNullChar:           "ErrNullChar",
	mqtt.ErrPacketTooLarge:     "ErrPacketTooLarge",
	mqtt.ErrPasswordNoUser:     "ErrPasswordNoUser",
	mqtt.ErrPropertyNotAllowed: "ErrPropertyNotAllowed",
	mqtt.ErrReservedFlags:      "ErrReservedFlags",
	mqtt.ErrSubOptions:         "ErrSubOptions",
	mqtt.ErrSubQoS:             "ErrSubQoS",
	mqtt.ErrSubscriptionIDZero: "ErrSubscriptionIDZero",
	mqtt.ErrTopicAliasZero:     "ErrTopicAliasZero",
	mqtt.ErrTopicEmpty:         "ErrTopicEmpty",
	mqtt.ErrTopicWildcard:      "ErrTopicWildcard",
	mqtt.ErrUnknownType:        "ErrUnknownType",
	mqtt.ErrVarInt:             "ErrVarInt",
	mqtt.ErrWillQoS:            "ErrWillQoS",
	mqtt.ErrWillRetainNoWill:   "ErrWillRetainNoWill",
	mqtt.ErrZeroPacketID:       "ErrZeroPacketID",
}

// forbiddenMarkdown renders forbidden as a markdown table.
func forbiddenMarkdown() string {
	var b strings.Builder
	b.WriteString("| input | version | bytes | netkit | mochi | paho | pahov3 |\n|---|---|---|---|---|---|---|\n")
	for i := range forbidden {
		c := &forbidden[i]
		in := fmt.Sprintf("`% X`", c.in)
		if c.stream {
			in = fmt.Sprintf("`% X` and endless zeros", c.in)
		}
		v := "3.1.1"
		if c.v == V5 {
			v = "5.0"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | rejects: `%s`, 0x%02X, %s |", c.rule, v, in, sentinelNames[c.want], byte(c.reason), c.want.Ref)
		for _, p := range peers {
			o := c.peers[p.Name]
			if o == "" {
				o = "—"
			}
			fmt.Fprintf(&b, " %s |", o)
		}
		b.WriteString("\n")
	}
	return b.String()
}
