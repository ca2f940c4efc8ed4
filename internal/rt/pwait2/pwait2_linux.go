//go:build linux && !nounsafe

package pwait2

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Wait waits for events on the epoll instance epfd, at most timeout
// nanoseconds (0 polls), and returns how many it stored at the front of
// events, or the system call's error: ENOSYS where the kernel has no
// epoll_pwait2, EINTR when a signal cut the wait short. events must not be
// empty.
func Wait(epfd int, events []unix.EpollEvent, timeout int64) (int, error) {
	ts := unix.NsecToTimespec(timeout)
	n, _, e := unix.Syscall6(unix.SYS_EPOLL_PWAIT2, uintptr(epfd),
		uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)),
		uintptr(unsafe.Pointer(&ts)), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}
