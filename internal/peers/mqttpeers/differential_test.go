package mqttpeers

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A step is one comparison of the differential test.
type step string

const (
	// Peer to netkit: the peer encodes the case; netkit decodes the peer's
	// bytes to the case's fields, and re-encodes them to the peer's bytes.
	stepPeerEncode     step = "peer encodes"
	stepNetkitDecode   step = "netkit decodes"
	stepNetkitReencode step = "netkit re-encodes"
	// Netkit to peer: netkit encodes the case; the peer decodes netkit's
	// bytes to the case's fields, and re-encodes them to netkit's bytes.
	stepPeerDecode   step = "peer decodes"
	stepPeerReencode step = "peer re-encodes"
)

// A difference is a documented place where a peer and netkit disagree.
type difference struct {
	peer  string
	cases []string
	steps []step
	why   string
}

var ackCases5 = []string{"puback-5", "pubrec-5", "pubrel-5", "pubcomp-5", "puback-5-reason"}

// differences lists every disagreement between the peers and netkit on
// the cases; TestDifferential fails on one it does not list, and on a row
// that no longer happens.
var differences = []difference{
	{"mochi", []string{"puback-5-reason"}, []step{stepNetkitDecode, stepPeerReencode},
		"mochi writes an acknowledgement's reason code only when it is 0x80 or more or there are properties: PUBACK 0x10 (No matching subscribers) goes out as Success"},
	{"mochi", []string{"disconnect-5", "disconnect-5-reason"}, []step{stepNetkitReencode},
		"mochi always writes the reason code and the property length of a 5.0 DISCONNECT; netkit writes the shortest form MQTT 5.0 allows (§3.14.2.1)"},
	{"mochi", []string{"disconnect-5"}, []step{stepPeerReencode},
		"as above, the other way: mochi re-encodes netkit's 2-byte DISCONNECT in 4 bytes"},
	{"mochi", []string{"disconnect-5-reason"}, []step{stepPeerDecode},
		"mochi reads a DISCONNECT's reason code only when the Remaining Length is over 1, so it reads E0 01 04 (Disconnect with Will Message) as a normal disconnection"},
	{"paho", []string{"connect-5-will-props"}, []step{stepPeerEncode, stepPeerReencode},
		"paho packs a will's properties with the CONNECT's rules and so drops Payload Format Indicator, Message Expiry Interval, Content Type, Response Topic and Correlation Data (it decodes them)"},
	{"paho", []string{"publish-5-subids"}, []step{stepPeerEncode},
		"paho holds one subscription identifier per packet (Properties.SubscriptionIdentifier *int)"},
	{"paho", []string{"publish-5-subids"}, []step{stepPeerDecode},
		"paho keeps only the last of several subscription identifiers"},
	{"paho", []string{"connect-5-props", "connack-5"}, []step{stepNetkitReencode, stepPeerReencode},
		"paho writes CONNECT and CONNACK properties in an order of its own, netkit in identifier order; MQTT 5.0 leaves the order free (user properties keep theirs in both)"},
	{"paho", append(slices.Clip(ackCases5), "disconnect-5", "disconnect-5-reason"), []step{stepNetkitReencode},
		"paho always writes the reason code of a 5.0 PUBACK…PUBCOMP and DISCONNECT, and the property length of a PUBACK and DISCONNECT; netkit writes the shortest form"},
	{"paho", append(slices.Clip(ackCases5), "disconnect-5-reason"), []step{stepPeerReencode},
		"as above, the other way"},
	{"paho", []string{"disconnect-5"}, []step{stepPeerDecode},
		"paho rejects a DISCONNECT of Remaining Length 0 (io.EOF), which MQTT 5.0 allows for a normal disconnection without properties (§3.14.2.1)"},
}

// documented reports the row of differences for peer, case and step.
func documented(peer, name string, s step) *difference {
	for i := range differences {
		d := &differences[i]
		if d.peer == peer && slices.Contains(d.cases, name) && slices.Contains(d.steps, s) {
			return d
		}
	}
	return nil
}

// TestDifferential runs every case each peer can express both ways
// between the peer and netkit, and checks that every disagreement is a
// row of differences, and every row a disagreement.
func TestDifferential(t *testing.T) {
	seen := map[string]bool{} // peer/case/step that disagreed
	for _, c := range cases {
		nb, err := Netkit.Encode(&c.p)
		require.NoError(t, err, "netkit cannot encode %s", c.name)
		if got, n, err := Netkit.Decode(nb, c.p.Version); err != nil || n != len(nb) || !Equal(got, &c.p) {
			t.Fatalf("netkit does not decode its own %s: % X: %v, %d bytes\n got %v\nwant %v", c.name, nb, err, n, got, &c.p)
		}
		for _, peer := range peers {
			if !peer.Speaks(c.p.Version) {
				continue
			}
			for _, d := range compare(peer, &c, nb) {
				key := peer.Name + "/" + c.name + "/" + string(d.step)
				seen[key] = true
				assert.NotNil(t, documented(peer.Name, c.name, d.step), "%s: %s: %s: %s", peer.Name, c.name, d.step, d.detail)
			}
		}
	}
	for _, d := range differences {
		for _, name := range d.cases {
			for _, s := range d.steps {
				assert.True(t, seen[d.peer+"/"+name+"/"+string(s)], "stale row of differences: %s %s %s agrees now", d.peer, name, s)
			}
		}
	}
}

type disagreement struct {
	step   step
	detail string
}

// compare runs case c both ways between peer and netkit, whose encoding of
// c is nb, and returns where they disagree. A step that disagrees ends its
// direction: the next one would only repeat it.
func compare(peer *Impl, c *packetCase, nb []byte) []disagreement {
	var ds []disagreement
	fail := func(s step, format string, args ...any) {
		ds = append(ds, disagreement{s, fmt.Sprintf(format, args...)})
	}
	v := c.p.Version

	// Peer to netkit.
	if pb, err := peer.Encode(&c.p); err != nil {
		fail(stepPeerEncode, "%v", err)
	} else if got, n, err := Netkit.Decode(pb, v); err != nil || n != len(pb) {
		fail(stepNetkitDecode, "% X: %v (%d of %d bytes)", pb, err, n, len(pb))
	} else if !Equal(got, &c.p) {
		fail(stepNetkitDecode, "% X:\n got %v\nwant %v", pb, got, &c.p)
	} else if nb2, err := Netkit.Encode(got); err != nil || !bytes.Equal(nb2, pb) {
		fail(stepNetkitReencode, "%v\npeer   % X\nnetkit % X", err, pb, nb2)
	}

	// Netkit to peer.
	if got, n, err := peer.Decode(nb, v); err != nil || n != len(nb) {
		fail(stepPeerDecode, "% X: %v (%d of %d bytes)", nb, err, n, len(nb))
	} else if !Equal(got, &c.p) {
		fail(stepPeerDecode, "% X:\n got %v\nwant %v", nb, got, &c.p)
	} else if pb, err := peer.Encode(got); err != nil || !bytes.Equal(pb, nb) {
		fail(stepPeerReencode, "%v\nnetkit % X\npeer   % X", err, nb, pb)
	}
	return ds
}

// TestPeersRoundTrip checks the adapters: each peer decodes its own
// encoding of each case it can express to the case's fields, except where
// differences says its encoder changes the packet.
func TestPeersRoundTrip(t *testing.T) {
	for _, c := range cases {
		for _, peer := range peers {
			if !peer.Speaks(c.p.Version) {
				continue
			}
			b, err := peer.Encode(&c.p)
			if errors.Is(err, ErrInexpressible) {
				continue
			}
			if err != nil {
				t.Errorf("%s: %s: %v", peer.Name, c.name, err)
				continue
			}
			got, n, err := peer.Decode(b, c.p.Version)
			if err != nil || n != len(b) {
				t.Errorf("%s: %s: % X: %v (%d of %d bytes)", peer.Name, c.name, b, err, n, len(b))
				continue
			}
			if !Equal(got, &c.p) && documented(peer.Name, c.name, stepNetkitDecode) == nil {
				t.Errorf("%s: %s: % X:\n got %v\nwant %v", peer.Name, c.name, b, got, &c.p)
			}
		}
	}
}

// TestEveryType checks that the cases hold every packet type in each
// version a peer speaks, so that "every packet each peer encodes" holds.
func TestEveryType(t *testing.T) {
	for _, v := range []byte{V311, V5} {
		for typ := Connect; typ <= Auth; typ++ {
			if typ == Auth && v == V311 {
				continue
			}
			if !slices.ContainsFunc(cases, func(c packetCase) bool { return c.p.Type == typ && c.p.Version == v }) {
				t.Errorf("no case of %s in version %d", TypeName(typ), v)
			}
		}
	}
}

// differencesMarkdown renders differences as a markdown table.
func differencesMarkdown() string {
	var b strings.Builder
	b.WriteString("| peer | packets | where | why |\n|---|---|---|---|\n")
	for _, d := range differences {
		steps := make([]string, len(d.steps))
		for i, s := range d.steps {
			steps[i] = string(s)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", d.peer, "`"+strings.Join(d.cases, "`, `")+"`",
			strings.Join(steps, ", "), d.why)
	}
	return b.String()
}
