package eventloop_test

import (
	"testing"
	"time"

	"github.com/netkit/netkit/eventloop"
	"github.com/netkit/netkit/internal/invariants"
	"github.com/netkit/netkit/internal/race"
)

// TestAllocs: Execute allocates nothing beyond the caller's closure; on
// the loop, Schedule+Cancel allocates nothing; from another goroutine,
// Schedule allocates the timer only, and Cancel nothing.
func TestAllocs(t *testing.T) {
	if race.Enabled || invariants.Enabled {
		t.Skip("allocation counts differ under -race and the invariants build")
	}
	l := newGroup(t, eventloop.Config{Loops: 1}).Next()
	task := func() {}
	if n := testing.AllocsPerRun(1000, func() { l.Execute(task) }); n != 0 {
		t.Errorf("Execute: %v allocations, want 0", n)
	}
	run(t, l, func() {
		for range 100 { // warm the free list
			l.Schedule(time.Hour, task).Cancel()
		}
		if n := testing.AllocsPerRun(1000, func() { l.Schedule(time.Hour, task).Cancel() }); n != 0 {
			t.Errorf("on the loop, Schedule+Cancel: %v allocations, want 0", n)
		}
	})
	if n := testing.AllocsPerRun(1000, func() { l.Schedule(time.Hour, task).Cancel() }); n > 1 {
		t.Errorf("from outside, Schedule+Cancel: %v allocations, want ≤ 1", n)
	}
	run(t, l, func() {})
}
