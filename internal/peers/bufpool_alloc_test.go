package peers

import (
	"strconv"
	"testing"

	"github.com/netkit/netkit/internal/invariants"
	"github.com/netkit/netkit/internal/race"
)

// TestNetkitNoAllocs checks that the measured netkit operation allocates
// nothing in the steady state at every benchmarked size, which the
// benchmarks' allocs/op (an integer division) cannot show.
func TestNetkitNoAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	if invariants.Enabled {
		t.Skip("the invariants build tracks every buffer and never recycles one")
	}
	for _, size := range sizes {
		t.Run("size="+strconv.Itoa(size), func(t *testing.T) {
			for _, im := range []impl{{"netkit", newNetkit}, {"netkit-leakoff", newNetkitLeakOff}} {
				op := im.newOp(size)
				op() // warm the pool
				if n := testing.AllocsPerRun(1000, op); n != 0 {
					t.Errorf("%s: Get(%d), WriteByte, Release: %v allocs per run, want 0", im.name, size, n)
				}
			}
		})
	}
}
