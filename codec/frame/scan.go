package frame

import (
	"bytes"
	"math/bits"

	"github.com/netkit/netkit/internal/rt/bytemask"
)

// blockBytes is how much of a component the line and delimiter scans look
// at in one step: the bytes a masks covers. Both scratch arrays live on
// the scan's stack (about 4.3 KiB); a block of 512 bytes cost 6% more
// time per line on Go source (the per-block calls), one of 2048 is within
// noise of larger ones.
const blockBytes = 2048

// masks is the scratch of the line and delimiter scans: one bit per byte
// of up to blockBytes of a component, set where the byte is one the scan
// looks for.
type masks [blockBytes / 64]uint64

// hits is what flatten makes of a masks: the offsets of its set bits, in
// order, with room for flatten's unconditional stores past the last.
// Walking these is a loop whose only exit is the end of the block, where
// walking each word's bits (bits.TrailingZeros64) exits once per word at a
// data-dependent count: a mispredicted branch for most words at 36-byte
// lines, and the larger part of the cost per line.
type hits [blockBytes + 4]uint16

// flatten stores the offsets of the set bits of ms, in order, in h and
// returns how many there are. Each word's first four offsets are stored
// whether it has them or not (past the last, the stores are overwritten
// or ignored), so that only a word with more than four takes a branch
// that the data decides.
func (h *hits) flatten(ms []uint64) int {
	n := 0
	for w, m := range ms {
		b := uint16(64 * w)
		cnt := bits.OnesCount64(m)
		e := h[n : n+4 : n+4]
		e[0] = b + uint16(bits.TrailingZeros64(m))
		m &= m - 1
		e[1] = b + uint16(bits.TrailingZeros64(m))
		m &= m - 1
		e[2] = b + uint16(bits.TrailingZeros64(m))
		m &= m - 1
		e[3] = b + uint16(bits.TrailingZeros64(m))
		if cnt > 4 {
			m &= m - 1
			for j := n + 4; m != 0; j++ {
				h[j] = b + uint16(bits.TrailingZeros64(m))
				m &= m - 1
			}
		}
		n += cnt
	}
	return n
}

// fill sets m's words to the masks of p's first bytes equal to c1 or c2
// (the same byte twice for one), 64 bytes per word, up to blockBytes,
// and returns how many words it filled and how many bytes they cover (all
// of p, or blockBytes); the last word may cover fewer than 64 bytes. The vector
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
