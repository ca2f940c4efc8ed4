package query

import (
	"encoding/binary"
	"testing"
)

// TestUnreserved checks the 8-byte test against the table for every byte in
// every lane, among neighbours that are kept and neighbours that are not.
func TestUnreserved(t *testing.T) {
	for _, fill := range []byte{'a', '~', '0', 0x7f, 0x80, 0xff} {
		for lane := range 8 {
			for c := range 256 {
				p := []byte{fill, fill, fill, fill, fill, fill, fill, fill}
				p[lane] = byte(c)
				want := true
				for _, b := range p {
					want = want && keep[b]
				}
				if got := unreserved(binary.LittleEndian.Uint64(p)) == highs; got != want {
					t.Fatalf("unreserved(%q) = %v, want %v", p, got, want)
				}
			}
		}
	}
}

func TestKeepPrefix(t *testing.T) {
	for n := range 40 {
		for bad := range n + 1 {
			s := make([]byte, n)
			for i := range s {
				s[i] = "aZ09-._~"[i%8]
			}
			if bad < n {
				s[bad] = '/'
			}
			if got := keepPrefix(s); got != bad {
				t.Fatalf("keepPrefix(%q) = %d, want %d", s, got, bad)
			}
		}
	}
}
