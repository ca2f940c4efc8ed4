//go:build darwin || openbsd

package iovec

import (
	"os"

	"golang.org/x/sys/unix"
)

// An Array holds the buffers of Writev calls, reused from call to call.
type Array struct{ v [][]byte }

// Writev writes the first Max of bufs (empty ones skipped) to fd with one
// writev call and returns the bytes written, which may be fewer than the
// total (a partial write). Errors are the system call's, wrapped by
// os.NewSyscallError, except EAGAIN and EINTR, which are returned as the
// bare unix.Errno so that the caller can wait or retry. It uses
// unix.Writev, which allocates its iovec array past 8 buffers.
func (a *Array) Writev(fd uintptr, bufs [][]byte) (int, error) {
	a.v = a.v[:0]
	for _, b := range bufs {
		if len(a.v) == Max {
			break
		}
		if len(b) > 0 {
			a.v = append(a.v, b)
		}
	}
	if len(a.v) == 0 {
		return 0, nil
	}
	n, err := unix.Writev(int(fd), a.v)
	clear(a.v) // drop the references to the caller's memory
	switch err {
	case nil:
		return n, nil
	case unix.EAGAIN, unix.EINTR:
		return 0, err
	}
	return 0, os.NewSyscallError("writev", err)
}

// Retry reports whether err from Writev means "try again": EINTR.
func Retry(err error) bool { return err == unix.EINTR }

// Wait reports whether err from Writev means the descriptor is not ready
// for writing: EAGAIN.
func Wait(err error) bool { return err == unix.EAGAIN }

// WritevNonblock is Writev: this build has no raw system call path.
func (a *Array) WritevNonblock(fd uintptr, bufs [][]byte) (int, error) { return a.Writev(fd, bufs) }
