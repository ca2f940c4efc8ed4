//go:build !linux && !darwin && !openbsd

package iovec

// An Array holds the iovec entries of Writev calls.
type Array struct{}

// Writev returns ErrUnsupported: only Linux, darwin and OpenBSD have this
// fast path.
func (a *Array) Writev(fd uintptr, bufs [][]byte) (int, error) { return 0, ErrUnsupported }

// Retry reports whether err from Writev means "try again".
func Retry(err error) bool { return false }

// Wait reports whether err from Writev means the descriptor is not ready.
func Wait(err error) bool { return false }

// WritevNonblock is Writev: this build has no raw system call path.
func (a *Array) WritevNonblock(fd uintptr, bufs [][]byte) (int, error) { return a.Writev(fd, bufs) }
