//go:build linux && nounsafe

package pwait2

import "golang.org/x/sys/unix"

// Wait returns ENOSYS: without unsafe there is no epoll_pwait2, and the
// caller falls back to epoll_wait, as on a kernel older than 5.11.
func Wait(epfd int, events []unix.EpollEvent, timeout int64) (int, error) {
	return 0, unix.ENOSYS
}
