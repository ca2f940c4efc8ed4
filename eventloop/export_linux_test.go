package eventloop

import "github.com/netkit/netkit/eventloop/internal/poll"

// TID returns the loop's OS thread id, for tests that signal it.
func (l *Loop) TID() int { return int(l.tid.Load()) }

func init() { testRecordTID = true }

// Sleeping reports whether the loop has announced a sleep.
func (l *Loop) Sleeping() bool { return l.wakeup.Load() != awake }

// UseEpollWait makes every loop wait with epoll_wait's millisecond
// timeouts, as on a kernel without epoll_pwait2, until the returned
// function restores the choice.
func UseEpollWait() (restore func()) { return poll.UseEpollWait() }

// CountWritevViews calls f with the number of views of the outbound queue
// handed to each writev, until the returned function removes it.
func CountWritevViews(f func(views int)) (restore func()) {
	writevViews.Store(&f)
	return func() { writevViews.Store(nil) }
}

// MaxWritesPerEvent is the writev calls of one write event.
const MaxWritesPerEvent = maxWritesPerEvent

// MaxReadBytesPerEvent is the read budget of one read event.
const MaxReadBytesPerEvent = maxReadBytesPerEvent
