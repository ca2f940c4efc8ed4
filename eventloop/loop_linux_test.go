package eventloop_test

import (
	"context"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/netkit/netkit/eventloop"
)

func newGroup(t *testing.T, cfg eventloop.Config) *eventloop.Group {
	t.Helper()
	g, err := eventloop.NewGroup(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { g.Close() })
	return g
}

// run runs fn on l and waits for it.
func run(t testing.TB, l *eventloop.Loop, fn func()) {
	t.Helper()
	done := make(chan struct{})
	require.NoError(t, l.Execute(func() { fn(); close(done) }))
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the loop did not run the task within 10s")
	}
}

// waitSleeping waits until l has announced a sleep.
func waitSleeping(t *testing.T, l *eventloop.Loop) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !l.Sleeping() {
		require.False(t, time.Now().After(deadline), "the loop never went to sleep")
		time.Sleep(100 * time.Microsecond)
	}
}

func TestExecuteOrderAndInLoop(t *testing.T) {
	l := newGroup(t, eventloop.Config{Loops: 1}).Next()
	assert.False(t, l.InLoop(), "InLoop is true on the test goroutine")
	var got []int
	var inLoop []bool
	for i := range 100 {
		l.Execute(func() { got = append(got, i); inLoop = append(inLoop, l.InLoop()) })
	}
	run(t, l, func() {})
	assert.True(t, slices.Equal(got, func() []int {
		w := make([]int, 100)
		for i := range w {
			w[i] = i
		}
		return w
	}()), "tasks ran in order %v", got)
	assert.False(t, slices.Contains(inLoop, false), "InLoop is false inside a task")
}

// TestWakeNotFromInside: tasks queued by a task never write the eventfd.
func TestWakeNotFromInside(t *testing.T) {
	l := newGroup(t, eventloop.Config{Loops: 1}).Next()
	run(t, l, func() {})
	before := l.Stats().WakeWrites
	var n atomic.Int32
	run(t, l, func() {
		for range 1000 {
			l.Execute(func() { n.Add(1) })
		}
	})
	run(t, l, func() {})
	// The two run calls came from outside: at most one write each.
	w := l.Stats().WakeWrites - before
	assert.False(t, w > 2, "%d eventfd writes for 2 tasks from outside and 1000 from inside, want ≤ 2", w)
	assert.Equal(t, int32(1000), n.Load(), "%d of 1000 inner tasks ran", n.Load())
}

// TestWakeOncePerBurst: a burst of 1000 tasks from outside to a sleeping
// loop writes the eventfd once (the loop stays awake through the burst:
// its first task waits for the burst to end).
func TestWakeOncePerBurst(t *testing.T) {
	l := newGroup(t, eventloop.Config{Loops: 1}).Next()
	waitSleeping(t, l)
	before := l.Stats().WakeWrites
	release := make(chan struct{})
	var n atomic.Int32
	l.Execute(func() { <-release })
	for range 999 {
		l.Execute(func() { n.Add(1) })
	}
	close(release)
	run(t, l, func() {})
	w := l.Stats().WakeWrites - before
	assert.Equal(t, uint64(1), w, "%d eventfd writes for a burst of 1000 tasks (and one more task while awake), want 1", w)
	assert.Equal(t, int32(999), n.Load(), "%d of 999 tasks ran", n.Load())
}

// TestNoStrandedTask: tasks submitted from outside while the loop goes to
// sleep (it has a timer an hour away, so a stranded task would wait an
// hour) all run promptly, over many rounds with random timing.
func TestNoStrandedTask(t *testing.T) {
	l := newGroup(t, eventloop.Config{Loops: 1}).Next()
	l.Schedule(time.Hour, func() {})
	r := rand.New(rand.NewPCG(1, 1))
	rounds := 20000
	if testing.Short() {
		rounds = 2000
	}
	done := make(chan struct{}, 1)
	for i := range rounds {
		spin := r.IntN(2000)
		for j := 0; j < spin; j++ {
			runtime.Gosched()
			if j%64 == 0 {
				break
			}
		}
		l.Execute(func() { done <- struct{}{} })
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("round %d: a task waited over 5s (stranded)", i)
		}
	}
}

// TestIdleLoopSleeps: a loop with nothing to do does not wake up.
func TestIdleLoopSleeps(t *testing.T) {
	l := newGroup(t, eventloop.Config{Loops: 1}).Next()
	waitSleeping(t, l)
	before := l.Stats().Wakeups
	time.Sleep(time.Second)
	w := l.Stats().Wakeups - before
	assert.Equal(t, uint64(0), w, "an idle loop woke %d times in 1s, want 0", w)
}

// TestExecuteManyProducers: every task from many goroutines runs once, in
// each goroutine's order (run it with -race).
func TestExecuteManyProducers(t *testing.T) {
	l := newGroup(t, eventloop.Config{Loops: 1}).Next()
	const producers, each = 8, 20000
	last := make([]int, producers) // touched only on the loop
	for i := range last {
		last[i] = -1
	}
	var bad atomic.Int32
	var wg sync.WaitGroup
	for p := range producers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				l.Execute(func() {
					if last[p] != i-1 {
						bad.Add(1)
					}
					last[p] = i
				})
			}
		}()
	}
	wg.Wait()
	run(t, l, func() {})
	for p, v := range last {
		assert.Equal(t, each-1, v, "producer %d: last task run %d, want %d", p, v, each-1)
	}
	assert.Equal(t, int32(0), bad.Load(), "%d tasks ran out of their producer's order", bad.Load())
}

// TestTimersFireInOrderNeverEarly: timers scheduled on the loop and from
// outside fire once each, not before their deadline, in deadline order;
// canceled ones never fire.
func TestTimersFireInOrderNeverEarly(t *testing.T) {
	l := newGroup(t, eventloop.Config{Loops: 1}).Next()
	type fired struct {
		id       int
		due, now time.Time
	}
	var got []fired // appended on the loop
	var mu sync.Mutex
	canceled := map[int]bool{}
	r := rand.New(rand.NewPCG(2, 2))
	var handles []eventloop.Timer
	var dues []time.Time
	for i := range 300 {
		d := time.Duration(r.IntN(40_000)) * time.Microsecond
		due := l.Now().Add(d)
		fn := func() { got = append(got, fired{i, due, l.Now()}) }
		var h eventloop.Timer
		if i%2 == 0 {
			run(t, l, func() { h = l.ScheduleAt(due, fn) })
		} else {
			h = l.ScheduleAt(due, fn)
		}
		handles = append(handles, h)
		dues = append(dues, due)
	}
	for i := 0; i < 300; i += 7 {
		mu.Lock()
		if handles[i].Cancel() {
			canceled[i] = true
		}
		mu.Unlock()
	}
	time.Sleep(100 * time.Millisecond)
	run(t, l, func() {})
	var ids []int
	for k, f := range got {
		assert.False(t, f.now.Before(f.due), "timer %d fired %v early", f.id, f.due.Sub(f.now))
		if k > 0 {
			assert.False(t, f.due.Before(got[k-1].due), "timer %d (due %v) fired after timer %d (due %v)", f.id, f.due, got[k-1].id, got[k-1].due)
		}
		ids = append(ids, f.id)
	}
	for i := range 300 {
		assert.NotEqual(t, canceled[i], slices.Contains(ids, i), "timer %d: fired %v, canceled %v", i, slices.Contains(ids, i), canceled[i])
	}
	s := l.Stats()
	assert.Equal(t, 0, s.TimersAlive, "%d timers still queued", s.TimersAlive)
	_ = dues
}

// TestStaleTimerHandle: once a timer has fired and its node serves a new
// timer, the old handle's Cancel returns false and leaves the new one be.
func TestStaleTimerHandle(t *testing.T) {
	l := newGroup(t, eventloop.Config{Loops: 1}).Next()
	fired := make(chan int, 2)
	var old eventloop.Timer
	run(t, l, func() { old = l.Schedule(0, func() { fired <- 1 }) })
	<-fired
	var fresh eventloop.Timer
	run(t, l, func() { fresh = l.Schedule(20*time.Millisecond, func() { fired <- 2 }) })
	assert.False(t, old.Cancel(), "Cancel of a fired timer's handle returned true")
	got := <-fired
	assert.Equal(t, 2, got, "fired %d, want the new timer", got)
	assert.False(t, fresh.Cancel(), "Cancel after firing returned true")
	assert.False(t, (eventloop.Timer{}).Cancel(), "the zero Timer's Cancel returned true")
}

// TestEvery: a fixed-rate timer fires until canceled, from inside its own
// function.
func TestEvery(t *testing.T) {
	l := newGroup(t, eventloop.Config{Loops: 1}).Next()
	done := make(chan struct{})
	n := 0
	var h eventloop.Timer
	run(t, l, func() {
		h = l.Every(2*time.Millisecond, func() {
			n++
			if n == 5 {
				assert.True(t, h.Cancel(), "Cancel of a running Every timer returned false")
				close(done)
			}
		})
	})
	<-done
	time.Sleep(10 * time.Millisecond)
	run(t, l, func() {
		assert.Equal(t, 5, n, "Every ran %d times after Cancel at 5", n)
	})
}

// TestEINTR: signals at the loop's thread during a timed wait (one short
// enough to block in epoll_pwait2, not to park) neither end the wait early
// nor lose the timer.
func TestEINTR(t *testing.T) {
	l := newGroup(t, eventloop.Config{Loops: 1}).Next()
	start := l.Now()
	fired := make(chan time.Time, 1)
	l.Schedule(45*time.Millisecond, func() { fired <- l.Now() })
	waitSleeping(t, l)
	stop := time.After(35 * time.Millisecond)
	signals := 0
loop:
	for {
		select {
		case <-stop:
			break loop
		default:
		}
		require.NoError(t, unix.Tgkill(os.Getpid(), l.TID(), unix.SIGURG))
		signals++
		time.Sleep(500 * time.Microsecond)
	}
	select {
	case at := <-fired:
		d := at.Sub(start)
		assert.GreaterOrEqual(t, d, 45*time.Millisecond, "the timer fired early")
		assert.LessOrEqual(t, d, 300*time.Millisecond, "the timer fired much later than 45ms")
	case <-time.After(5 * time.Second):
		t.Fatal("the timer never fired")
	}
	t.Logf("%d signals during the wait", signals)
}

// TestPanicRecovered: a panicking task or timer is reported and the loop
// goes on.
func TestPanicRecovered(t *testing.T) {
	var mu sync.Mutex
	var got []string
	l := newGroup(t, eventloop.Config{Loops: 1, OnPanic: func(v any, stack []byte) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, v.(string))
		assert.Contains(t, string(stack), "TestPanicRecovered", "the stack does not name the panicking function:\n%s", stack)
	}}).Next()
	l.Execute(func() { panic("task") })
	ran := make(chan struct{})
	l.Execute(func() { close(ran) })
	<-ran
	fired := make(chan struct{})
	l.Schedule(time.Millisecond, func() { panic("timer") })
	l.Schedule(2*time.Millisecond, func() { close(fired) })
	<-fired
	mu.Lock()
	defer mu.Unlock()
	assert.True(t, slices.Equal(got, []string{"task", "timer"}), "OnPanic got %q", got)
	p := l.Stats().Panics
	assert.Equal(t, uint64(2), p, "Stats.Panics %d, want 2", p)
}

// TestPanicInRoundGoesOn: events reported in the same round as one whose
// callback panics still reach their callbacks in that round. Both
// registrations are edge-triggered, so an event skipped after the panic
// would never be reported again.
func TestPanicInRoundGoesOn(t *testing.T) {
	var panics atomic.Int32
	l := newGroup(t, eventloop.Config{Loops: 1, OnPanic: func(any, []byte) { panics.Add(1) }}).Next()
	var a, b [2]int
	require.NoError(t, unix.Pipe2(a[:], unix.O_NONBLOCK|unix.O_CLOEXEC))
	require.NoError(t, unix.Pipe2(b[:], unix.O_NONBLOCK|unix.O_CLOEXEC))
	for _, fd := range append(a[:], b[:]...) {
		t.Cleanup(func() { unix.Close(fd) })
	}
	second := make(chan struct{}, 1)
	require.NoError(t, l.Register(a[0], eventloop.Readable|eventloop.EdgeTriggered, func(eventloop.Events) { panic("first") }))
	require.NoError(t, l.Register(b[0], eventloop.Readable|eventloop.EdgeTriggered, func(eventloop.Events) { second <- struct{}{} }))
	t.Cleanup(func() { l.Unregister(a[0]); l.Unregister(b[0]) })
	for round := range 3 {
		// Both become readable inside one task, so the loop's next wait
		// reports the two together, a's first.
		done := make(chan struct{})
		l.Execute(func() {
			unix.Write(a[1], []byte{1})
			unix.Write(b[1], []byte{1})
			close(done)
		})
		<-done
		select {
		case <-second:
		case <-time.After(2 * time.Second):
			t.Fatalf("round %d: the event after the panicking one never reached its callback", round)
		}
		assert.Equal(t, int32(round+1), panics.Load(), "panics reported")
	}
}

// TestShutdownDrains: Shutdown runs what is queued and what those tasks
// queue within the quiet period, refuses work from outside, cancels
// timers, and then the loop is closed.
func TestShutdownDrains(t *testing.T) {
	g := newGroup(t, eventloop.Config{Loops: 1, QuietPeriod: 50 * time.Millisecond})
	l := g.Next()
	var n atomic.Int32
	block := make(chan struct{})
	l.Execute(func() { <-block })
	for range 100 {
		l.Execute(func() {
			n.Add(1)
			l.Execute(func() { n.Add(1) }) // from the loop: still taken
		})
	}
	timerFired := atomic.Bool{}
	l.Schedule(time.Hour, func() { timerFired.Store(true) })
	done := make(chan error)
	go func() { done <- g.Shutdown(context.Background()) }()
	time.Sleep(10 * time.Millisecond)
	err := l.Execute(func() {})
	assert.ErrorIs(t, err, eventloop.ErrShutdown, "Execute during Shutdown: %v, want ErrShutdown", err)
	close(block)
	require.NoError(t, <-done)
	assert.Equal(t, int32(200), n.Load(), "%d of 200 tasks ran before the loop stopped", n.Load())
	assert.ErrorIs(t, l.Execute(func() {}), eventloop.ErrClosed, "Execute after Shutdown")
	assert.False(t, timerFired.Load(), "a timer fired after Shutdown")
}

// TestShutdownDeadline: a loop stuck in a task makes Shutdown return the
// context's error.
func TestShutdownDeadline(t *testing.T) {
	g := newGroup(t, eventloop.Config{Loops: 1})
	release := make(chan struct{})
	defer close(release)
	g.Next().Execute(func() { <-release })
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	done := make(chan error)
	go func() { done <- g.Shutdown(ctx) }()
	time.Sleep(100 * time.Millisecond)
	release <- struct{}{}
	err := <-done
	assert.ErrorIs(t, err, context.DeadlineExceeded, "Shutdown = %v, want context.DeadlineExceeded", err)
}

// TestRegister: a pipe's read end, registered for reading, runs its
// callback when written; Modify and Unregister work.
func TestRegister(t *testing.T) {
	l := newGroup(t, eventloop.Config{Loops: 1}).Next()
	var p [2]int
	require.NoError(t, unix.Pipe2(p[:], unix.O_NONBLOCK|unix.O_CLOEXEC))
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	got := make(chan string, 4)
	err := l.Register(p[0], eventloop.Readable|eventloop.EdgeTriggered, func(ev eventloop.Events) {
		var b [64]byte
		for {
			n, err := unix.Read(p[0], b[:])
			if n <= 0 || err != nil {
				return
			}
			got <- string(b[:n])
		}
	})
	require.NoError(t, err)
	assert.Error(t, l.Register(p[0], eventloop.Readable, func(eventloop.Events) {}), "a second Register of the same fd succeeded")
	unix.Write(p[1], []byte("ping"))
	select {
	case s := <-got:
		assert.Equal(t, "ping", s, "read %q", s)
	case <-time.After(5 * time.Second):
		t.Fatal("the callback did not run")
	}
	require.NoError(t, l.Modify(p[0], eventloop.Readable))
	require.NoError(t, l.Unregister(p[0]))
	unix.Write(p[1], []byte("late"))
	time.Sleep(20 * time.Millisecond)
	run(t, l, func() {})
	select {
	case s := <-got:
		t.Errorf("callback ran after Unregister: %q", s)
	default:
	}
	assert.Error(t, l.Unregister(p[0]), "Unregister of an unregistered fd succeeded")
}

// TestMillisecondFallback: without epoll_pwait2 (Linux < 5.11) waits are
// whole milliseconds rounded up, so timers fire late by under a
// millisecond or so, never early, and the loop does not spin through
// zero-timeout waits before a timer is due.
func TestMillisecondFallback(t *testing.T) {
	defer eventloop.UseEpollWait()()
	l := newGroup(t, eventloop.Config{Loops: 1}).Next()
	waitSleeping(t, l)
	before := l.Stats().Wakeups
	for i := range 50 {
		d := time.Duration(100+i*37) * time.Microsecond
		due := l.Now().Add(d)
		fired := make(chan time.Time, 1)
		l.ScheduleAt(due, func() { fired <- l.Now() })
		select {
		case at := <-fired:
			require.False(t, at.Before(due), "a %v timer fired %v early", d, due.Sub(at))
		case <-time.After(5 * time.Second):
			t.Fatalf("a %v timer never fired", d)
		}
	}
	// Each timer: the Schedule's wake, the timer's, and a spare.
	w := l.Stats().Wakeups - before
	assert.False(t, w > 150, "%d wakeups for 50 timers: the waits end before the deadlines", w)
}
