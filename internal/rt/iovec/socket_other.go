//go:build !linux && !darwin && !openbsd

package iovec

// NotStream reports false: without Writev here, callers do not write
// through descriptors.
func NotStream(fd uintptr) bool { return false }
