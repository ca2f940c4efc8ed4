package buf_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzCompositeIndex checks Composite.Index against bytes.Index on the
// flat bytes, for a composite cut from data at sizes the input chooses
// (1 to 16 bytes, cycled), read from an offset the input chooses, and
// needles both given and cut from the data (so that matches, many of them
// across seams, are common).
func FuzzCompositeIndex(f *testing.F) {
	f.Add([]byte("hello\r\n\r\nbody"), []byte{6, 1, 1, 1, 9}, []byte("\r\n\r\n"), uint16(0))
	f.Add([]byte("aaaaaaaaaaaaaaaaaaaaaaab"), []byte{2, 3}, []byte("aaaaab"), uint16(5))
	f.Add([]byte("xyzxyzxyzxyzxy"), []byte{1}, []byte("xyzxyzxyzxyzxyz"), uint16(0))
	f.Add([]byte("abcabcabd"), []byte{4}, []byte(""), uint16(0x0307))
	f.Fuzz(func(t *testing.T, data, cuts, needle []byte, at uint16) {
		if len(cuts) == 0 {
			cuts = []byte{1}
		}
		layout := make([]int, len(cuts))
		for i, k := range cuts {
			layout[i] = 1 + int(k)%16
		}
		c := compNew(data, layout)
		defer c.Release()
		skip := int(at&0xff) % (len(data) + 1)
		require.NoError(t, c.Skip(skip))
		h := data[skip:]
		require.Equal(t, bytes.Index(h, needle), c.Index(needle), "Index(%q) in %q (layout %v)", needle, h, layout)
		if len(h) > 0 { // a needle cut from the bytes: found at or before where it was cut
			i := int(at>>8) % len(h)
			cut := h[i:min(len(h), i+1+len(needle))]
			require.Equal(t, bytes.Index(h, cut), c.Index(cut), "Index(%q) in %q (layout %v)", cut, h, layout)
		}
	})
}
