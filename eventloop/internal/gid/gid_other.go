//go:build !amd64 && !arm64 && linux

package gid

import "syscall"

// Current returns the calling goroutine's OS thread id (see the package
// doc).
func Current() uintptr { return uintptr(syscall.Gettid()) }
