package echobench

import (
	"sync/atomic"
	"time"
)

// window is a load's measured interval. The load's main goroutine opens
// it when the warm-up is over and the runner is ready (Mark("start") has
// returned); it closes Duration later. The connections' goroutines read it
// without locks; before it opens, everything they do is warm-up.
type window struct {
	begin time.Time // the monotonic base of start and end
	// start and end are nanoseconds after begin; start is 0 until the
	// window opens, and is stored after end.
	start, end atomic.Int64
}

func newWindow() *window { return &window{begin: time.Now()} }

// open opens the window now for d and returns its end.
func (w *window) open(d time.Duration) time.Time {
	now := time.Now()
	s := max(int64(now.Sub(w.begin)), 1)
	w.end.Store(s + int64(d))
	w.start.Store(s)
	return w.begin.Add(time.Duration(s + int64(d)))
}

// at is t as nanoseconds after begin.
func (w *window) at(t time.Time) int64 { return int64(t.Sub(w.begin)) }

// in reports whether t falls inside the window.
func (w *window) in(t time.Time) bool {
	s := w.start.Load()
	x := w.at(t)
	return s != 0 && x >= s && x < w.end.Load()
}

// over reports whether the window has opened and t is at or past its end.
func (w *window) over(t time.Time) bool {
	return w.start.Load() != 0 && w.at(t) >= w.end.Load()
}

// overlaps reports whether the interval from a to b overlaps the window.
func (w *window) overlaps(a, b time.Time) bool {
	s := w.start.Load()
	return s != 0 && w.at(b) > s && w.at(a) < w.end.Load()
}
