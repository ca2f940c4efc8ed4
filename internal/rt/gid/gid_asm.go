//go:build (amd64 || arm64) && !nounsafe && !purego

package gid

// Current returns an identifier of the calling goroutine (see the package
// doc).
func Current() uintptr { return getg() }

func getg() uintptr

// ThreadBound reports that Current identifies the calling thread rather
// than the goroutine: false here, the goroutine's descriptor is exact.
const ThreadBound = false
