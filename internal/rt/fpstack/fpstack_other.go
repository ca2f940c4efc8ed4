//go:build !amd64 || purego || nounsafe

package fpstack

import "runtime"

// Walked reports whether Callers walks frame pointers (true) or calls
// runtime.Callers (false).
const Walked = false

// Callers fills pcs with the return PCs of the stack of the function that
// calls it, starting with the return into that function's caller (what
// runtime.Callers(2, pcs) returns there), and returns how many it wrote.
// It does not allocate.
func Callers(pcs []uintptr) int {
	// Skip runtime.Callers, this function and its caller.
	return runtime.Callers(3, pcs)
}
