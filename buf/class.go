package buf

import "math/bits"

// Size classes. Sizes start at 16 bytes and come four to a doubling, as in
// jemalloc and Netty: 16, 20, 24, 28, 32, 40, 48, 56, 64, 80, … . Between 2^k
// and 2^(k+1) the classes are 2^k + j·2^(k-2) for j = 1…4, so a request is
// rounded up by less than a fifth of its class size (internal waste < 20%).
const (
	minClassShift = 4                  // log2 of the smallest class
	minClassSize  = 1 << minClassShift // 16 bytes

	// DefaultMaxSize is the largest pooled size of an Allocator made without
	// WithMaxSize: requests above it are served unpooled.
	DefaultMaxSize = 64 << 10

	// MaxPooledSize is the largest value WithMaxSize accepts.
	MaxPooledSize = 16 << 20

	// carveMax is the largest class carved out of shared chunks; larger
	// classes get a block of their own.
	carveMax = 4 << 10

	// chunkSize is the size of the chunks small classes are carved from.
	chunkSize = 64 << 10
)

// Pseudo-classes of buffers that are not pooled.
const (
	classLarge   = -1 // above the allocator's largest class: allocated and dropped
	classWrapped = -2 // memory supplied by the caller through Wrap
	classView    = -3 // a pooled view of another buffer's memory (derived.go)
)

// classOf returns the index of the smallest class whose size is at least n.
// It is O(1): one table load for the classes carved from chunks (those of
// most gets), a leading-zero count and a few shifts above them.
func classOf(n int) int {
	if uint(n) <= carveMax {
		return int(smallClasses[(uint(n)+smallStep-1)/smallStep])
	}
	return classOfCalc(n)
}

// smallStep is the granularity of smallClasses: the step between the
// smallest classes (16, 20, 24, 28), which every class boundary up to
// carveMax is a multiple of.
const smallStep = minClassSize / 4

// smallClasses[i] is classOf(n) for the n in (smallStep·(i-1), smallStep·i],
// up to carveMax: 1 KiB, which saves the shifts of classOfCalc (about 15
// instructions of a Get's 140 beyond its sync.Pool, measured with callgrind).
var smallClasses = func() (t [carveMax/smallStep + 1]uint8) {
	for i := range t {
		t[i] = uint8(classOfCalc(i * smallStep))
	}
	return t
}()

// classOfCalc is classOf computed: the index of the smallest class whose
// size is at least n.
func classOfCalc(n int) int {
	if n <= minClassSize {
		return 0
	}
	k := bits.Len(uint(n-1)) - 1 // 2^k < n <= 2^(k+1), k >= 4
	step := 1 << (k - 2)
	j := (n - 1<<k + step - 1) >> (k - 2) // 1…4
	return 4*(k-minClassShift) + j
}

// classSize returns the size in bytes of class c.
func classSize(c int) int {
	if c == 0 {
		return minClassSize
	}
	k := minClassShift + (c-1)/4
	j := (c-1)%4 + 1
	return 1<<k + j<<(k-2)
}
