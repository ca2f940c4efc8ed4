package eventloop

// TID returns the loop's OS thread id, for tests that signal it.
func (l *Loop) TID() int { return l.tid }

// Sleeping reports whether the loop has announced a sleep.
func (l *Loop) Sleeping() bool { return l.wakeup.Load() != awake }
