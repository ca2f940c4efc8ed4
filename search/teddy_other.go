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
