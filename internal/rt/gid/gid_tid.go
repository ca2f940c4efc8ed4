//go:build linux && !((amd64 || arm64) && !nounsafe && !purego)

package gid

import "syscall"

// Current returns the calling goroutine's OS thread id (see the package
// doc).
func Current() uintptr { return uintptr(syscall.Gettid()) }

// ThreadBound reports that Current identifies the calling thread, not the
// goroutine: it tells goroutines apart only when each is locked to its
// thread (runtime.LockOSThread), so a caller that relies on it locks.
const ThreadBound = true
