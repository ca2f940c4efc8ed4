//go:build !amd64 || purego

package search

// Without the amd64 kernels (another architecture, or the purego build
// tag), every search runs the pure-Go code.
var simd = simdNone

// kernelsBuilt reports whether this build has the vector kernels.
const kernelsBuilt = false
