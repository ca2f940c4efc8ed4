package search

import "github.com/netkit/netkit/internal/rt/pairscan"

// simdLevel orders the vector units the search kernels can use; simd (set
// at start-up, per platform) is the widest one this process uses. The
// levels are those of the packed-pair prefilter (internal/rt/pairscan),
// which Pattern.Index shares with buf's Composite.Index; Teddy's kernels
// (teddy_amd64.s) run at the same levels.
type simdLevel = pairscan.Level

const (
	simdNone = pairscan.None // pure Go
	simdSSE2 = pairscan.SSE2 // 16-byte vectors
	simdAVX2 = pairscan.AVX2 // 32-byte vectors
)

// simd is the widest vector unit the kernels may use, chosen once at
// start-up: AVX2 where the CPU (and the OS, for the YMM state) supports it,
// SSE2, which every amd64 CPU has, otherwise; pure Go without the amd64
// kernels (another architecture, or the purego build tag). Tests lower it
// to check each path against the others.
var simd = pairscan.Best

// kernelsBuilt reports whether this build has the vector kernels.
const kernelsBuilt = pairscan.Built
