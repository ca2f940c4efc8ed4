//go:build !amd64 || purego

package search

// teddyOn reports whether Sets use their Teddy prefilter: never without
// the amd64 kernels; pure Go keeps the byte prefilter and the automaton's
// lanes (Teddy's test done one offset at a time, nextGo, is not measured
// to pay there).
func teddyOn() bool { return false }

// block is blockGo: without kernels, only the tests call it.
func (t *teddy) block(h []byte, i int) (int, uint64, int) { return t.blockGo(h, i) }

// batch is batchGo: without kernels, only the tests call it.
func (t *teddy) batch(h []byte, i, m int, lean bool, out *[64]uint64) (int, uint64) {
	return t.batchGo(h, i, m, lean, out)
}

// batchGo is the batch kernels' pure-Go equivalent (see batch), for the
// tests.
func (t *teddy) batchGo(h []byte, i, m int, lean bool, out *[64]uint64) (words int, sum uint64) {
	words = min(64, (len(h)-i-m+1)/64)
	full := m
	if lean {
		full = 1
	}
	for j := range words {
		var mask uint64
		for b := range 64 {
			if t.candidateLean(h, i+64*j+b, m, full) {
				mask |= 1 << b
			}
		}
		if mask != 0 {
			out[j] = mask
			sum |= 1 << j
		}
	}
	return words, sum
}

// candidateLean reports whether offset p of h, with p+m <= len(h), passes
// Teddy's test with the first m bytes of the fingerprint, the bytes from
// full on by their low nibble only.
func (t *teddy) candidateLean(h []byte, p, m, full int) bool {
	b := byte(0xff)
	for k := range m {
		c := h[p+k]
		if k < full {
			b &= t.bits(k, c)
		} else if c < 0x80 || !t.ascii {
			b &= t.masks[2*k][c&15]
		} else {
			b = 0 // the ASCII kernels' shuffle gives 0 for c > 0x7f
		}
	}
	return b != 0
}
