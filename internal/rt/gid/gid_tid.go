//go:build linux && !((amd64 || arm64) && !nounsafe && !purego)

package gid

import "syscall"

// Current returns the calling goroutine's OS thread id (see the package
// doc).
func Current() uintptr { return uintptr(syscall.Gettid()) }
