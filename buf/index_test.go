package buf_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf/buftest"
)

// TestCompositeIndexSeams checks Composite.Index against bytes.Index on
// the flat bytes for needles placed across every seam at every offset,
// in text whose rare bytes sit at the start, the middle and the end of
// the needles, and in text made only of frequent bytes or of one rare
// byte repeated, where the prefilter's guess is poor.
func TestCompositeIndexSeams(t *testing.T) {
	buftest.CheckLeaks(t)
	texts := map[string][]byte{
		"source":   []byte("func (c *Composite) Index(needle []byte) int {\n\tif m := len(needle); m == 0 {\n\t\treturn 0\n\t}\n\treturn -1 // Q~Z\n}\n"),
		"frequent": bytes.Repeat([]byte("the tea in the east "), 6),
		"rare":     append(bytes.Repeat([]byte("~"), 90), "~e~~"...),
		"binary":   {0xff, 0x00, 0xff, 0xfe, 0x00, 0x00, 0x01, 0xff, 0x80, 0xc3, 0xa9, 0xff, 0x00, 0xff, 0xfe, 0x00, 0x01, 0x01, 0x7f, 0xff},
	}
	layouts := [][]int{{1}, {2, 3}, {7}, {5, 1, 9, 2}, {16}}
	for name, text := range texts {
		for _, layout := range layouts {
			t.Run(fmt.Sprintf("%s/%v", name, layout), func(t *testing.T) {
				c := compNew(text, layout)
				defer c.Release()
				// Seam offsets of the layout.
				var seams []int
				for off, k := 0, 0; off < len(text); k++ {
					off += layout[k%len(layout)]
					if off < len(text) {
						seams = append(seams, off)
					}
				}
				for _, m := range []int{1, 2, 3, 4, 8, 17} {
					for _, e := range seams {
						for s := max(0, e-m+1); s < e && s+m <= len(text); s++ {
							needle := text[s : s+m]
							require.Equal(t, bytes.Index(text, needle), c.Index(needle), "Index(%q), across the seam at %d, layout %v", needle, e, layout)
							// The same needle with its last byte changed: often absent.
							alt := bytes.Clone(needle)
							alt[m-1] ^= 0x20
							require.Equal(t, bytes.Index(text, alt), c.Index(alt), "Index(%q), layout %v", alt, layout)
						}
					}
				}
				// From each reader position, a needle cut at the end.
				for skip := range len(text) {
					require.NoError(t, c.Skip(min(1, skip)))
					h := text[skip:]
					for _, m := range []int{2, 5} {
						if m <= len(h) {
							needle := h[len(h)-m:]
							require.Equal(t, bytes.Index(h, needle), c.Index(needle), "Index(%q) after skipping %d, layout %v", needle, skip, layout)
						}
					}
				}
			})
		}
	}
}
