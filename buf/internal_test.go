package buf

import (
	"fmt"
	"math/bits"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/invariants"
)

func TestRetainOverflowPanics(t *testing.T) {
	b := NewAllocator(WithLeakLevel(LeakOff)).Get(64)
	// Set the count to the largest one Retain accepts, as 2^30-1 Retain
	// calls would.
	b.m.store(uint64(b.gen)<<32 | maxRef)
	got, want := b.RefCount(), maxRef/refOne
	require.Equal(t, want, got, "RefCount")
	func() {
		defer func() {
			err, _ := recover().(error)
			require.ErrorIs(t, err, ErrRefCount, "Retain at the limit: panic %v, want ErrRefCount", err)
		}()
		b.Retain()
	}()
	require.Equal(t, maxRef/refOne, b.RefCount(), "count after a refused Retain")
	b.m.store(uint64(b.gen)<<32 | refOne)
	require.True(t, b.Release(), "Release of the last reference returned false")
}

// TestRecordBackOff: a busy tracked buffer keeps at most maxRecords records,
// always including the newest, oldest first, and counts the ones it let go.
func TestRecordBackOff(t *testing.T) {
	tr := newTracker(Wrap(nil))
	const n = 1000
	for i := range n {
		tr.record("Touch", fmt.Sprint(i))
	}
	require.Equal(t, maxRecords, tr.n, "%d records kept, want %d", tr.n, maxRecords)
	newest := tr.records[maxRecords-1].Hint
	require.Equal(t, fmt.Sprint(n-1), newest, "newest record")
	require.Equal(t, n-maxRecords, tr.dropped, "dropped")
	// Records stay oldest first.
	prev := -1
	for _, r := range tr.records[:tr.n] {
		var i int
		fmt.Sscan(r.Hint, &i)
		require.Greater(t, i, prev, "records out of order: %v", hints(tr))
		prev = i
	}
	t.Logf("kept: %v", hints(tr))
}

func hints(tr *tracker) []string {
	var h []string
	for _, r := range tr.records[:tr.n] {
		h = append(h, r.Hint)
	}
	return h
}

// TestCacheLineSizes checks that the header and the meta are 64 bytes each:
// one size class and one cache line, so the state words that different
// cores update with atomics never share a line (false sharing would cost
// the parallel Get and Release several times their time). A field added to
// either must make room elsewhere.
func TestCacheLineSizes(t *testing.T) {
	if bits.UintSize != 64 {
		t.Skip("the sizes are those of 64-bit platforms")
	}
	assert.EqualValues(t, 64, reflect.TypeFor[Buffer]().Size(), "Buffer header size")
	assert.EqualValues(t, 64, reflect.TypeFor[meta]().Size(), "meta size")
}

// TestLeakLevelSources checks where an allocator's level comes from: one
// made without WithLeakLevel follows SetLeakLevel from its next get on,
// one made with it never does.
func TestLeakLevelSources(t *testing.T) {
	prev := SetLeakLevel(LeakOff)
	defer SetLeakLevel(prev)
	follow := NewAllocator()
	fixed := NewAllocator(WithLeakLevel(LeakOff))
	for _, l := range []LeakLevel{LeakAll, LeakOff, LeakSampled, LeakAll} {
		SetLeakLevel(l)
		got := follow.leakLevel()
		assert.Equal(t, l, got, "after SetLeakLevel(%v): following allocator at %v", l, got)
		assert.Equal(t, LeakOff, fixed.leakLevel(), "after SetLeakLevel(%v): WithLeakLevel(off) allocator", l)
	}
	// At LeakAll every get of the following allocator is tracked, none of
	// the fixed one's (outside the invariants build, which tracks all).
	b, c := follow.Get(64), fixed.Get(64)
	assert.NotNil(t, b.m.tr.Load(), "SetLeakLevel(LeakAll): a get of the following allocator is not tracked")
	assert.False(t, c.m.tr.Load() != nil && !invariants.Enabled, "WithLeakLevel(LeakOff): a get is tracked")
	b.Release()
	c.Release()
}
