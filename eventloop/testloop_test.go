package eventloop_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/eventloop"
	"github.com/netkit/netkit/internal/race"
)

// modelTimer is the slow reference: a sorted list of pending timers.
type modelTimer struct {
	id       int
	when     int64
	seq      int
	period   int64
	canceled bool
}

// TestTestLoopMatchesModel drives a TestLoop and a sorted-list model with
// the same random schedules, cancels and advances, and compares what fired
// and when. It exercises the timer heap and the cancel paths the real loop
// shares.
func TestTestLoopMatchesModel(t *testing.T) {
	seeds := 12
	if race.Enabled || testing.Short() {
		seeds = 3
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		l := eventloop.NewTestLoop()
		start := l.Now()
		type fire struct {
			id int
			at int64
		}
		var got, want []fire
		var model []*modelTimer
		seq := 0
		handles := map[int]eventloop.Timer{}
		now := int64(0)
		for op := range 1500 {
			switch k := r.IntN(10); {
			case k < 4: // schedule
				id := op
				d := int64(r.IntN(50))
				fn := func() { got = append(got, fire{id, int64(l.Now().Sub(start))}) }
				var h eventloop.Timer
				m := &modelTimer{id: id, when: now + d, seq: seq}
				if r.IntN(5) == 0 {
					p := 1 + int64(r.IntN(20))
					h = l.Every(time.Duration(p), fn)
					m.when, m.period = now+p, p
				} else {
					h = l.Schedule(time.Duration(d), fn)
				}
				seq++
				handles[id] = h
				model = append(model, m)
			case k < 6: // cancel something, maybe already fired
				if len(handles) == 0 {
					continue
				}
				ids := make([]int, 0, len(handles))
				for id := range handles {
					ids = append(ids, id)
				}
				sort.Ints(ids)
				id := ids[r.IntN(len(ids))]
				gotOK := handles[id].Cancel()
				wantOK := false
				for _, m := range model {
					if m.id == id && !m.canceled {
						m.canceled, wantOK = true, true
					}
				}
				require.Equal(t, wantOK, gotOK, "seed %d op %d: Cancel(%d) = %v, model %v", seed, op, id, gotOK, wantOK)
			default: // advance
				d := int64(r.IntN(30))
				end := now + d
				for {
					// the earliest live timer due by end, ties by seq
					var next *modelTimer
					for _, m := range model {
						if !m.canceled && m.when <= end && (next == nil || m.when < next.when || m.when == next.when && m.seq < next.seq) {
							next = m
						}
					}
					if next == nil {
						break
					}
					now = max(now, next.when)
					want = append(want, fire{next.id, next.when})
					if next.period > 0 {
						next.when += next.period
						next.seq = seq
						seq++
					} else {
						next.canceled = true // spent
					}
				}
				now = end
				l.Advance(time.Duration(d))
			}
			model = slices.DeleteFunc(model, func(m *modelTimer) bool { return m.canceled })
		}
		if !slices.Equal(got, want) { // report the first difference, not the whole lists
			for i := range min(len(got), len(want)) {
				require.Equal(t, want[i], got[i], "seed %d: firing %d", seed, i)
			}
			require.Len(t, got, len(want), "seed %d: firings", seed)
		}
	}
}

// TestTestLoopTasks: tasks run at RunPending, in order, including those
// that tasks and timers queue; panics go to OnPanic.
func TestTestLoopTasks(t *testing.T) {
	l := eventloop.NewTestLoop()
	var log []string
	l.Execute(func() {
		log = append(log, "a")
		l.Execute(func() { log = append(log, "c") })
	})
	l.Execute(func() { log = append(log, "b") })
	l.Schedule(time.Second, func() {
		log = append(log, "timer")
		l.Execute(func() { log = append(log, "after timer") })
	})
	n := l.RunPending()
	assert.Equal(t, 3, n, "RunPending ran %d, want 3", n)
	assert.Zero(t, l.Advance(999*time.Millisecond), "Advance(999ms) ran timers")
	l.Advance(time.Millisecond)
	want := []string{"a", "b", "c", "timer", "after timer"}
	assert.True(t, slices.Equal(log, want), "ran %q, want %q", log, want)
	var panics []any
	l.OnPanic = func(v any, _ []byte) { panics = append(panics, v) }
	l.Execute(func() { panic("boom") })
	l.RunPending()
	assert.Equal(t, "[boom]", fmt.Sprint(panics), "OnPanic got %v", panics)
}

// ExampleTestLoop tests a retry policy written against Executor on a
// virtual clock: no sleeping.
func ExampleTestLoop() {
	l := eventloop.NewTestLoop()
	start := l.Now()
	attempt := 0
	var retry func(eventloop.Executor)
	retry = func(e eventloop.Executor) {
		attempt++
		fmt.Printf("attempt %d at +%v\n", attempt, e.Now().Sub(start))
		if attempt < 3 {
			e.Schedule(time.Duration(attempt)*time.Second, func() { retry(e) })
		}
	}
	l.Execute(func() { retry(l) })
	l.Advance(time.Minute)
	// Output:
	// attempt 1 at +0s
	// attempt 2 at +1s
	// attempt 3 at +3s
}
