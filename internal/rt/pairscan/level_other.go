//go:build !amd64 || purego

package pairscan

// Built reports whether this build has the vector kernels.
const Built = false

// Best is the widest level this process may use: None, the Go twins,
// without the amd64 kernels (another architecture, or the purego tag).
var Best = None

// Without the kernels, scan never calls these (Built is false); they
// keep its code the same in every build.

func packedPairAVX2(a, b *byte, m int, b1, b2 byte) (off int, mask uint64) {
	panic("pairscan: packedPairAVX2 without the amd64 kernels")
}

func packedPairSSE2(a, b *byte, m int, b1, b2 byte) (off int, mask uint64) {
	panic("pairscan: packedPairSSE2 without the amd64 kernels")
}

func packedTripleAVX2(a, b, c *byte, m int, b1, b2, b3 byte) (off int, mask uint64) {
	panic("pairscan: packedTripleAVX2 without the amd64 kernels")
}

func packedTripleSSE2(a, b, c *byte, m int, b1, b2, b3 byte) (off int, mask uint64) {
	panic("pairscan: packedTripleSSE2 without the amd64 kernels")
}
