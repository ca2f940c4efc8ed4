package http1

import (
	"encoding/binary"
	"testing"
)

// TestMayBeCTL checks the word test against the byte test: every byte a
// field value may not hold, at every position of a word among any other
// bytes, is flagged (false alarms are allowed), and a word of value bytes
// without obs-text or HTAB is not.
func TestMayBeCTL(t *testing.T) {
	var w [8]byte
	for pos := 0; pos < 8; pos++ {
		for fill := 0; fill < 256; fill++ {
			for c := 0; c < 256; c++ {
				for i := range w {
					w[i] = byte(fill)
				}
				w[pos] = byte(c)
				bad := false
				for _, b := range w {
					bad = bad || badValueByte(b)
				}
				got := mayBeCTL(binary.LittleEndian.Uint64(w[:]))
				if bad && !got {
					t.Fatalf("%q: a control byte not flagged", w)
				}
				if !bad && got && fill < 0x80 && c < 0x80 && fill != '\t' && c != '\t' {
					t.Fatalf("%q: flagged without a control byte, HTAB or obs-text", w)
				}
			}
		}
	}
	for _, s := range []string{"abc\tdef", "x", "", "0123456789abcdef0123456789\x01", "é\x80\xff\r\n"} {
		want := badValue([]byte(s))
		got := firstCTL([]byte(s), 0)
		if want < 0 {
			want = len(s)
		}
		if got != want {
			t.Errorf("firstCTL(%q) = %d, want %d", s, got, want)
		}
	}
}
