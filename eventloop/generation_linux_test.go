package eventloop

import (
	"errors"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/netkit/netkit/eventloop/internal/poll"
)

// errRecorder records the errors and the end of a connection.
type errRecorder struct {
	errs     []error
	inactive int
}

func (r *errRecorder) OnError(_ *Context, err error) { r.errs = append(r.errs, err) }
func (r *errRecorder) OnInactive(*Context)           { r.inactive++ }

// pausedAtStart pauses its connection before OnActive, as a proxy's front
// does while it dials the upstream.
type pausedAtStart struct{ errRecorder }

func (p *pausedAtStart) OnActive(x *Context) { x.Conn().PauseRead() }

func socketPair(t *testing.T) [2]int {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	require.NoError(t, err)
	return fds
}

// TestStaleEventNotDelivered: in one batch of events, the first event's
// callback closes connection A and opens connection B, which gets A's
// descriptor number; A's own event, a hang-up, is still in the batch. It
// must not reach B. The batch is the kernel's (epoll_wait on the loop's
// epoll set), ordered as the loop would have received it had the trigger
// become ready first, and dispatched by the loop's own code.
func TestStaleEventNotDelivered(t *testing.T) {
	g, err := NewGroup(Config{Loops: 1, OnPanic: func(v any, stack []byte) { t.Errorf("panic: %v\n%s", v, stack) }})
	require.NoError(t, err)
	defer g.Close()
	l := g.loops[0]
	pa, pb, trig := socketPair(t), socketPair(t), socketPair(t)
	defer unix.Close(pb[1])
	defer unix.Close(trig[1])

	var (
		ra      errRecorder
		rb      pausedAtStart
		b       *Conn
		batched int
		ran     uint64
		bState  uint32
		fdA     = pa[0]
	)
	var setupErr error
	done := make(chan struct{})
	require.NoError(t, l.Execute(func() {
		defer close(done)
		a := &Conn{loop: l, fd: fdA, opts: newOptions(nil)}
		a.start(&ra)
		setupErr = l.register(trig[0], Readable, fdFunc(func(Events) {
			a.Close()
			// B takes A's descriptor number.
			if err := unix.Dup3(pb[0], fdA, unix.O_CLOEXEC); err != nil {
				panic(err)
			}
			unix.Close(pb[0])
			b = &Conn{loop: l, fd: fdA, opts: newOptions(nil)}
			b.start(&rb)
		}))
		if setupErr != nil {
			return
		}
		defer func() { l.unregister(trig[0]); unix.Close(trig[0]) }()
		unix.Write(trig[1], []byte{1}) // the trigger is ready first,
		unix.Close(pa[1])              // then A hangs up
		events, ok := l.sys.Wait(0)
		if !ok {
			setupErr = errors.New("the poller's wait was interrupted")
			return
		}
		slices.SortStableFunc(events, func(x, y poll.Event) int {
			return btoi(int(y.FD) == trig[0]) - btoi(int(x.FD) == trig[0])
		})
		for _, ev := range events {
			if int(ev.FD) == trig[0] || int(ev.FD) == fdA {
				batched++
			}
		}
		before := l.events.Load()
		l.dispatch(events)
		ran = l.events.Load() - before
		if b != nil {
			bState = b.state
			b.Close()
		}
	}))
	<-done
	require.NoError(t, setupErr)
	require.Equal(t, 2, batched, "the trigger's and A's events in one batch")
	require.NotNil(t, b, "the trigger ran")
	require.Equal(t, 1, ra.inactive, "A closed")
	assert.Equal(t, uint64(1), ran, "callbacks run for the batch: the trigger's only, not A's hang-up delivered to B")
	assert.Zero(t, bState&(csHup|csClosed), "B saw A's hang-up (state %#x, errors %v)", bState, rb.errs)
	assert.Empty(t, rb.errs)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
