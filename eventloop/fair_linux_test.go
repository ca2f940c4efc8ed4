package eventloop_test

import (
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/eventloop"
)

// Fairness of one loop among its tasks, timers and connections: a task
// queue that never empties must not keep the loop from its timers and its
// descriptors.

// requireTimerAndEcho checks, while something floods l's task queue, that a
// timer scheduled on l fires and that a connection served by l gets its echo,
// each within a few seconds (seconds, not a speed: a loop held by its queue
// never gets there at all).
func requireTimerAndEcho(t *testing.T, g *eventloop.Group, l *eventloop.Loop) {
	t.Helper()
	srv := listen(t, g, "tcp", "127.0.0.1:0", echo{})
	fired := make(chan struct{})
	l.Schedule(5*time.Millisecond, func() { close(fired) })
	select {
	case <-fired:
	case <-time.After(5 * time.Second):
		require.FailNow(t, "a timer due in 5ms had not fired after 5s while the task queue was flooded")
	}
	c, err := net.Dial("tcp", srv.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(5*time.Second)))
	msg := []byte("ping through a flooded loop")
	_, err = c.Write(msg)
	require.NoError(t, err)
	back := make([]byte, len(msg))
	_, err = io.ReadFull(c, back)
	require.NoError(t, err, "no echo within 5s while the task queue was flooded")
	require.Equal(t, msg, back)
}

// TestTaskRequeueDoesNotStarve: a task that Executes itself again forever
// leaves the loop its timers and its I/O.
func TestTaskRequeueDoesNotStarve(t *testing.T) {
	g := newGroup(t, eventloop.Config{Loops: 1})
	l := g.Next()
	var stop atomic.Bool
	var ran atomic.Int64
	var again func()
	again = func() {
		ran.Add(1)
		if !stop.Load() {
			l.Execute(again)
		}
	}
	require.NoError(t, l.Execute(again))
	defer stop.Store(true)
	requireTimerAndEcho(t, g, l)
	require.Positive(t, ran.Load())
}

// TestExecuteFloodDoesNotStarve: a goroutine that Executes as fast as the
// loop runs its tasks, keeping thousands queued at all times so that the
// queue never empties, leaves the loop its timers and its I/O.
func TestExecuteFloodDoesNotStarve(t *testing.T) {
	g := newGroup(t, eventloop.Config{Loops: 1})
	l := g.Next()
	var stop atomic.Bool
	var pushed, ran atomic.Int64
	task := func() {
		// A task of a few microseconds: more than a Push costs, so the
		// producer stays ahead.
		for start := time.Now(); time.Since(start) < 2*time.Microsecond; {
		}
		ran.Add(1)
	}
	flooded := make(chan struct{})
	go func() {
		defer close(flooded)
		for !stop.Load() {
			if pushed.Load()-ran.Load() > 20000 {
				time.Sleep(100 * time.Microsecond)
				continue
			}
			for range 256 {
				if l.Execute(task) != nil {
					return
				}
				pushed.Add(1)
			}
		}
	}()
	defer func() { stop.Store(true); <-flooded }()
	requireTimerAndEcho(t, g, l)
	require.Positive(t, ran.Load())
}

// TestWriteBudgetPerRound: a connection with a long queue of small buffers
// and a peer that reads as fast as it can (so that the socket may never
// fill) makes a bounded number of writev calls per round of its loop, then
// yields and resumes on a later round; every byte arrives in order. Without
// the budget one flush wrote until the queue was empty, holding the loop
// for the whole transfer.
func TestWriteBudgetPerRound(t *testing.T) {
	clean(t)
	const n, size = 1 << 16, 64 // 4 MiB in 65536 components
	g := newGroup(t, eventloop.Config{Loops: 1})
	l := g.Next()
	var round, inRound, most atomic.Int64
	defer eventloop.CountWritevViews(func(int) {
		// Runs on the loop: a round is counted by the loop's wakeups.
		if w := int64(l.Stats().Wakeups); w != round.Load() {
			round.Store(w)
			inRound.Store(0)
		}
		if k := inRound.Add(1); k > most.Load() {
			most.Store(k)
		}
	})()
	srv := listen(t, g, "tcp", "127.0.0.1:0", smallWriter{n: n, size: size})
	readSmallWriter(t, srv, n*size, 2*time.Minute)
	t.Logf("at most %d writev calls in one round of the loop", most.Load())
	// One event's budget, plus a flush from a task of the same round.
	require.LessOrEqual(t, most.Load(), int64(2*eventloop.MaxWritesPerEvent))
}

// readSizes consumes what it reads and records the most bytes one read
// event handed to OnRead.
type readSizes struct{ most, total *atomic.Int64 }

func (r readSizes) OnRead(_ *eventloop.Context, msg any) {
	c := msg.(*buf.Composite)
	n := int64(c.Len())
	if n > r.most.Load() {
		r.most.Store(n)
	}
	r.total.Add(n)
	c.Discard(c.Len())
}

// TestReadBudgetPerEvent: a peer writing 32 MiB as fast as it can gets at
// most the read budget (and one read more) taken from its socket per
// event, so that it cannot hold the loop from its other connections for
// more than that; every byte is still read.
func TestReadBudgetPerEvent(t *testing.T) {
	clean(t)
	const total = 32 << 20
	g := newGroup(t, eventloop.Config{Loops: 1})
	var most, got atomic.Int64
	srv := listen(t, g, "tcp", "127.0.0.1:0", readSizes{most: &most, total: &got})
	c, err := net.Dial("tcp", srv.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(2*time.Minute)))
	p := make([]byte, 1<<20)
	for range total / len(p) {
		_, err := c.Write(p)
		require.NoError(t, err)
	}
	waitFor(t, "all bytes read", func() bool { return got.Load() == total })
	t.Logf("at most %d bytes read in one event", most.Load())
	require.LessOrEqual(t, most.Load(), int64(eventloop.MaxReadBytesPerEvent+64<<10))
}
