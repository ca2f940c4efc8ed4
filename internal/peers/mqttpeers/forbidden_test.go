package mqttpeers

import (
	"encoding/hex"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// A forbiddenCase is an input the specification forbids, with what each
// implementation does with it.
type forbiddenCase struct {
	name   string
	v      byte   // the connection's protocol level
	in     []byte // one whole packet (or a header, when stream)
	stream bool   // in is followed by endless zero bytes, read from a stream
	rule   string // what the input breaks

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
		rule:  "Remaining Length 268,435,455 above the maximum packet size",
		peers: map[string]string{"mochi": "validate rejects; allocates 512 MiB", "pahov3": "accepts; allocates 256 MiB"}},
	{name: "remaining-length-256mib-5", v: V5, in: h("10 FF FF FF 7F"), stream: true,
		rule:  "Remaining Length 268,435,455 above the maximum packet size",
		peers: map[string]string{"mochi": "validate rejects; allocates 512 MiB", "paho": "accepts; allocates 768 MiB"}},
	{name: "remaining-length-5-bytes", v: V311, in: h("C0 80 80 80 80 00"),
		rule:  "Variable Byte Integer of 5 bytes (Remaining Length)",
		peers: map[string]string{"mochi": "accepts", "pahov3": "accepts, leaves 1 byte"}},
	{name: "property-length-5-bytes", v: V5, in: h("30 09 0001 61 8080808000 78"),
		rule:  "Variable Byte Integer of 5 bytes (Property Length)",
		peers: map[string]string{"mochi": "accepts", "paho": "accepts"}},
	{name: "publish-qos-3", v: V311, in: h("36 06 0001 61 0001 78"),
		rule:  "PUBLISH with both QoS bits set",
		peers: map[string]string{"mochi": "rejects", "pahov3": "accepts"}},
	{name: "publish-dup-qos-0", v: V311, in: h("38 04 0001 61 78"),
		rule:  "PUBLISH with DUP set at QoS 0",
		peers: map[string]string{"mochi": "rejects", "pahov3": "accepts"}},
	{name: "publish-topic-wildcard", v: V311, in: h("30 06 0003 612F23 78"),
		rule:  "wildcard '#' in a PUBLISH topic",
		peers: map[string]string{"mochi": "validate rejects", "pahov3": "accepts"}},
	{name: "publish-topic-plus", v: V5, in: h("30 07 0003 612B62 00 78"),
		rule:  "wildcard '+' in a PUBLISH topic",
		peers: map[string]string{"mochi": "validate rejects", "paho": "accepts"}},
	{name: "publish-topic-empty", v: V311, in: h("30 03 0000 78"),
		rule:  "empty PUBLISH topic (3.1.1)",
		peers: map[string]string{"mochi": "validate rejects", "pahov3": "accepts"}},
	{name: "publish-topic-bad-utf8", v: V311, in: h("30 05 0002 C328 78"),
		rule:  "ill-formed UTF-8 in a topic",
		peers: map[string]string{"mochi": "rejects", "pahov3": "accepts"}},
	{name: "publish-topic-surrogate", v: V311, in: h("30 06 0003 EDA080 78"),
		rule:  "UTF-16 surrogate U+D800 encoded in a topic",
		peers: map[string]string{"mochi": "rejects", "pahov3": "accepts"}},
	{name: "publish-topic-nul", v: V311, in: h("30 05 0002 6100 78"),
		rule:  "U+0000 in a topic",
		peers: map[string]string{"mochi": "rejects", "pahov3": "accepts"}},
	{name: "publish-packet-id-0", v: V311, in: h("32 06 0001 61 0000 78"),
		rule:  "zero packet identifier on a QoS 1 PUBLISH",
		peers: map[string]string{"mochi": "validate rejects", "pahov3": "accepts"}},
	{name: "publish-duplicate-property", v: V5, in: h("30 0F 0001 61 0A 0200000001 0200000002 78"),
		rule:  "Message Expiry Interval twice",
		peers: map[string]string{"mochi": "accepts", "paho": "accepts"}},
	{name: "publish-property-not-allowed", v: V5, in: h("30 0A 0001 61 05 1100000001 78"),
		rule:  "Session Expiry Interval on a PUBLISH",
		peers: map[string]string{"mochi": "rejects", "paho": "rejects"}},
	{name: "publish-subscription-id-0", v: V5, in: h("30 07 0001 61 02 0B00 78"),
		rule:  "Subscription Identifier 0",
		peers: map[string]string{"mochi": "validate rejects", "paho": "accepts"}},
	{name: "publish-topic-alias-0", v: V5, in: h("30 08 0001 61 03 230000 78"),
		rule:  "Topic Alias 0",
		peers: map[string]string{"mochi": "validate rejects", "paho": "accepts"}},
	{name: "connect-property-not-allowed", v: V5, in: h("10 13 0004 4D515454 05 02 003C 05 020000000A 0001 63"),
		rule:  "Message Expiry Interval in CONNECT properties",
		peers: map[string]string{"mochi": "rejects", "paho": "accepts"}},
	{name: "connect-reserved-flag", v: V311, in: h("10 0D 0004 4D515454 04 03 003C 0001 63"),
		rule:  "CONNECT flags with the reserved bit set",
		peers: map[string]string{"mochi": "validate rejects", "pahov3": "accepts"}},
	{name: "connect-will-qos-3", v: V311, in: h("10 13 0004 4D515454 04 1E 003C 0001 63 0001 77 0001 6D"),
		rule:  "will QoS 3",
		peers: map[string]string{"mochi": "validate rejects", "pahov3": "accepts"}},
	{name: "connect-will-retain-no-will", v: V311, in: h("10 0D 0004 4D515454 04 22 003C 0001 63"),
		rule:  "will retain set without the will flag",
		peers: map[string]string{"mochi": "validate rejects", "pahov3": "accepts"}},
	{name: "connect-password-no-username", v: V311, in: h("10 10 0004 4D515454 04 42 003C 0001 63 0001 70"),
		rule:  "password without user name (3.1.1)",
		peers: map[string]string{"mochi": "accepts", "pahov3": "accepts"}},
	{name: "connect-client-id-bad-utf8", v: V311, in: h("10 0E 0004 4D515454 04 02 003C 0002 C328"),
		rule:  "ill-formed UTF-8 in the client identifier",
		peers: map[string]string{"mochi": "rejects", "pahov3": "accepts"}},
	{name: "subscribe-reserved-flags", v: V311, in: h("80 06 0001 0001 61 00"),
		rule:  "SUBSCRIBE with fixed-header flags 0000",
		peers: map[string]string{"mochi": "rejects", "pahov3": "accepts"}},
	{name: "pubrel-reserved-flags", v: V311, in: h("60 02 0001"),
		rule:  "PUBREL with fixed-header flags 0000",
		peers: map[string]string{"mochi": "rejects", "pahov3": "accepts"}},
	{name: "subscribe-packet-id-0", v: V311, in: h("82 06 0000 0001 61 00"),
		rule:  "zero packet identifier on a SUBSCRIBE",
		peers: map[string]string{"mochi": "validate rejects", "pahov3": "accepts"}},
	{name: "subscribe-no-filters", v: V311, in: h("82 02 0001"),
		rule:  "SUBSCRIBE without a topic filter",
		peers: map[string]string{"mochi": "validate rejects", "pahov3": "accepts"}},
	{name: "subscribe-qos-3", v: V311, in: h("82 06 0001 0001 61 03"),
		rule:  "requested QoS 3",
		peers: map[string]string{"mochi": "rejects", "pahov3": "accepts"}},
	{name: "subscribe-bad-filter", v: V311, in: h("82 08 0001 0003 612362 00"),
		rule:  "topic filter \"a#b\"",
		peers: map[string]string{"mochi": "accepts", "pahov3": "accepts"}},
	{name: "subscribe-reserved-options", v: V5, in: h("82 07 0001 00 0001 61 C0"),
		rule:  "subscription options with reserved bits 6 and 7 set",
		peers: map[string]string{"mochi": "accepts", "paho": "accepts"}},
	{name: "puback-property-overrun", v: V5, in: h("40 05 0001 10 05 1F"),
		rule:  "Property Length beyond the packet",
		peers: map[string]string{"mochi": "rejects", "paho": "rejects"}},
	{name: "puback-trailing-byte", v: V311, in: h("40 03 0001 00"),
		rule:  "3.1.1 PUBACK with a Remaining Length of 3",
		peers: map[string]string{"mochi": "accepts", "pahov3": "accepts"}},
	{name: "packet-type-0", v: V311, in: h("00 00"),
		rule:  "reserved packet type 0",
		peers: map[string]string{"mochi": "rejects", "pahov3": "rejects"}},
	{name: "auth-on-311", v: V311, in: h("F0 00"),
		rule:  "AUTH on a 3.1.1 connection",
		peers: map[string]string{"mochi": "rejects", "pahov3": "rejects"}},
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
			if c.stream && testing.Short() {
				continue
			}
			got := peerOutcome(impl, c)
			if want := c.peers[impl.Name]; got != want {
				t.Errorf("%s/%s: %s (% X): got %q, want %q", c.name, impl.Name, c.rule, c.in, got, want)
			}
		}
	}
}
