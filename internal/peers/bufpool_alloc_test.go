package peers

import (
	"strconv"
	"testing"

	"github.com/netkit/netkit/internal/testenv"
	"github.com/stretchr/testify/assert"
)

// TestNetkitNoAllocs checks that the measured netkit operation allocates
// nothing in the steady state at every benchmarked size, which the
// benchmarks' allocs/op (an integer division) cannot show.
func TestNetkitNoAllocs(t *testing.T) {
	testenv.SkipRace(t, "sync.Pool drops items at random under the race detector")
	testenv.SkipInvariants(t, "the invariants build tracks every buffer and never recycles one")
	for _, size := range sizes {
		t.Run("size="+strconv.Itoa(size), func(t *testing.T) {
			for _, im := range []impl{{"netkit", newNetkit}, {"netkit-leakoff", newNetkitLeakOff}} {
				op := im.newOp(size)
				op() // warm the pool
				n := testing.AllocsPerRun(1000, op)
				assert.Equal(t, float64(0), n, "%s: Get(%d), WriteByte, Release: %v allocs per run, want 0", im.name, size, n)
			}
		})
	}
}
