package frame

import (
	"bytes"

	"github.com/netkit/netkit/internal/rt/bytemask"
)

// masks is the scratch of the line and delimiter scans: one bit per byte
// of up to 4 KiB of a component, set where the byte is one the scan looks
// for. Walking a mask's set bits (bits.TrailingZeros64) finds each frame's
// end in a few instructions; a search call per frame cannot, at 36-byte
// lines.
type masks [64]uint64

// fill sets m's words to the masks of p's first bytes equal to c1 or c2
// (the same byte twice for one), 64 bytes per word, up to 4 KiB, and
// returns how many words it filled and how many bytes they cover (all of
// p, or 4 KiB); the last word may cover fewer than 64 bytes. The vector
// kernels make the full words where they run (bytemask.Built); elsewhere
// bytes.IndexByte finds the bytes.
func (m *masks) fill(p []byte, c1, c2 byte) (words, covered int) {
	full := min(len(p)/64, len(m))
	if full > 0 {
		if bytemask.Built {
			bytemask.Masks(m[:full], p, c1, c2)
		} else {
			m.fillSlow(full, p, c1, c2)
		}
	}
	covered = 64 * full
	if full < len(m) && covered < len(p) {
		// The last bytes, fewer than 64: a byte at a time.
		var w uint64
		for j, c := range p[covered:] {
			if c == c1 || c == c2 {
				w |= 1 << j
			}
		}
		m[full] = w
		full++
		covered = len(p)
	}
	return full, covered
}

// fillSlow fills m's first n words, without the kernels.
func (m *masks) fillSlow(n int, p []byte, c1, c2 byte) {
	clear(m[:n])
	p = p[:64*n]
	for _, c := range []byte{c1, c2} {
		for off := 0; ; {
			i := bytes.IndexByte(p[off:], c)
			if i < 0 {
				break
			}
			off += i
			m[off/64] |= 1 << (off % 64)
			off++
		}
		if c1 == c2 {
			break
		}
	}
}
