//go:build linux && !nounsafe

package pwait2

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Poll stores the events ready on the epoll instance epfd at the front of
// events, without waiting, and returns how many. It enters the kernel
// directly (a raw system call): a call that cannot block needs none of
// the runtime's bookkeeping for one that might, which lets the scheduler
// hand the caller's P to another thread. events must not be empty.
func Poll(epfd int, events []unix.EpollEvent) (int, error) {
	n, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd),
		uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), 0, 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}
