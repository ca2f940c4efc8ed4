package eventloop

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Config configures NewGroup.
type Config struct {
	// Loops is the number of loops; 0 means runtime.GOMAXPROCS(0).
	Loops int
	// OnPanic receives a panic recovered from a task, timer or callback,
	// with the stack of the panicking goroutine; the loop goes on. It runs
	// on the loop. nil writes both to standard error.
	OnPanic func(v any, stack []byte)
	// QuietPeriod is how long Shutdown lets a loop run after its queue
	// last had work, for tasks that tasks queue, before it stops (Netty's
	// quiet period); 0 means DefaultQuietPeriod.
	QuietPeriod time.Duration
}

// DefaultQuietPeriod is the quiet period of a Config without one.
const DefaultQuietPeriod = 100 * time.Millisecond

// A Group is a set of loops.
type Group struct {
	loops  []*Loop
	next   atomic.Uint64
	mu     sync.Mutex // serializes Close
	closed bool
}

// NewGroup starts cfg.Loops loops, each a goroutine locked to its OS
// thread, blocking in epoll_wait while idle (no periodic wakeups). It
// returns ErrUnsupported on systems other than Linux.
func NewGroup(cfg Config) (*Group, error) {
	n := cfg.Loops
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	quiet := cfg.QuietPeriod
	if quiet <= 0 {
		quiet = DefaultQuietPeriod
	}
	g := &Group{}
	base, baseNano := time.Now(), runtimeNano()
	for i := range n {
		l := &Loop{group: g, index: i, base: base, baseNano: baseNano, onPanic: cfg.OnPanic, quiet: int64(quiet), done: make(chan struct{})}
		l.wakeup.Store(awake)
		if err := l.sys.open(); err != nil {
			g.Close()
			return nil, err
		}
		started := make(chan struct{})
		go l.run(started)
		<-started
		g.loops = append(g.loops, l)
	}
	return g, nil
}

// Next returns the next loop, round robin.
func (g *Group) Next() *Loop {
	return g.loops[(g.next.Add(1)-1)%uint64(len(g.loops))]
}

// Loops returns the group's loops. The slice is the caller's.
func (g *Group) Loops() []*Loop { return append([]*Loop(nil), g.loops...) }

// Close stops every loop at once: what is queued does not run, timers do
// not fire. It waits for the loops' goroutines and releases their file
// descriptors. Close after Close does nothing.
func (g *Group) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil
	}
	g.closed = true
	for _, l := range g.loops {
		l.close()
	}
	for _, l := range g.loops {
		<-l.done
		l.sys.close()
	}
	return nil
}

// Shutdown stops the loops gracefully: they stop taking tasks from other
// goroutines (Execute returns ErrShutdown) and cancel their timers, run
// what is queued and what those tasks queue, and stop once no task has run
// for the quiet period. If ctx ends first, Shutdown closes the group and
// returns ctx's error.
func (g *Group) Shutdown(ctx context.Context) error {
	for _, l := range g.loops {
		l.beginShutdown()
	}
	for _, l := range g.loops {
		select {
		case <-l.done:
		case <-ctx.Done():
			g.Close()
			return ctx.Err()
		}
	}
	return g.Close()
}
