package eventloop

import "time"

// An Executor runs functions and timers on one goroutine, in order. Both
// *Loop and *TestLoop implement it, so code written against it can be
// tested on a virtual clock without sleeping.
type Executor interface {
	// Execute queues fn to run on the loop, after what is queued already.
	Execute(fn func()) error
	// Schedule runs fn on the loop once d has passed.
	Schedule(d time.Duration, fn func()) Timer
	// ScheduleAt runs fn on the loop once its clock reaches t.
	ScheduleAt(t time.Time, fn func()) Timer
	// Every runs fn on the loop every d, at a fixed rate, until canceled.
	Every(d time.Duration, fn func()) Timer
	// Now returns the loop's clock.
	Now() time.Time
	// InLoop reports whether the caller runs on the loop.
	InLoop() bool
}

var (
	_ Executor = (*Loop)(nil)
	_ Executor = (*TestLoop)(nil)
)
