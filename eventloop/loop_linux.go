//go:build linux

package eventloop

import (
	"errors"
	"os"
	"runtime"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/netkit/netkit/internal/rt/gid"
)

// sysLoop is a loop's epoll instance and eventfd, and the callbacks of the
// file descriptors registered on it (touched only by the loop).
type sysLoop struct {
	epfd, evfd int
	handlers   []fdEntry // by descriptor
	gen        uint32    // the generation of the latest registration
	events     []unix.EpollEvent

	// wakers counts the goroutines between deciding to write the eventfd
	// and writing it; closed is set before the descriptors are closed.
	// close waits for wakers to drain, and a waker that sees closed does
	// not write: an eventfd number the kernel hands out again (to a
	// socket, a pipe, a file) never receives a stray 8-byte wakeup.
	wakers atomic.Int32
	closed atomic.Bool
}

// testHookWake, when set (by tests), runs in wake between announcing the
// waker and writing the eventfd.
var testHookWake func()

// An fdEntry is a registered descriptor's callback and the generation of
// its registration. The epoll data of each event carries both the
// descriptor and the generation (in the Pad word), so an event raised for a
// descriptor that was closed, and whose number a new registration took,
// within one batch of events does not reach the new one.
type fdEntry struct {
	h   fdHandler
	gen uint32
}

// pwait2 is whether epoll_pwait2 (Linux 5.11) works here: 1 yes, -1 no,
// 0 not tried yet.
var pwait2 atomic.Int32

func (s *sysLoop) open() error {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return err
	}
	evfd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(epfd)
		return err
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(evfd)}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, evfd, &ev); err != nil {
		unix.Close(epfd)
		unix.Close(evfd)
		return err
	}
	s.epfd, s.evfd = epfd, evfd
	s.events = make([]unix.EpollEvent, 256)
	return nil
}

// close releases the descriptors once no waker is about to write the
// eventfd (a wakeup racing a Close from another goroutine).
func (s *sysLoop) close() {
	if s.closed.Swap(true) {
		return
	}
	for s.wakers.Load() != 0 {
		runtime.Gosched()
	}
	unix.Close(s.epfd)
	unix.Close(s.evfd)
}

// wake writes the eventfd, unless the loop's descriptors are closed (or
// being closed).
func (s *sysLoop) wake() {
	s.wakers.Add(1)
	defer s.wakers.Add(-1)
	if testHookWake != nil {
		testHookWake()
	}
	if s.closed.Load() {
		return
	}
	one := uint64(1)
	for {
		_, err := unix.Write(s.evfd, (*[8]byte)(unsafe.Pointer(&one))[:])
		if err != unix.EINTR {
			return // EAGAIN: the counter is full, so the loop wakes anyway
		}
	}
}

// drainWake resets the eventfd after a wakeup.
func (s *sysLoop) drainWake() {
	var b [8]byte
	unix.Read(s.evfd, b[:])
}

// wait blocks until an event or the absolute deadline (the loop's clock, in
// nanoseconds; noDeadline for none), and returns the ready events. EINTR
// recomputes the timeout from the deadline, so a signal neither cuts the
// wait short nor stretches it. With epoll_pwait2 the timeout has
// nanosecond resolution; without it (Linux < 5.11) it is rounded up to
// whole milliseconds, so a timer may fire late but never early.
func (l *Loop) wait(deadline int64) []unix.EpollEvent {
	s := &l.sys
	for {
		var (
			n   int
			err error
		)
		if deadline == noDeadline {
			n, err = unix.EpollWait(s.epfd, s.events, -1)
		} else {
			d := max(deadline-l.nanotime(), 0)
			if pwait2.Load() >= 0 {
				ts := unix.NsecToTimespec(d)
				r, _, e := unix.Syscall6(unix.SYS_EPOLL_PWAIT2, uintptr(s.epfd),
					uintptr(unsafe.Pointer(&s.events[0])), uintptr(len(s.events)),
					uintptr(unsafe.Pointer(&ts)), 0, 0)
				if e == unix.ENOSYS {
					pwait2.Store(-1)
					continue
				}
				n, err = int(r), nil
				if e != 0 {
					err = e
				}
			} else {
				ms := int((d + 999_999) / 1_000_000)
				n, err = unix.EpollWait(s.epfd, s.events, ms)
			}
		}
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			panic("eventloop: epoll_wait: " + err.Error())
		}
		return s.events[:n]
	}
}

// run is the loop's goroutine.
func (l *Loop) run(started chan<- struct{}) {
	runtime.LockOSThread()
	// The thread stays locked: when run returns it exits with the
	// goroutine, and nothing else ever ran on it.
	l.owner.Store(gid.Current())
	l.tid = unix.Gettid()
	// The kernel lets a normal thread's timed waits end up to 50 µs late
	// (timer slack) to batch wakeups; the loop's waits are its timers, so
	// it asks for 1 ns. The setting is per thread, and this thread is the
	// loop's alone.
	unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	close(started)
	defer close(l.done)
	for {
		ran := l.runTasks()
		now := l.nanotime()
		if ran > 0 {
			l.lastTask = now
		}
		l.runTimers(now)
		if l.state.Load() != stateRunning && l.finishing(now) {
			break
		}
		deadline := l.sched.next()
		if l.state.Load() == stateShuttingDown {
			deadline = min(deadline, l.lastTask+l.quiet)
		}
		l.wakeup.Store(deadline)
		if !l.tasks.Empty() {
			// Tasks are left (the round's budget ran out, or one came as
			// the loop announced its sleep): look at the descriptors
			// without waiting, so that a queue that never empties cannot
			// starve them, and come back to the tasks.
			l.wakeup.Store(awake)
			deadline = l.nanotime()
		}
		events := l.wait(deadline)
		l.wakeup.Store(awake)
		l.wakeups.Add(1)
		l.dispatch(events)
	}
	l.closeConns()
	l.owner.Store(0)
	l.sched.clear()
	l.timersAlive.Store(0)
}

// dispatch runs the callbacks of ready file descriptors.
func (l *Loop) dispatch(events []unix.EpollEvent) {
	var ran uint64
	for i := range events {
		ev := &events[i]
		if int(ev.Fd) == l.sys.evfd {
			l.sys.drainWake()
			continue
		}
		if fd := int(ev.Fd); fd < len(l.sys.handlers) && l.sys.handlers[fd].h != nil && l.sys.handlers[fd].gen == uint32(ev.Pad) {
			ran++
			l.callEvents(l.sys.handlers[fd].h, ev.Events)
		}
	}
	if ran > 0 {
		l.events.Add(ran)
	}
}

func (l *Loop) callEvents(h fdHandler, events uint32) {
	defer l.rescue()
	h.ready(events)
}

// An fdHandler is what a registered descriptor's events go to: a
// connection itself (no closure per connection), or a Register callback.
type fdHandler interface{ ready(events uint32) }

// fdFunc is a Register callback as an fdHandler.
type fdFunc func(events uint32)

func (f fdFunc) ready(events uint32) { f(events) }

// Event bits for Register and Modify: epoll's, which the callback receives
// as they were reported.
const (
	Readable = unix.EPOLLIN
	Writable = unix.EPOLLOUT
	Error    = unix.EPOLLERR
	Hangup   = unix.EPOLLHUP
	// PeerClosedWrite reports that the peer shut down its writing half.
	PeerClosedWrite = unix.EPOLLRDHUP
	// EdgeTriggered makes the registration edge-triggered: the callback runs
	// once per change of readiness, and must read (or write) until EAGAIN.
	EdgeTriggered = unix.EPOLLET
)

// Register adds fd to the loop's epoll set: onReady runs on the loop with
// the ready events whenever fd is ready for one of events. Registrations
// are level-triggered unless events includes EdgeTriggered: level
// triggering reports readiness for as long as it lasts, so a callback may
// read a bounded amount and come back on the next round (fair among many
// descriptors, at the cost of one more epoll_wait result per round while
// data remains); edge triggering reports each change once, saving those
// results, and obliges the callback to drain fd until EAGAIN. Called from
// another goroutine, Register runs on the loop and waits for it. The loop
// does not own fd: Unregister it before closing it. Each registration is
// its own generation: an event raised for an earlier registration of the
// same descriptor number (closed and reused within one round of events)
// never reaches onReady.
func (l *Loop) Register(fd int, events uint32, onReady func(events uint32)) error {
	if onReady == nil {
		panic("eventloop: Register with a nil callback")
	}
	return l.onLoop(func() error { return l.register(fd, events, fdFunc(onReady)) })
}

// Modify changes the events a registered fd is watched for.
func (l *Loop) Modify(fd int, events uint32) error {
	return l.onLoop(func() error { return l.modify(fd, events) })
}

// Unregister removes fd from the loop; its callback does not run again.
func (l *Loop) Unregister(fd int) error {
	return l.onLoop(func() error { return l.unregister(fd) })
}

// register, modify and unregister are the methods above, on the loop.
func (l *Loop) register(fd int, events uint32, onReady fdHandler) error {
	if fd < 0 {
		return errors.New("eventloop: negative file descriptor")
	}
	if fd < len(l.sys.handlers) && l.sys.handlers[fd].h != nil {
		return errors.New("eventloop: file descriptor already registered")
	}
	gen := l.sys.gen + 1
	if gen == 0 {
		gen = 1 // 0 is the eventfd's
	}
	ev := unix.EpollEvent{Events: events, Fd: int32(fd), Pad: int32(gen)}
	if err := unix.EpollCtl(l.sys.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	if fd >= len(l.sys.handlers) {
		l.sys.handlers = append(l.sys.handlers, make([]fdEntry, fd+1-len(l.sys.handlers))...)
	}
	l.sys.gen = gen
	l.sys.handlers[fd] = fdEntry{onReady, gen}
	return nil
}

func (l *Loop) modify(fd int, events uint32) error {
	if fd < 0 || fd >= len(l.sys.handlers) || l.sys.handlers[fd].h == nil {
		return errors.New("eventloop: file descriptor not registered")
	}
	ev := unix.EpollEvent{Events: events, Fd: int32(fd), Pad: int32(l.sys.handlers[fd].gen)}
	if err := unix.EpollCtl(l.sys.epfd, unix.EPOLL_CTL_MOD, fd, &ev); err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	return nil
}

func (l *Loop) unregister(fd int) error {
	if fd < 0 || fd >= len(l.sys.handlers) || l.sys.handlers[fd].h == nil {
		return errors.New("eventloop: file descriptor not registered")
	}
	l.sys.handlers[fd] = fdEntry{}
	if err := unix.EpollCtl(l.sys.epfd, unix.EPOLL_CTL_DEL, fd, nil); err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	return nil
}

// onLoop runs f on the loop, at once when called there, else through the
// queue, waiting for its result.
func (l *Loop) onLoop(f func() error) error {
	if l.InLoop() {
		return f()
	}
	res := make(chan error, 1)
	if err := l.Execute(func() { res <- f() }); err != nil {
		return err
	}
	select {
	case err := <-res:
		return err
	case <-l.done:
		select {
		case err := <-res:
			return err
		default:
			return ErrClosed
		}
	}
}
