// Package pwait2 waits for epoll events with a timeout in nanoseconds:
// epoll_pwait2(2), Linux 5.11, which golang.org/x/sys/unix does not wrap
// (its EpollWait takes whole milliseconds). Poll looks for ready events
// without waiting, as a raw system call (no runtime bookkeeping for a call
// that cannot block); its twin calls unix.EpollWait with a zero timeout.
//
// Wait passes the events array and the timeout to the system call as
// pointers (unsafe). The pure-Go twin, under the build tag nounsafe,
// returns ENOSYS, as a kernel without the call does, so that the caller
// falls back to epoll_wait and millisecond timeouts. Linux only.
package pwait2
