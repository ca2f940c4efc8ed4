package search

// simdLevel orders the vector units the search kernels can use; simd (set
// at start-up, per platform) is the widest one this process uses.
type simdLevel uint8

const (
	simdNone simdLevel = iota // pure Go
	simdSSE2                  // 16-byte vectors
	simdAVX2                  // 32-byte vectors
)

func (l simdLevel) String() string {
	switch l {
	case simdSSE2:
		return "sse2"
	case simdAVX2:
		return "avx2"
	}
	return "purego"
}
