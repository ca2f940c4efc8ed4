//go:build !linux && !((amd64 || arm64) && !nounsafe && !purego)

package gid

import "runtime"

// Current returns the calling goroutine's number, parsed from the first
// line of its stack trace, "goroutine N [running]:" (see the package doc).
func Current() uintptr {
	var b [64]byte
	s := b[:runtime.Stack(b[:], false)]
	const prefix = "goroutine "
	if len(s) < len(prefix) {
		return 0
	}
	var id uintptr
	for _, c := range s[len(prefix):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uintptr(c-'0')
	}
	return id
}

// ThreadBound reports that Current identifies the calling thread rather
// than the goroutine: false here, the goroutine's number is exact.
const ThreadBound = false
