package eventloop

import (
	"math"
	"sync/atomic"

	"github.com/netkit/netkit/eventloop/internal/timerq"
)

// A timer is one scheduled function: a heap node, which only its loop
// touches, and a state word that any goroutine may read and that Cancel
// changes with a compare-and-swap. The state packs the generation (high 32
// bits, bumped each time the timer is recycled, so a stale handle's Cancel
// is a no-op) and the status (low bits).
type timer struct {
	node  timerq.Node
	state atomic.Uint64
	owner timerOwner
}

// Timer statuses.
const (
	stScheduled = 1 // queued on the loop, or on its way there from outside;
	// also the status of a free timer, whose generation no handle has yet,
	// so that arming a one-shot timer costs no store
	stRunning  = 2 // its function is running
	stCanceled = 3 // Cancel won; the loop recycles it
	stMask     = 0xff
	stPeriodic = 0x100 // an Every timer: Cancel also stops it while it runs
)

// A timerOwner is the loop a timer belongs to.
type timerOwner interface {
	cancelTimer(t *timer, gen uint32) bool
}

// A Timer is a handle on a scheduled function: the timer and the
// generation it was scheduled in. It is a small value, copied freely; its
// zero value is a handle on nothing. Once the timer has fired (for a
// one-shot timer) or been canceled, the timer is recycled and the handle is
// stale: Cancel returns false and touches nothing.
type Timer struct {
	t   *timer
	gen uint32
}

// Cancel stops the timer if it has not fired yet (an Every timer: if it has
// not been canceled), from any goroutine, and reports whether it did. A
// canceled timer's function never runs again; an Every timer canceled from
// another goroutine while its function runs finishes that run. On the loop,
// Cancel removes the timer from the heap at once, in O(log n); from another
// goroutine it marks the timer and queues its removal.
func (h Timer) Cancel() bool {
	if h.t == nil {
		return false
	}
	return h.t.owner.cancelTimer(h.t, h.gen)
}

func (t *timer) gen() uint32 { return uint32(t.state.Load() >> 32) }

// tryCancel moves t from scheduled (or running, for a periodic timer) to
// canceled, if the handle's generation is still t's.
func (t *timer) tryCancel(gen uint32) bool {
	for {
		s := t.state.Load()
		if uint32(s>>32) != gen {
			return false
		}
		switch st := s & stMask; {
		case st == stScheduled, st == stRunning && s&stPeriodic != 0:
		default:
			return false
		}
		if t.state.CompareAndSwap(s, s&^stMask|stCanceled) {
			return true
		}
	}
}

// maxFreeTimers bounds the free list a loop keeps.
const maxFreeTimers = 1 << 16

// sched is the timer machinery a loop owns: the heap, the free list and
// the state transitions. Only the loop's goroutine calls it.
type sched struct {
	q    timerq.Queue
	free []*timer
}

// get returns a timer set up to run fn at when, every period if period > 0,
// with a handle on it. The timer is not queued yet.
func (s *sched) get(owner timerOwner, when, period int64, fn func()) (*timer, Timer) {
	var t *timer
	if n := len(s.free); n > 0 {
		t = s.free[n-1]
		s.free[n-1] = nil
		s.free = s.free[:n-1]
	} else {
		t = newTimer(owner)
	}
	return arm(t, when, period, fn)
}

// newTimer makes a timer; off the loop, Schedule makes one this way (its
// one allocation) and the loop keeps it in its free list afterwards.
func newTimer(owner timerOwner) *timer {
	t := &timer{owner: owner}
	t.node.Arg = t
	t.state.Store(stScheduled)
	return t
}

// arm sets t up and returns its handle; t must be free (status
// scheduled, in a generation no handle has).
func arm(t *timer, when, period int64, fn func()) (*timer, Timer) {
	t.node.When, t.node.Period, t.node.Fn = when, period, fn
	st := t.state.Load()
	if period > 0 {
		t.state.Store(st | stPeriodic)
	}
	return t, Timer{t, uint32(st >> 32)}
}

// push queues t, unless it was canceled on its way to the loop.
func (s *sched) push(t *timer) {
	if t.state.Load()&stMask == stCanceled {
		s.recycle(t)
		return
	}
	s.q.Push(&t.node)
}

// recycle bumps t's generation, making every handle on it stale, and keeps
// it for reuse.
func (s *sched) recycle(t *timer) {
	g := t.gen() + 1
	t.state.Store(uint64(g)<<32 | stScheduled) // free: see stScheduled
	t.node.Fn = nil
	if len(s.free) < maxFreeTimers {
		s.free = append(s.free, t)
	}
}

// cancelOnLoop removes a timer that Cancel marked, if it is still marked
// and queued. A timer that is not queued is the fire path's or the
// schedule task's to recycle; one no longer marked was recycled since and
// serves a new handle, which this cancel must not touch.
func (s *sched) cancelOnLoop(t *timer) {
	if t.state.Load()&stMask == stCanceled && t.node.Queued() && s.q.Remove(&t.node) {
		s.recycle(t)
	}
}

// next returns the earliest deadline, or noDeadline.
func (s *sched) next() int64 {
	if n := s.q.Peek(); n != nil {
		return n.When
	}
	return noDeadline
}

// noDeadline is the deadline of a loop with no timer.
const noDeadline = math.MaxInt64

// fire runs one due timer, popped from the heap, at time now: it runs fn
// through run (which recovers panics) unless the timer was canceled, then
// requeues a periodic timer at its next multiple of the period after now
// (runs missed while the loop was busy are skipped, not bunched) or
// recycles the timer. It reports whether fn ran.
func (s *sched) fire(n *timerq.Node, now int64, run func(func())) bool {
	t := n.Arg.(*timer)
	st := t.state.Load()
	if st&stMask != stScheduled || !t.state.CompareAndSwap(st, st&^stMask|stRunning) {
		s.recycle(t) // canceled before it fired
		return false
	}
	run(t.node.Fn)
	st = t.state.Load()
	if st&stPeriodic == 0 || st&stMask != stRunning || !t.state.CompareAndSwap(st, st&^stMask|stScheduled) {
		s.recycle(t) // a one-shot timer, or canceled while it ran
		return true
	}
	p := t.node.Period
	next := t.node.When + p
	if next <= now {
		next += (now - next) / p * p
		if next <= now {
			next += p
		}
	}
	s.q.Reschedule(&t.node, next)
	return true
}

// clear recycles every queued timer, for a loop that stops.
func (s *sched) clear() {
	for n := s.q.Pop(); n != nil; n = s.q.Pop() {
		t := n.Arg.(*timer)
		for {
			st := t.state.Load()
			if t.state.CompareAndSwap(st, st&^stMask|stCanceled) {
				break
			}
		}
		s.recycle(t)
	}
}

// durationNanos converts a duration to a deadline offset, at least 0.
func durationNanos(d int64) int64 { return max(d, 0) }
