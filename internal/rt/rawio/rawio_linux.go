//go:build linux && !nounsafe

package rawio

import (
	"syscall"
	"unsafe"
)

// Read reads into p from fd, which must be in non-blocking mode, and
// returns the byte count or the system call's error number (EAGAIN when
// nothing is ready, EINTR to retry). An empty p reads nothing and returns 0.
// On a blocking descriptor it would hold the caller's P for as long as the
// read blocks: never use it there.
func Read(fd int, p []byte) (int, syscall.Errno) {
	if len(p) == 0 {
		return 0, 0
	}
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return 0, e
	}
	return int(n), 0
}
