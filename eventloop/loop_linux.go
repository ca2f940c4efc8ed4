//go:build linux

package eventloop

import (
	"errors"
	"runtime"

	"golang.org/x/sys/unix"

	"github.com/netkit/netkit/eventloop/internal/poll"
	"github.com/netkit/netkit/internal/rt/gid"
)

// sysLoop is a loop's poller, and the callbacks of the file descriptors
// registered on it (touched only by the loop).
type sysLoop struct {
	poll.Poller
	handlers []fdEntry // by descriptor
	gen      uint32    // the generation of the latest registration
}

// An fdEntry is a registered descriptor's callback and the generation of
// its registration. The poller's events carry both the descriptor and the
// generation (as the registration's tag), so an event raised for a
// descriptor that was closed, and whose number a new registration took,
// within one batch of events does not reach the new one.
type fdEntry struct {
	h   fdHandler
	gen uint32
}

func (s *sysLoop) open() error { return s.Open() }
func (s *sysLoop) close()      { s.Close() }
func (s *sysLoop) wake()       { s.Wake() }

// wait blocks until an event or the absolute deadline (the loop's clock, in
// nanoseconds; noDeadline for none), and returns the ready events. A
// signal recomputes the timeout from the deadline, so it neither cuts the
// wait short nor stretches it; the timeout's resolution is the poller's
// (see poll.Poller.Wait): a timer may fire late but never early.
func (l *Loop) wait(deadline int64) []poll.Event {
	for {
		timeout := int64(-1)
		if deadline != noDeadline {
			timeout = max(deadline-l.nanotime(), 0)
		}
		if events, ok := l.sys.Wait(timeout); ok {
			return events
		}
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
func (l *Loop) dispatch(events []poll.Event) {
	var ran uint64
	for i := range events {
		ev := &events[i]
		if fd := int(ev.FD); fd < len(l.sys.handlers) && l.sys.handlers[fd].h != nil && l.sys.handlers[fd].gen == ev.Tag {
			ran++
			l.callEvents(l.sys.handlers[fd].h, Events(ev.Events))
		}
	}
	if ran > 0 {
		l.events.Add(ran)
	}
}

func (l *Loop) callEvents(h fdHandler, events Events) {
	defer l.rescue()
	h.ready(events)
}

// An fdHandler is what a registered descriptor's events go to: a
// connection itself (no closure per connection), or a Register callback.
type fdHandler interface{ ready(events Events) }

// fdFunc is a Register callback as an fdHandler.
type fdFunc func(events Events)

func (f fdFunc) ready(events Events) { f(events) }

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
func (l *Loop) Register(fd int, events Events, onReady func(events Events)) error {
	if onReady == nil {
		panic("eventloop: Register with a nil callback")
	}
	return l.onLoop(func() error { return l.register(fd, events, fdFunc(onReady)) })
}

// Modify changes the events a registered fd is watched for.
func (l *Loop) Modify(fd int, events Events) error {
	return l.onLoop(func() error { return l.modify(fd, events) })
}

// Unregister removes fd from the loop; its callback does not run again.
func (l *Loop) Unregister(fd int) error {
	return l.onLoop(func() error { return l.unregister(fd) })
}

// register, modify and unregister are the methods above, on the loop.
func (l *Loop) register(fd int, events Events, onReady fdHandler) error {
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
	if err := l.sys.Add(fd, poll.Events(events), gen); err != nil {
		return err
	}
	if fd >= len(l.sys.handlers) {
		l.sys.handlers = append(l.sys.handlers, make([]fdEntry, fd+1-len(l.sys.handlers))...)
	}
	l.sys.gen = gen
	l.sys.handlers[fd] = fdEntry{onReady, gen}
	return nil
}

func (l *Loop) modify(fd int, events Events) error {
	if fd < 0 || fd >= len(l.sys.handlers) || l.sys.handlers[fd].h == nil {
		return errors.New("eventloop: file descriptor not registered")
	}
	return l.sys.Mod(fd, poll.Events(events), l.sys.handlers[fd].gen)
}

func (l *Loop) unregister(fd int) error {
	if fd < 0 || fd >= len(l.sys.handlers) || l.sys.handlers[fd].h == nil {
		return errors.New("eventloop: file descriptor not registered")
	}
	l.sys.handlers[fd] = fdEntry{}
	return l.sys.Del(fd)
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
