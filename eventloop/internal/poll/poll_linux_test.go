package poll

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func open(t *testing.T) *Poller {
	t.Helper()
	var p Poller
	require.NoError(t, p.Open())
	t.Cleanup(p.Close)
	return &p
}

func pipe(t *testing.T) [2]int {
	t.Helper()
	var fds [2]int
	require.NoError(t, unix.Pipe2(fds[:], unix.O_NONBLOCK|unix.O_CLOEXEC))
	t.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
	return fds
}

// TestTranslation: every netkit bit maps to its own epoll bit and back
// (ET and OneShot are registration flags, never reported).
func TestTranslation(t *testing.T) {
	all := In | Out | Err | Hup | RdHup | ET | OneShot
	assert.Equal(t, uint32(unix.EPOLLIN|unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP|unix.EPOLLRDHUP|unix.EPOLLET|unix.EPOLLONESHOT), toEpoll(all))
	for b := In; b <= OneShot; b <<= 1 {
		x := toEpoll(b)
		assert.NotZero(t, x, "bit %#x", b)
		if b == ET || b == OneShot {
			assert.Zero(t, fromEpoll(x), "bit %#x", b)
			continue
		}
		assert.Equal(t, b, fromEpoll(x), "bit %#x", b)
	}
}

// TestReady: a pipe's read end is reported with its tag once written,
// Mod changes the tag and events, Del stops the reports.
func TestReady(t *testing.T) {
	p := open(t)
	fds := pipe(t)
	require.NoError(t, p.Add(fds[0], In, 7))
	ready, ok := p.Wait(0)
	require.True(t, ok)
	assert.Empty(t, ready)
	_, err := unix.Write(fds[1], []byte("x"))
	require.NoError(t, err)
	ready = waitOK(p, int64(time.Second))
	require.Equal(t, []Event{{FD: int32(fds[0]), Tag: 7, Events: In}}, ready)
	require.NoError(t, p.Mod(fds[0], In|ET, 8))
	ready, _ = p.Wait(0)
	require.Equal(t, []Event{{FD: int32(fds[0]), Tag: 8, Events: In}}, ready)
	ready, _ = p.Wait(0)
	assert.Empty(t, ready, "edge-triggered: reported once")
	require.NoError(t, p.Del(fds[0]))
	unix.Write(fds[1], []byte("y"))
	ready, _ = p.Wait(0)
	assert.Empty(t, ready, "reported after Del")
	assert.Error(t, p.Del(fds[0]), "Del of a descriptor not registered")
}

// TestWake: Wake from another goroutine ends a wait without limit, and
// the wakeup itself is not reported; a Wake before a Wait makes it return
// at once.
func TestWake(t *testing.T) {
	for _, pwait2 := range []bool{true, false} {
		t.Run(map[bool]string{true: "pwait2", false: "epoll_wait"}[pwait2], func(t *testing.T) {
			if !pwait2 {
				defer UseEpollWait()()
			}
			p := open(t)
			go func() {
				time.Sleep(10 * time.Millisecond)
				p.Wake()
			}()
			assert.Empty(t, waitOK(p, -1))
			p.Wake()
			start := time.Now()
			assert.Empty(t, waitOK(p, int64(time.Hour)))
			assert.Less(t, time.Since(start), time.Minute)
			// Only a wait that no signal cut short is timed.
			for {
				start = time.Now()
				if _, ok := p.Wait(int64(3 * time.Millisecond)); ok {
					break
				}
			}
			assert.GreaterOrEqual(t, time.Since(start), 3*time.Millisecond, "a timed wait ended early")
		})
	}
}

// waitOK waits again while a signal cuts the wait short (the runtime
// preempts goroutines with SIGURG, so Wait reports EINTR as ok false).
func waitOK(p *Poller, timeout int64) []Event {
	for {
		if ready, ok := p.Wait(timeout); ok {
			return ready
		}
	}
}

// TestWakeAfterClose writes nothing.
func TestWakeAfterClose(t *testing.T) {
	var p Poller
	require.NoError(t, p.Open())
	p.Close()
	p.Wake()
	p.Close() // twice is harmless
}

// TestPoll: Poll reports ready descriptors without waiting, and reports a
// wakeup it consumed (no events, but any set), so that a caller does not go
// on to block in Wait after the waker's one write was used up.
func TestPoll(t *testing.T) {
	p := open(t)
	ready, any := p.Poll()
	assert.Empty(t, ready)
	assert.False(t, any, "Poll with nothing ready reported something")

	p.Wake()
	ready, any = p.Poll()
	assert.Empty(t, ready, "a wakeup was reported as an event")
	assert.True(t, any, "Poll consumed a wakeup without saying so")
	ready, any = p.Poll()
	assert.False(t, any || len(ready) > 0, "the wakeup was not consumed")

	fds := pipe(t)
	require.NoError(t, p.Add(fds[0], In, 7))
	_, err := unix.Write(fds[1], []byte{1})
	require.NoError(t, err)
	ready, any = p.Poll()
	require.Len(t, ready, 1)
	assert.True(t, any)
	assert.Equal(t, Event{FD: int32(fds[0]), Tag: 7, Events: In}, ready[0])
}

// TestPark: Park returns at once with what is ready, wakes for a
// descriptor that turns ready and for a Wake while it waits, and returns
// nothing once its timeout has passed (never before).
func TestPark(t *testing.T) {
	p := open(t)
	fds := pipe(t)
	require.NoError(t, p.Add(fds[0], In, 3))
	_, err := unix.Write(fds[1], []byte{1})
	require.NoError(t, err)
	ready, ok := p.Park(-1)
	require.True(t, ok, "the runtime's poller refused an epoll descriptor")
	require.Len(t, ready, 1)
	assert.Equal(t, Event{FD: int32(fds[0]), Tag: 3, Events: In}, ready[0])
	var b [1]byte
	_, err = unix.Read(fds[0], b[:])
	require.NoError(t, err)

	start := time.Now()
	ready, ok = p.Park(int64(20 * time.Millisecond))
	assert.True(t, ok)
	assert.Empty(t, ready)
	assert.GreaterOrEqual(t, time.Since(start), 20*time.Millisecond, "Park returned before its timeout")

	go func() {
		time.Sleep(10 * time.Millisecond)
		unix.Write(fds[1], []byte{2})
	}()
	ready, ok = p.Park(-1) // the deadline of the last Park is cleared
	require.True(t, ok)
	require.Len(t, ready, 1)
	_, err = unix.Read(fds[0], b[:])
	require.NoError(t, err)

	go func() {
		time.Sleep(10 * time.Millisecond)
		p.Wake()
	}()
	ready, ok = p.Park(-1)
	assert.True(t, ok)
	assert.Empty(t, ready, "a wakeup was reported as an event")
}

// TestParkNoLostWakeup: wakeups from another goroutine, each sent after
// the parked side announced it would wait, always end the wait. The
// runtime's poller forgets readiness it saw before a wait begins, so a
// Park that did not look for itself first would sleep through a wakeup
// that came between its caller's last look and the wait.
func TestParkNoLostWakeup(t *testing.T) {
	p := open(t)
	var waiting atomic.Bool
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if waiting.Swap(false) {
				p.Wake()
			}
			runtime.Gosched()
		}
	}()
	for i := range 2000 {
		p.Poll() // the caller's look, then the announcement
		waiting.Store(true)
		done := make(chan struct{})
		timer := time.AfterFunc(5*time.Second, func() { close(done) })
		_, ok := p.Park(int64(10 * time.Second))
		timer.Stop()
		require.True(t, ok)
		select {
		case <-done:
			t.Fatalf("round %d: Park slept through a wakeup", i)
		default:
		}
	}
}

// TestParkAfterEdge: a wakeup whose readiness the runtime's poller saw
// before Park began (it resets that at the start of each wait) still ends
// the wait at once.
func TestParkAfterEdge(t *testing.T) {
	p := open(t)
	for i := range 20 {
		p.Wake()
		time.Sleep(2 * time.Millisecond) // the runtime's poller takes the edge meanwhile
		done := make(chan struct{})
		timer := time.AfterFunc(2*time.Second, func() { p.Wake(); close(done) })
		_, ok := p.Park(-1)
		timer.Stop()
		require.True(t, ok)
		select {
		case <-done:
			t.Fatalf("round %d: Park slept through a wakeup sent before it", i)
		default:
		}
	}
}
