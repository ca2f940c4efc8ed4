//go:build !amd64 || purego

package search

// Without the amd64 kernels simd is always simdNone, so Pattern.Index never
// calls indexPacked, whose kernels these stand in for.

func packedPairAVX2(a, b *byte, m int, b1, b2 byte) (off int, mask uint64) {
	panic("search: packedPairAVX2 without the amd64 kernels")
}

func packedPairSSE2(a, b *byte, m int, b1, b2 byte) (off int, mask uint64) {
	panic("search: packedPairSSE2 without the amd64 kernels")
}

func packedTripleAVX2(a, b, c *byte, m int, b1, b2, b3 byte) (off int, mask uint64) {
	panic("search: packedTripleAVX2 without the amd64 kernels")
}

func packedTripleSSE2(a, b, c *byte, m int, b1, b2, b3 byte) (off int, mask uint64) {
	panic("search: packedTripleSSE2 without the amd64 kernels")
}
