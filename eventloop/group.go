package eventloop

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/netkit/netkit/internal/rt/nanotime"
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
	loops     []*Loop
	next      atomic.Uint64
	closeOnce sync.Once
	done      chan struct{} // closed once every loop has stopped and released its descriptors
}

// NewGroup starts cfg.Loops loops, each a goroutine (not locked to an OS
// thread: see Loop), blocking in epoll_wait while idle (no periodic
// wakeups). It
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
	g := &Group{done: make(chan struct{})}
	base, baseNano := time.Now(), nanotime.Nano()
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

// Done returns a channel that is closed once every loop of g has stopped
// and released its file descriptors: after Close, or once Shutdown has
// finished. Close and Shutdown called on one of g's loops do not wait;
// Done tells when they are done.
func (g *Group) Done() <-chan struct{} { return g.done }

// Close stops every loop at once: what is queued does not run, timers do
// not fire. It waits for the loops' goroutines and releases their file
// descriptors. Called on one of g's loops, Close does not wait (a loop
// cannot wait for itself to stop): it returns nil at once, the loops stop
// once the calling task or callback returns, and Done is closed when they
// have. Close after Close does nothing but wait, as the first did.
func (g *Group) Close() error {
	g.closeOnce.Do(func() {
		for _, l := range g.loops {
			l.close()
		}
		go func() {
			for _, l := range g.loops {
				<-l.done
				l.sys.close()
			}
			close(g.done)
		}()
	})
	if !g.inLoop() {
		<-g.done
	}
	return nil
}

// Shutdown stops the loops gracefully: they stop taking tasks from other
// goroutines (Execute returns ErrShutdown) and cancel their timers, run
// what is queued and what those tasks queue, and stop once no task has run
// for the quiet period. If ctx ends first, Shutdown closes the group and
// returns ctx's error. Called on one of g's loops, Shutdown does not wait
// (a loop cannot wait for itself to stop): it begins the shutdown and
// returns nil at once; the loops stop as above (the group is closed when
// ctx ends, if first), and Done is closed when they have.
func (g *Group) Shutdown(ctx context.Context) error {
	for _, l := range g.loops {
		l.beginShutdown()
	}
	if g.inLoop() {
		go g.awaitShutdown(ctx)
		return nil
	}
	return g.awaitShutdown(ctx)
}

// awaitShutdown waits for the loops to stop after Shutdown, or for ctx to
// end, and closes the group.
func (g *Group) awaitShutdown(ctx context.Context) error {
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
