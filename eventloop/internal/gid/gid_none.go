//go:build !amd64 && !arm64 && !linux

package gid

// Current has no cheap answer here; the event loop, its only user, runs
// on Linux only, and elsewhere returns ErrUnsupported before asking.
func Current() uintptr { return 0 }
