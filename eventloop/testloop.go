package eventloop

import (
	"runtime/debug"
	"time"
)

// A TestLoop is a deterministic loop for tests, Netty's EmbeddedEventLoop:
// the Executor API on a virtual clock, with no goroutine, no epoll and no
// sleeping. Nothing runs until the test calls RunPending or Advance, on its
// own goroutine; InLoop is always true, as code under test would see on a
// real loop's goroutine. A TestLoop is not safe for concurrent use.
type TestLoop struct {
	now     int64 // virtual nanoseconds since base
	base    time.Time
	tasks   []func()
	head    int
	sched   sched
	OnPanic func(v any, stack []byte) // as Config.OnPanic; nil re-panics
}

// NewTestLoop returns a test loop whose clock reads the current time and
// moves only with Advance.
func NewTestLoop() *TestLoop { return &TestLoop{base: time.Now()} }

// Now returns the virtual clock.
func (l *TestLoop) Now() time.Time { return l.base.Add(time.Duration(l.now)) }

// InLoop returns true: everything the test calls runs "on the loop".
func (l *TestLoop) InLoop() bool { return true }

// Execute queues fn; it runs at the next RunPending or Advance.
func (l *TestLoop) Execute(fn func()) error {
	if fn == nil {
		panic("eventloop: Execute(nil)")
	}
	l.tasks = append(l.tasks, fn)
	return nil
}

// Schedule runs fn once the virtual clock has moved d on.
func (l *TestLoop) Schedule(d time.Duration, fn func()) Timer {
	return l.schedule(l.now+durationNanos(int64(d)), 0, fn)
}

// ScheduleAt runs fn once the virtual clock reaches t.
func (l *TestLoop) ScheduleAt(t time.Time, fn func()) Timer {
	return l.schedule(int64(t.Sub(l.base)), 0, fn)
}

// Every runs fn every d of virtual time until canceled.
func (l *TestLoop) Every(d time.Duration, fn func()) Timer {
	if d <= 0 {
		panic("eventloop: Every with a non-positive period")
	}
	return l.schedule(l.now+int64(d), int64(d), fn)
}

func (l *TestLoop) schedule(when, period int64, fn func()) Timer {
	if fn == nil {
		panic("eventloop: schedule of a nil function")
	}
	t, h := l.sched.get(l, when, period, fn)
	l.sched.q.Push(&t.node)
	return h
}

// cancelTimer implements timerOwner.
func (l *TestLoop) cancelTimer(t *timer, gen uint32) bool {
	if !t.tryCancel(gen) {
		return false
	}
	l.sched.cancelOnLoop(t)
	return true
}

// Pending returns the number of queued tasks and timers.
func (l *TestLoop) Pending() (tasks, timers int) { return len(l.tasks) - l.head, l.sched.q.Len() }

// RunPending runs the queued tasks (and those they queue) and the timers
// due at the current virtual time, as a real loop's round does, and
// returns how many functions ran.
func (l *TestLoop) RunPending() int {
	n := 0
	for {
		ran := l.runTasks()
		for node := l.sched.q.PopDue(l.now); node != nil; node = l.sched.q.PopDue(l.now) {
			if l.sched.fire(node, l.now, l.call) {
				ran++
			}
		}
		n += ran
		if ran == 0 && l.head == len(l.tasks) {
			return n
		}
	}
}

// Advance moves the virtual clock d on, stopping at each timer's deadline
// on the way to run it (and the tasks it queues) at that time, as a real
// loop would, and returns how many functions ran.
func (l *TestLoop) Advance(d time.Duration) int {
	end := l.now + durationNanos(int64(d))
	n := l.RunPending()
	for {
		next := l.sched.next()
		if next > end {
			break
		}
		l.now = max(l.now, next)
		n += l.RunPending()
	}
	l.now = end
	return n + l.RunPending()
}

func (l *TestLoop) runTasks() int {
	ran := 0
	for l.head < len(l.tasks) {
		fn := l.tasks[l.head]
		l.tasks[l.head] = nil
		l.head++
		l.call(fn)
		ran++
	}
	l.tasks, l.head = l.tasks[:0], 0
	return ran
}

func (l *TestLoop) call(fn func()) {
	defer func() {
		if v := recover(); v != nil {
			if l.OnPanic == nil {
				panic(v)
			}
			l.OnPanic(v, debug.Stack())
		}
	}()
	fn()
}
