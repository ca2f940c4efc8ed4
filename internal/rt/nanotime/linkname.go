//go:build !nounsafe

package nanotime

import _ "unsafe" // for go:linkname

// Nano returns the monotonic clock's reading in nanoseconds.
//
//go:linkname Nano runtime.nanotime
func Nano() int64
