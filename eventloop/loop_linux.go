//go:build linux

package eventloop

import (
	"errors"
	"runtime"
	"time"

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

// wait returns the ready events, blocking until one, or until the
// absolute deadline (the loop's clock, in nanoseconds; noDeadline for
// none) when nothing is ready.
//
// Without a deadline, or with one 50 ms away or more, the loop parks its
// goroutine in the Go runtime's own poller, which watches the loop's epoll
// descriptor (poll.Poller.Park): the loop's P runs other goroutines or
// goes idle, and no thread sits in a system call. A thread blocked in a
// system call is what the runtime's monitor (sysmon) retakes the P from,
// once it has found it there on two of its ticks (20 µs apart while it is
// busy): a hand-off to another thread, a wakeup of the monitor when the
// call returns, and a monitor that stays busy because it retook something
// (an echo of 64 bytes on one connection measured 0.3-0.9 nanosleeps and
// 1.3-2.2 context switches per message in that state, against 0 and 1.00
// parked).
//
// A shorter deadline needs a punctual wake-up (the runtime's poller sleeps
// whole milliseconds), so the loop looks without waiting (a raw system
// call, poll.Poller.Poll), yields to the Go scheduler (runtime.Gosched:
// runnable goroutines run first, and the monitor sees the loop
// rescheduled, not as a goroutine that has run 10 ms, to be preempted
// with a signal), and blocks in epoll_pwait2 through the runtime's system
// call path, with a timeout in nanoseconds.
//
// A signal recomputes the timeout from the deadline, so it neither cuts
// the wait short nor stretches it: a timer may fire late but never early.
func (l *Loop) wait(deadline int64) []poll.Event {
	timeout := int64(-1)
	if deadline != noDeadline {
		timeout = max(deadline-l.nanotime(), 0)
	}
	if timeout < 0 || timeout >= slackMatters {
		// Park looks first too, and returns at once with what is ready.
		if events, ok := l.sys.Park(timeout); ok {
			return events
		}
	}
	if events, any := l.sys.Poll(); any || timeout == 0 {
		return events
	}
	runtime.Gosched()
	l.lastYield = l.nanotime()
	for {
		timeout := int64(-1)
		if deadline != noDeadline {
			timeout = max(deadline-l.nanotime(), 0)
			if timeout > 0 && timeout < slackMatters {
				setTimerSlack()
			}
		}
		if testRecordTID {
			l.tid.Store(int64(unix.Gettid()))
		}
		if events, ok := l.sys.Wait(timeout); ok {
			return events
		}
	}
}

// slackMatters is the longest timeout whose lateness the thread's timer
// slack decides: the kernel lets a timed wait end up to the larger of the
// slack (50 µs by default) and 0.1% of the timeout late, so past 50 ms the
// slack no longer counts.
const slackMatters = int64(50 * time.Millisecond)

// setTimerSlack asks the kernel to end the calling thread's timed waits on
// time: a normal thread's may end up to 50 µs late (timer slack), to batch
// wakeups, and the loop's waits are its timers. The setting is per thread,
// and the loop's goroutine may move between threads, so it is made before
// each short timed wait (one raw system call, beside a wait that sleeps);
// a thread keeps it, so goroutines run there later get punctual timed
// waits too.
func setTimerSlack() {
	unix.RawSyscall(unix.SYS_PRCTL, unix.PR_SET_TIMERSLACK, 1, 0)
}

// yieldEvery is how long a busy loop, one that never blocks, runs before it
// yields to the Go scheduler: the runtime's monitor preempts a goroutine
// that has run 10 ms without being rescheduled, with a signal.
const yieldEvery = int64(2 * time.Millisecond)

// testRecordTID makes the loop record its thread before each blocking wait
// (for tests that signal it).
var testRecordTID bool

// run is the loop's goroutine. It is not locked to its OS thread: for a
// locked goroutine, each yield, and each other goroutine that needs the P,
// hands the P between two threads (a futex wake and a sleep), where an
// unlocked loop lets the next goroutine run on its own thread (see Loop,
// "The Go scheduler"). Builds whose gid.Current names the thread rather
// than the goroutine (the pure-Go twins, and architectures without the
// assembly) keep the loop locked, since InLoop depends on it.
func (l *Loop) run(started chan<- struct{}) {
	if gid.ThreadBound {
		// This build identifies goroutines by their thread (the pure-Go
		// twin of gid, see InLoop): the loop must keep its thread, and
		// pays for it as described above.
		runtime.LockOSThread()
	}
	l.owner.Store(gid.Current())
	l.tid.Store(int64(unix.Gettid()))
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
		if now-l.lastYield > yieldEvery {
			runtime.Gosched()
			l.lastYield = now
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
	for i := 0; i < len(events); {
		n, next := l.dispatchFrom(events, i)
		ran += n
		i = next
	}
	if ran > 0 {
		l.events.Add(ran)
	}
}

// dispatchFrom runs the callbacks of events[i:] and returns how many ran
// and where it stopped: at the end, or just past an event whose callback
// panicked. The panic is reported; a connection's closes that connection
// alone (Conn.panicked), and dispatch goes on with the next event. One
// deferred recover covers the whole round, not one per event.
func (l *Loop) dispatchFrom(events []poll.Event, i int) (ran uint64, next int) {
	var h fdHandler
	defer func() {
		if v := recover(); v != nil {
			l.recovered(v)
			if c, ok := h.(*Conn); ok {
				c.panicked()
			}
			next = i + 1
		}
	}()
	for ; i < len(events); i++ {
		ev := &events[i]
		if fd := int(ev.FD); fd < len(l.sys.handlers) && l.sys.handlers[fd].h != nil && l.sys.handlers[fd].gen == ev.Tag {
			ran++
			h = l.sys.handlers[fd].h
			h.ready(Events(ev.Events))
		}
	}
	return ran, i
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
