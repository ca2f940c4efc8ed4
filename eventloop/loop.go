package eventloop

import (
	"fmt"
	"os"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/netkit/netkit/eventloop/internal/mpsc"
	"github.com/netkit/netkit/internal/rt/gid"
	"github.com/netkit/netkit/internal/rt/nanotime"
)

// awake is the wakeup word of a loop that is not sleeping.
const awake = -1

// A task is one entry of a loop's queue, two words: a function to run (t
// nil), or a timer that was scheduled (fn nil) or canceled (fn is
// cancelMark) from another goroutine. The timer node itself travels, so
// scheduling from outside allocates only the timer.
type task struct {
	fn func()
	t  *timer
}

// cancelMark marks a cancel task; it never runs.
var cancelMark = func() {}

// Loop states.
const (
	stateRunning = iota
	stateShuttingDown
	stateClosed
)

// Stats counts what a loop did; the counters only grow.
type Stats struct {
	Wakeups     uint64 // returns from the wait for events
	WakeWrites  uint64 // eventfd writes by other goroutines to wake the loop
	Tasks       uint64 // functions run from the queue (Execute)
	Timers      uint64 // timer functions run
	Events      uint64 // file-descriptor callbacks run
	Panics      uint64 // panics recovered from tasks, timers and callbacks
	TimersAlive int    // timers queued on the loop at the last count
}

// A Loop is one goroutine that runs tasks, timers and file-descriptor
// callbacks in order and waits in epoll_wait when it has nothing to do.
// Make loops with NewGroup.
//
// # The Go scheduler
//
// A loop is not locked to its OS thread, and it keeps out of the
// scheduler's way. It reads and writes with raw system calls, which
// cannot block on its non-blocking descriptors, so the runtime's monitor
// never finds it "in a system call" in the middle of its work; when it has
// nothing to do it parks in the Go runtime's own poller, which watches the
// loop's epoll descriptor, rather than blocking a thread in epoll_wait
// (only a wait for a timer due within 50 ms blocks in epoll_pwait2, for a
// punctual wake-up, and sets the thread's timer slack to 1 ns first); and a
// busy loop yields (runtime.Gosched) every 2 ms, so the monitor does not
// preempt it with a signal. An echo server on one CPU costs one context
// switch per blocking wait and nothing else: at 64 bytes over one
// connection, 1.00 context switches, 0 futex and 0 nanosleep calls per
// message (BENCHMARKS.md). A raw system call holds the P for its
// duration: a loop's reads and writes are bounded (see Conn), so other
// goroutines wait at most that.
//
// # Waking
//
// A loop publishes a wakeup word: awake while it runs, else the deadline of
// the wait it is entering. Execute from another goroutine queues the task
// and writes the loop's eventfd only if the word said sleeping, swapping it
// to awake first: so at most one write per sleep, however many tasks a
// burst brings, and none from the loop itself. After announcing a sleep the
// loop checks its queue once more, so a task queued while it was going to
// sleep is never stranded until the next timer.
//
// # Fairness
//
// One round of a loop runs the queued tasks, the timers that are due, and
// the callbacks of the ready descriptors. Tasks run within a budget per
// round (1024 of them, or 1 ms, whichever ends first; a task is never cut
// short): what is left runs in the next round, after the timers and the
// descriptors, so a task that queues itself again forever, or a goroutine
// that queues faster than the loop runs, delays them by one round, not for
// good. Connections read and write within a budget per event as well (see
// Conn).
type Loop struct {
	group    *Group
	index    int
	base     time.Time
	baseNano int64 // nanotime.Nano() at base
	wakeup   atomic.Int64
	state    atomic.Int32
	tasks    mpsc.Queue[task]
	sched    sched
	owner    atomic.Uintptr // gid.Current() of the loop's goroutine while it runs
	tid      atomic.Int64   // its OS thread at its last blocking wait (tests that signal it)

	onPanic func(v any, stack []byte)

	// Counters, published by the loop with atomic adds once per batch.
	wakeups, wakeWrites, tasksRun, timersRun, events, panics atomic.Uint64
	timersAlive                                              atomic.Int64

	sys       sysLoop       // the system's part: epoll, eventfd
	conns     loopConns     // the connections on the loop
	draining  bool          // the loop has seen Shutdown begin
	lastTask  int64         // when the loop last ran a task (for Shutdown's quiet period)
	lastYield int64         // when the loop last yielded its P (runtime.Gosched)
	quiet     int64         // Config.QuietPeriod
	done      chan struct{} // closed when the loop's goroutine has returned
}

// Now returns the loop's clock: monotonic, as time.Now's reading is.
func (l *Loop) Now() time.Time { return l.base.Add(time.Duration(l.nanotime())) }

// nanotime returns the loop's monotonic clock in nanoseconds: the time
// since base, read from the runtime's monotonic clock (see
// internal/rt/nanotime), which base's monotonic reading is too.
func (l *Loop) nanotime() int64 { return nanotime.Nano() - l.baseNano }

// InLoop reports whether the caller runs on l's goroutine: a comparison
// with an identifier of the calling goroutine that amd64 and arm64 read
// without a system call (see internal/rt/gid).
func (l *Loop) InLoop() bool {
	o := l.owner.Load() // atomic: Close asks while the loop may be leaving
	return gid.Current() == o && o != 0
}

// Stats returns a snapshot of l's counters.
func (l *Loop) Stats() Stats {
	return Stats{
		Wakeups:     l.wakeups.Load(),
		WakeWrites:  l.wakeWrites.Load(),
		Tasks:       l.tasksRun.Load(),
		Timers:      l.timersRun.Load(),
		Events:      l.events.Load(),
		Panics:      l.panics.Load(),
		TimersAlive: int(l.timersAlive.Load()),
	}
}

// Execute queues fn to run on the loop after what is queued already, from
// any goroutine (the loop's own included), without allocating beyond fn's
// closure. It wakes the loop only if it is asleep. It returns ErrShutdown
// when called from another goroutine once Shutdown has begun (the loop
// itself may still queue work while it drains), and ErrClosed once the loop
// has stopped.
func (l *Loop) Execute(fn func()) error {
	if fn == nil {
		panic("eventloop: Execute(nil)")
	}
	if err := l.accepting(); err != nil {
		return err
	}
	l.tasks.Push(task{fn: fn})
	l.wake()
	return nil
}

// accepting returns the error a submission from the caller gets, or nil.
func (l *Loop) accepting() error {
	switch l.state.Load() {
	case stateRunning:
		return nil
	case stateShuttingDown:
		if l.InLoop() {
			return nil
		}
		return ErrShutdown
	}
	return ErrClosed
}

// wake makes a sleeping loop return from its wait: one eventfd write by
// whoever swaps the wakeup word from a deadline to awake.
func (l *Loop) wake() {
	if l.wakeup.Load() != awake && l.wakeup.Swap(awake) != awake {
		l.wakeWrites.Add(1)
		l.sys.wake()
	}
}

// Schedule runs fn on the loop once d has passed (at once for d ≤ 0, after
// the tasks already queued). On the loop it allocates nothing; from another
// goroutine it allocates the timer and queues it to the loop, waking the
// loop only if the timer is due before the loop's current wait ends. After
// Shutdown or Close it returns a Timer that never fires.
func (l *Loop) Schedule(d time.Duration, fn func()) Timer {
	return l.schedule(l.nanotime()+durationNanos(int64(d)), 0, fn)
}

// ScheduleAt runs fn on the loop once its clock (Now) reaches t.
func (l *Loop) ScheduleAt(t time.Time, fn func()) Timer {
	return l.schedule(int64(t.Sub(l.base)), 0, fn)
}

// Every runs fn on the loop every d, at a fixed rate counted from now, until
// the Timer is canceled. Runs that the loop missed (it was busy past a whole
// period) are skipped, not run back to back. d must be positive.
func (l *Loop) Every(d time.Duration, fn func()) Timer {
	if d <= 0 {
		panic("eventloop: Every with a non-positive period")
	}
	return l.schedule(l.nanotime()+int64(d), int64(d), fn)
}

func (l *Loop) schedule(when, period int64, fn func()) Timer {
	if fn == nil {
		panic("eventloop: schedule of a nil function")
	}
	if l.accepting() != nil {
		return Timer{}
	}
	if l.InLoop() {
		t, h := l.sched.get(l, when, period, fn)
		l.sched.q.Push(&t.node)
		return h
	}
	t, h := arm(newTimer(l), when, period, fn)
	l.tasks.Push(task{t: t})
	if w := l.wakeup.Load(); w != awake && when < w {
		l.wake()
	}
	return h
}

// cancelTimer implements timerOwner.
func (l *Loop) cancelTimer(t *timer, gen uint32) bool {
	if !t.tryCancel(gen) {
		return false
	}
	if l.InLoop() {
		l.sched.cancelOnLoop(t)
		return true
	}
	if l.state.Load() != stateClosed {
		l.tasks.Push(task{fn: cancelMark, t: t})
		// No wake: the canceled timer cannot fire, and its removal can
		// wait for the loop's next round.
	}
	return true
}

// The task budget of one round of the loop, as Netty's
// runAllTasks(timeout): at most maxTasksPerRound entries of the queue, and
// no new one once taskRoundNanos have passed (the clock is read every
// taskClockEvery entries, so that a cheap task costs no clock read). What is
// left waits for the next round, after the timers that are due and the
// descriptors that are ready: a task that queues itself again, or a
// goroutine that queues tasks as fast as the loop runs them, cannot keep the
// loop from its timers and connections.
const (
	maxTasksPerRound = 1024
	taskRoundNanos   = int64(time.Millisecond)
	taskClockEvery   = 8
)

// runTasks runs the queued tasks within the round's budget, recovering
// panics, and returns how many functions ran.
func (l *Loop) runTasks() uint64 {
	if l.tasks.Empty() {
		return 0
	}
	b := taskBudget{left: maxTasksPerRound, until: l.nanotime() + taskRoundNanos}
	for !l.drain(&b) {
	}
	if b.ran > 0 {
		l.tasksRun.Add(b.ran)
	}
	return b.ran
}

// taskBudget is what is left of a round's task budget, and how many
// functions ran.
type taskBudget struct {
	left  int   // queue entries the round may still take
	until int64 // loop clock after which it takes no more
	ran   uint64
}

// drain runs tasks until the queue is empty or the budget spent (true), or
// one panics (false, after reporting it).
func (l *Loop) drain(b *taskBudget) (done bool) {
	defer l.rescue()
	for b.left > 0 {
		tk, ok := l.tasks.Pop()
		if !ok {
			return true
		}
		b.left--
		switch {
		case tk.t == nil:
			b.ran++
			tk.fn()
		case tk.fn == nil:
			l.sched.push(tk.t)
		default:
			l.sched.cancelOnLoop(tk.t)
		}
		if b.left%taskClockEvery == 0 && l.nanotime() >= b.until {
			return true
		}
	}
	return true
}

// runTimers fires the timers due at now.
func (l *Loop) runTimers(now int64) {
	var ran uint64
	for n := l.sched.q.PopDue(now); n != nil; n = l.sched.q.PopDue(now) {
		if l.sched.fire(n, now, l.call) {
			ran++
		}
	}
	if ran > 0 {
		l.timersRun.Add(ran)
	}
	l.timersAlive.Store(int64(l.sched.q.Len()))
}

// call runs fn, reporting a panic instead of letting it end the loop.
func (l *Loop) call(fn func()) {
	defer l.rescue()
	fn()
}

// rescue, deferred, stops a panic in progress and reports it.
func (l *Loop) rescue() {
	if v := recover(); v != nil {
		l.recovered(v)
	}
}

// recovered reports a recovered panic to Config.OnPanic.
func (l *Loop) recovered(v any) {
	l.panics.Add(1)
	stack := debug.Stack()
	if l.onPanic != nil {
		l.onPanic(v, stack)
		return
	}
	fmt.Fprintf(os.Stderr, "eventloop: loop %d recovered a panic: %v\n%s", l.index, v, stack)
}

// finishing is asked by the loop, once it is no longer running normally,
// whether to stop now: at once after Close; during Shutdown, once no task
// has run for the quiet period (timers were canceled when it began).
func (l *Loop) finishing(now int64) bool {
	if l.state.Load() == stateClosed {
		return true
	}
	if !l.draining {
		l.draining = true
		l.lastTask = now
		l.sched.clear()
		l.timersAlive.Store(0)
	}
	return l.tasks.Empty() && now-l.lastTask >= l.quiet
}

// beginShutdown moves a running loop to shutting down and wakes it.
func (l *Loop) beginShutdown() {
	if l.state.CompareAndSwap(stateRunning, stateShuttingDown) {
		l.forceWake()
	}
}

// close stops the loop at its next round: queued tasks and timers are
// dropped.
func (l *Loop) close() {
	if l.state.Swap(stateClosed) != stateClosed {
		l.forceWake()
	}
}

// forceWake wakes the loop whatever its wakeup word says.
func (l *Loop) forceWake() {
	l.wakeup.Store(awake)
	l.wakeWrites.Add(1)
	l.sys.wake()
}

// post queues f on the loop, even while it shuts down, without waiting;
// it reports false when the loop has stopped.
func (l *Loop) post(f func()) bool {
	if l.state.Load() == stateClosed {
		return false
	}
	l.tasks.Push(task{fn: f})
	l.wake()
	return true
}

// force runs f on the loop, even while it shuts down (Execute refuses
// other goroutines then), and waits for it. It reports false, without
// running f, when the loop has stopped. For the package's own housekeeping:
// closing listeners and connections.
func (l *Loop) force(f func()) bool {
	if l.InLoop() {
		f()
		return true
	}
	ran := make(chan struct{})
	if !l.post(func() { f(); close(ran) }) {
		return false
	}
	select {
	case <-ran:
		return true
	case <-l.done:
		select {
		case <-ran:
			return true
		default:
			return false
		}
	}
}
