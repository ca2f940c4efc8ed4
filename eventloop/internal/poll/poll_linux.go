//go:build linux

package poll

import (
	"encoding/binary"
	"errors"
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/netkit/netkit/internal/rt/pwait2"
)

// A Poller is an epoll instance and the eventfd that wakes it. Open, Add,
// Mod, Del and Wait belong to one goroutine (the loop's); Wake may be
// called from any goroutine, and Close from any once.
type Poller struct {
	epfd, evfd int
	// file is the epoll descriptor registered with the Go runtime's own
	// poller, for Park (nil when the runtime refused it); it owns epfd.
	file   *os.File
	rc     syscall.RawConn
	got    int                // events Park's callback found
	ready1 func(uintptr) bool // the callback, made once
	timed  bool               // a read deadline is set on file
	raw    []unix.EpollEvent  // epoll's answer
	ready  []Event            // its translation, Wait's result

	// wakers counts the goroutines between deciding to write the eventfd
	// and writing it; closed is set before the descriptors are closed.
	// Close waits for wakers to drain, and a waker that sees closed does
	// not write: an eventfd number the kernel hands out again (to a
	// socket, a pipe, a file) never receives a stray 8-byte wakeup.
	wakers atomic.Int32
	closed atomic.Bool
}

// TestHookWake, when set (by tests), runs in Wake between announcing the
// waker and writing the eventfd.
var TestHookWake func()

// pwait2State is whether epoll_pwait2 (Linux 5.11) works here: 1 yes, -1 no,
// 0 not tried yet.
var pwait2State atomic.Int32

// UseEpollWait makes every Poller wait with epoll_wait's millisecond
// timeouts, as on a kernel without epoll_pwait2, until the returned
// function restores the choice (for tests).
func UseEpollWait() (restore func()) {
	prev := pwait2State.Swap(-1)
	return func() { pwait2State.Store(prev) }
}

// batch is the most events one Wait returns.
const batch = 256

// Open makes the epoll instance and the eventfd, registered on it.
func (p *Poller) Open() error {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return os.NewSyscallError("epoll_create1", err)
	}
	evfd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(epfd)
		return os.NewSyscallError("eventfd", err)
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(evfd)}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, evfd, &ev); err != nil {
		unix.Close(epfd)
		unix.Close(evfd)
		return os.NewSyscallError("epoll_ctl", err)
	}
	p.epfd, p.evfd = epfd, evfd
	p.openPark()
	p.raw = make([]unix.EpollEvent, batch)
	p.ready = make([]Event, batch)
	return nil
}

// WakeFD returns the eventfd's descriptor (for tests).
func (p *Poller) WakeFD() int { return p.evfd }

// Close releases the descriptors once no waker is about to write the
// eventfd (a wakeup racing a Close from another goroutine).
func (p *Poller) Close() {
	if p.closed.Swap(true) {
		return
	}
	for p.wakers.Load() != 0 {
		runtime.Gosched()
	}
	if p.file != nil {
		p.file.Close() // leaves the runtime's poller, closes epfd
	} else {
		unix.Close(p.epfd)
	}
	unix.Close(p.evfd)
}

// Wake writes the eventfd, unless the descriptors are closed (or being
// closed), so that a Wait in progress returns.
func (p *Poller) Wake() {
	p.wakers.Add(1)
	defer p.wakers.Add(-1)
	if TestHookWake != nil {
		TestHookWake()
	}
	if p.closed.Load() {
		return
	}
	var one [8]byte
	binary.NativeEndian.PutUint64(one[:], 1)
	for {
		_, err := unix.Write(p.evfd, one[:])
		if err != unix.EINTR {
			return // EAGAIN: the counter is full, so the poller wakes anyway
		}
	}
}

// drainWake resets the eventfd after a wakeup.
func (p *Poller) drainWake() {
	var b [8]byte
	unix.Read(p.evfd, b[:])
}

// Add registers fd for events; the events Wait reports for it carry tag.
func (p *Poller) Add(fd int, events Events, tag uint32) error {
	ev := unix.EpollEvent{Events: toEpoll(events), Fd: int32(fd), Pad: int32(tag)}
	if err := unix.EpollCtl(p.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	return nil
}

// Mod changes the events fd is registered for, and its tag.
func (p *Poller) Mod(fd int, events Events, tag uint32) error {
	ev := unix.EpollEvent{Events: toEpoll(events), Fd: int32(fd), Pad: int32(tag)}
	if err := unix.EpollCtl(p.epfd, unix.EPOLL_CTL_MOD, fd, &ev); err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	return nil
}

// Del removes fd.
func (p *Poller) Del(fd int) error {
	if err := unix.EpollCtl(p.epfd, unix.EPOLL_CTL_DEL, fd, nil); err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	return nil
}

// Wait blocks until a registered descriptor is ready, a Wake, or timeout
// nanoseconds have passed (a negative timeout: no limit; 0: poll), and
// returns the ready descriptors, valid until the next Wait. A wakeup is
// consumed here and not reported. ok is false when a signal cut the wait
// short (EINTR): call again with the time left. With epoll_pwait2 the
// timeout has nanosecond resolution; without it (Linux < 5.11) it is
// rounded up to whole milliseconds, so a wait may end late but never
// early. Any other error of the system call, which would mean the
// Poller's descriptors are broken, panics.
func (p *Poller) Wait(timeout int64) (ready []Event, ok bool) {
	var (
		n   int
		err error
	)
	switch {
	case timeout < 0:
		n, err = unix.EpollWait(p.epfd, p.raw, -1)
	case pwait2State.Load() >= 0:
		n, err = pwait2.Wait(p.epfd, p.raw, timeout)
		if err == unix.ENOSYS {
			pwait2State.Store(-1)
			return p.Wait(timeout)
		}
	default:
		ms := int((timeout + 999_999) / 1_000_000)
		n, err = unix.EpollWait(p.epfd, p.raw, ms)
	}
	if err == unix.EINTR {
		return nil, false
	}
	if err != nil {
		panic("poll: epoll_wait: " + err.Error())
	}
	return p.translate(n), true
}

// Poll returns the ready descriptors without waiting, valid until the next
// Poll or Wait, as Wait(0) does, but entering the kernel directly instead
// of through the runtime's path for a system call that may block (see
// pwait2.Poll): a busy loop that finds events at every look pays no
// scheduler bookkeeping for them. any reports whether epoll reported
// anything, a wakeup included: a wakeup is consumed here, so a caller that
// saw one must not go on to block in Wait (the waker will not write
// again). Errors panic as Wait's do.
func (p *Poller) Poll() (ready []Event, any bool) {
	n, err := pwait2.Poll(p.epfd, p.raw)
	if err == unix.EINTR {
		return nil, false // cannot happen without a wait; nothing is lost
	}
	if err != nil {
		panic("poll: epoll_pwait: " + err.Error())
	}
	return p.translate(n), n > 0
}

// translate turns epoll's first n results into Events, consuming a wakeup.
func (p *Poller) translate(n int) []Event {
	k := 0
	for i := range n {
		ev := &p.raw[i]
		if int(ev.Fd) == p.evfd {
			p.drainWake()
			continue
		}
		p.ready[k] = Event{FD: ev.Fd, Tag: uint32(ev.Pad), Events: fromEpoll(ev.Events)}
		k++
	}
	return p.ready[:k]
}

// toEpoll translates netkit's event bits to epoll's.
func toEpoll(e Events) uint32 {
	var x uint32
	if e&In != 0 {
		x |= unix.EPOLLIN
	}
	if e&Out != 0 {
		x |= unix.EPOLLOUT
	}
	if e&Err != 0 {
		x |= unix.EPOLLERR
	}
	if e&Hup != 0 {
		x |= unix.EPOLLHUP
	}
	if e&RdHup != 0 {
		x |= unix.EPOLLRDHUP
	}
	if e&ET != 0 {
		x |= unix.EPOLLET
	}
	if e&OneShot != 0 {
		x |= unix.EPOLLONESHOT
	}
	return x
}

// fromEpoll translates the bits epoll reports to netkit's.
func fromEpoll(x uint32) Events {
	var e Events
	if x&unix.EPOLLIN != 0 {
		e |= In
	}
	if x&unix.EPOLLOUT != 0 {
		e |= Out
	}
	if x&unix.EPOLLERR != 0 {
		e |= Err
	}
	if x&unix.EPOLLHUP != 0 {
		e |= Hup
	}
	if x&unix.EPOLLRDHUP != 0 {
		e |= RdHup
	}
	return e
}

// openPark registers the epoll descriptor with the Go runtime's poller
// (an epoll instance is readable while it has events to report), for
// Park. Failing that, Park reports false and the caller uses Wait.
func (p *Poller) openPark() {
	if err := unix.SetNonblock(p.epfd, true); err != nil {
		return
	}
	f := os.NewFile(uintptr(p.epfd), "epoll")
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	p.file, p.rc = f, rc
	// The runtime's poller forgets a readiness it saw before the wait
	// began (each wait starts by resetting it), so the callback looks for
	// itself every time, the first included: events that came between
	// the caller's last look and the wait are found, not slept through.
	p.ready1 = func(uintptr) bool {
		n, err := pwait2.Poll(p.epfd, p.raw)
		if err != nil || n == 0 {
			return false
		}
		p.got = n
		return true
	}
}

// Park blocks the calling goroutine, not its thread, until the epoll
// instance has something to report (a ready descriptor or a Wake), or
// timeout nanoseconds have passed (negative: no limit), and returns the
// ready descriptors as Wait does (none after the timeout, or when only a
// wakeup came). The goroutine waits in the Go runtime's own poller, which
// watches the instance's descriptor: its P runs other goroutines or goes
// idle meanwhile, and no thread sits in a blocking system call for the
// runtime's monitor to find and retake (see eventloop's Loop). The
// timeout is a runtime timer's (the runtime's poller sleeps whole
// milliseconds): use Wait for short, precise timeouts. ok is false, after
// waiting for nothing, when the runtime's poller cannot wait for the
// descriptor: use Wait.
func (p *Poller) Park(timeout int64) (ready []Event, ok bool) {
	if p.rc == nil {
		return nil, false
	}
	switch {
	case timeout >= 0:
		p.file.SetReadDeadline(time.Now().Add(time.Duration(timeout)))
		p.timed = true
	case p.timed:
		p.file.SetReadDeadline(time.Time{})
		p.timed = false
	}
	p.got = 0
	if err := p.rc.Read(p.ready1); err != nil {
		if p.timed && errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, true
		}
		// The runtime's poller cannot wait for this descriptor after
		// all: stop parking.
		p.rc = nil
		return nil, false
	}
	return p.translate(p.got), true
}
