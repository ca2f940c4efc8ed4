//go:build linux && !nounsafe

package iovec

import (
	"os"
	"syscall"
	"unsafe"
)

// An Array holds the iovec entries of Writev calls, reused from call to
// call so that a write allocates nothing once the array has grown.
type Array struct{ v []syscall.Iovec }

// Writev writes the first Max of bufs (empty ones skipped) to fd with one
// writev call and returns the bytes written, which may be fewer than the
// total (a partial write). Errors are the system call's, wrapped by
// os.NewSyscallError, except EAGAIN and EINTR, which are returned as the
// bare syscall.Errno so that the caller can wait or retry.
func (a *Array) Writev(fd uintptr, bufs [][]byte) (int, error) {
	return a.writev(fd, bufs, false)
}

// WritevNonblock is Writev for a descriptor in non-blocking mode, which
// the call cannot block on: it enters the kernel directly (a raw system
// call), without the runtime's bookkeeping for a call that may block,
// which also lets the scheduler hand the caller's P to another thread
// when the call takes long. On a blocking descriptor it would hold the P
// for as long as the write blocks: never use it there.
func (a *Array) WritevNonblock(fd uintptr, bufs [][]byte) (int, error) {
	return a.writev(fd, bufs, true)
}

func (a *Array) writev(fd uintptr, bufs [][]byte, raw bool) (int, error) {
	a.v = a.v[:0]
	for _, b := range bufs {
		if len(a.v) == Max {
			break
		}
		if len(b) == 0 {
			continue
		}
		v := syscall.Iovec{Base: &b[0]}
		v.SetLen(len(b))
		a.v = append(a.v, v)
	}
	if len(a.v) == 0 {
		return 0, nil
	}
	var (
		n     uintptr
		errno syscall.Errno
	)
	if raw {
		n, _, errno = syscall.RawSyscall(syscall.SYS_WRITEV, fd, uintptr(unsafe.Pointer(&a.v[0])), uintptr(len(a.v)))
	} else {
		n, _, errno = syscall.Syscall(syscall.SYS_WRITEV, fd, uintptr(unsafe.Pointer(&a.v[0])), uintptr(len(a.v)))
	}
	clear(a.v) // drop the pointers into the caller's memory
	switch errno {
	case 0:
		return int(n), nil
	case syscall.EAGAIN, syscall.EINTR:
		return 0, errno
	}
	return 0, os.NewSyscallError("writev", errno)
}

// Retry reports whether err from Writev means "try again": EINTR.
func Retry(err error) bool { return err == syscall.EINTR }

// Wait reports whether err from Writev means the descriptor is not ready
// for writing: EAGAIN.
func Wait(err error) bool { return err == syscall.EAGAIN }
