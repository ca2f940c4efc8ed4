//go:build linux && nounsafe

package iovec

import (
	"os"
	"syscall"
)

// An Array is the pure-Go twin's state: none, as each buffer goes to the
// kernel by itself.
type Array struct{}

// Writev writes the first Max of bufs (empty ones skipped) to fd, one
// write(2) per buffer, and returns the bytes written. It stops at the first
// write that takes less than its whole buffer, so that the bytes written
// are always the first n, as writev's are; a partial write is not an error.
// Errors are as the writev version's: EAGAIN and EINTR come back bare
// when nothing was written, and are dropped (reported by the next call)
// when something was.
func (a *Array) Writev(fd uintptr, bufs [][]byte) (int, error) {
	n, k := 0, 0
	for _, b := range bufs {
		if k == Max {
			break
		}
		if len(b) == 0 {
			continue
		}
		k++
		m, err := syscall.Write(int(fd), b)
		if m > 0 {
			n += m
		}
		switch {
		case err == nil && m == len(b):
			continue
		case err == nil || n > 0:
			return n, nil
		case err == syscall.EAGAIN || err == syscall.EINTR:
			return 0, err
		}
		return 0, os.NewSyscallError("writev", err)
	}
	return n, nil
}

// Retry reports whether err from Writev means "try again": EINTR.
func Retry(err error) bool { return err == syscall.EINTR }

// Wait reports whether err from Writev means the descriptor is not ready
// for writing: EAGAIN.
func Wait(err error) bool { return err == syscall.EAGAIN }

// WritevNonblock is Writev: this build has no raw system call path.
func (a *Array) WritevNonblock(fd uintptr, bufs [][]byte) (int, error) { return a.Writev(fd, bufs) }
