//go:build linux && nounsafe

package rawio

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// Read reads into p from fd through unix.Read (the runtime's system call
// path); the errors are Read's of the raw build.
func Read(fd int, p []byte) (int, syscall.Errno) {
	if len(p) == 0 {
		return 0, 0
	}
	n, err := unix.Read(fd, p)
	if err != nil {
		return 0, err.(syscall.Errno)
	}
	return n, 0
}
