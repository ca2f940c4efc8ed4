package http1

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestIPv6 checks ipv6 against net/netip on literals of every shape.
func TestIPv6(t *testing.T) {
	for _, s := range []string{"::", "::1", "1::", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8", "1::8", "fe80::1",
		"::ffff:1.2.3.4", "1:2:3:4:5:6:1.2.3.4", "::1.2.3.4", "1:2:3:4:5:6:7:8:9", ":1::", "1:::2", "1::2::3", ":0:", "12345::",
		"1:2:3:4:5:6:7", "::1.2.3", "::1.2.3.256", "::01.2.3.4", "1.2.3.4", "", ":", "::g", "1:2:3:4:5:6:7:8::", "::1:2:3:4:5:6:7", "fe80::1%en0", "0:0:0:0:0:0:0:0"} {
		ip, err := netip.ParseAddr(s)
		want := err == nil && ip.Is6() && ip.Zone() == ""
		got := ipv6([]byte(s))
		assert.Equal(t, want, got, "ipv6(%q) = %v, netip says %v", s, got, want)
	}
}

func FuzzIPv6(f *testing.F) {
	for _, s := range []string{"::", "1:2:3:4:5:6:7:8", "::ffff:1.2.3.4", "fe80::1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ip, err := netip.ParseAddr(s)
		want := err == nil && ip.Is6() && ip.Zone() == ""
		got := ipv6([]byte(s))
		assert.Equal(t, want, got, "ipv6(%q) = %v, netip says %v", s, got, want)
	})
}
