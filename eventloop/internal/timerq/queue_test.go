package timerq

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/netkit/netkit/internal/invariants"
	"github.com/netkit/netkit/internal/race"
	"github.com/netkit/netkit/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEqualDeadlinesFIFO(t *testing.T) {
	{
		newQ := func() *Queue { return new(Queue) }
		q := newQ()
		nodes := make([]*Node, 100)
		for i := range nodes {
			// Deadlines 0..9 interleaved: ten groups of ten equal deadlines.
			nodes[i] = &Node{When: int64(i % 10)}
			q.Push(nodes[i])
		}
		for w := range 10 {
			for k := range 10 {
				n := q.Pop()
				require.Same(t, nodes[k*10+w], n, "deadline %d, #%d: got node %d", w, k, indexOf(nodes, n))
			}
		}
		// A rescheduled node goes behind the nodes already at its deadline.
		a, b, c := &Node{When: 5}, &Node{When: 5}, &Node{When: 1}
		q.Push(a)
		q.Push(b)
		q.Push(c)
		q.Reschedule(a, 5)
		for i, want := range []*Node{c, b, a} {
			require.Same(t, want, q.Pop(), "after Reschedule, pop %d: wrong node", i)
		}
	}
}

func indexOf(nodes []*Node, n *Node) int {
	for i, m := range nodes {
		if m == n {
			return i
		}
	}
	return -1
}

func TestRemoveNotQueued(t *testing.T) {
	{
		newQ := func() *Queue { return new(Queue) }
		q, other := newQ(), newQ()
		var zero Node
		require.False(t, zero.Queued(), "the zero Node is queued or removable")
		require.False(t, q.Remove(&zero), "the zero Node is queued or removable")
		mine := []*Node{{When: 3}, {When: 1}, {When: 2}}
		for _, n := range mine {
			q.Push(n)
		}
		// Foreign nodes at every slot index that also exists in q.
		theirs := []*Node{{When: 1}, {When: 2}, {When: 3}, {When: 4}}
		for _, n := range theirs {
			other.Push(n)
		}
		moves := q.Moves()
		for _, n := range theirs {
			require.False(t, q.Remove(n), "Remove of a node queued elsewhere reported true")
		}
		require.Equal(t, moves, q.Moves(), "Remove of a foreign node changed a queue")
		require.Equal(t, 3, q.Len(), "Remove of a foreign node changed a queue")
		require.Equal(t, 4, other.Len(), "Remove of a foreign node changed a queue")
		verify(t, q)
		verify(t, other)
		require.True(t, q.Remove(mine[0]), "Remove twice: want true then false")
		require.False(t, q.Remove(mine[0]), "Remove twice: want true then false")
		require.Same(t, mine[1], q.Peek(), "Peek/PopDue after Remove")
		require.Nil(t, q.PopDue(0), "Peek/PopDue after Remove")
		require.Same(t, mine[1], q.PopDue(1), "Peek/PopDue after Remove")
		mustPanic(t, "Push of a queued node", func() { q.Push(mine[2]) })
		mustPanic(t, "Push of a foreign node", func() { q.Push(theirs[0]) })
		mustPanic(t, "Reschedule of a foreign node", func() { q.Reschedule(theirs[3], 0) })
		require.Same(t, mine[2], q.Pop(), "drain")
		require.Nil(t, q.Pop(), "drain")
		require.Nil(t, q.Peek(), "drain")
		require.Nil(t, q.PopDue(math.MaxInt64), "drain")
	}
}

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	assert.Panics(t, f, what)
}

// TestMovesLogarithmic is the O(log n) test: with n timers queued, every
// Push, Remove, Reschedule and Pop writes at most log2(n)+2 heap slots
// (the 4-ary heap needs about half that), counted by Queue.Moves.
func TestMovesLogarithmic(t *testing.T) {
	sizes := []int{1_000, 100_000, 1_000_000}
	if testing.Short() || race.Enabled {
		sizes = sizes[:2]
	}
	{
		newQ := func() *Queue { return new(Queue) }
		for _, n := range sizes {
			q := newQ()
			r := rand.New(rand.NewPCG(uint64(n), 7))
			nodes := make([]Node, n)
			for i := range nodes {
				nodes[i].When = r.Int64N(1 << 40)
				q.Push(&nodes[i])
			}
			limit := uint64(math.Log2(float64(n))) + 2
			var worst uint64
			check := func(what string, before uint64) {
				d := q.Moves() - before
				worst = max(worst, d)
				require.LessOrEqual(t, d, limit, "n=%d: %s wrote %d slots, limit %d", n, what, d, limit)
			}
			extra := make([]Node, 1000)
			for i := range extra {
				m := q.Moves()
				extra[i].When = r.Int64N(1 << 40)
				if i%10 == 0 {
					extra[i].When = -int64(i) // worst case: sifts to the root
				}
				q.Push(&extra[i])
				check("Push", m)

				m = q.Moves()
				victim := q.s[r.IntN(q.Len())].n
				q.Remove(victim)
				check("Remove", m)

				m = q.Moves()
				root := q.Peek()
				q.Remove(root) // sifts the last slot down from the root
				check("Remove(root)", m)

				m = q.Moves()
				q.Reschedule(q.s[r.IntN(q.Len())].n, r.Int64N(1<<40))
				check("Reschedule", m)

				m = q.Moves()
				popped := q.Pop()
				check("Pop", m)

				for _, back := range []*Node{victim, root, popped} {
					m = q.Moves()
					q.Reschedule(back, r.Int64N(1<<40))
					check("Push", m)
				}
			}
			t.Logf("n=%d: worst %d slots per operation (limit %d)", n, worst, limit)
			if n <= 100_000 {
				verify(t, q)
			}
		}
	}
}

func TestPoolGeneration(t *testing.T) {
	var p Pool
	n := p.Get()
	type handle struct {
		n   *Node
		gen uint32
	}
	h := handle{n, n.Gen}
	n.Fn = func() {}
	n.Arg = 1
	n.When, n.Period = 5, 7
	var q Queue
	q.Push(n)
	mustPanic(t, "Put of a queued node", func() { p.Put(n) })
	q.Remove(n)
	p.Put(n)
	require.NotEqual(t, h.gen, h.n.Gen, "Put did not bump Gen: a stale handle looks live")
	require.Nil(t, n.Fn, "Put kept Fn")
	require.Nil(t, n.Arg, "Put kept Arg")
	require.Zero(t, n.When, "Put kept the deadline")
	require.Zero(t, n.Period, "Put kept the period")
	mustPanic(t, "double Put", func() { p.Put(n) })
	m := p.Get()
	if !invariants.Enabled {
		require.Same(t, n, m, "Get did not reuse the free node")
	}
	if m == n {
		require.Equal(t, h.gen+1, m.Gen, "Get reset Gen")
	}
	h2 := handle{m, m.Gen}
	require.False(t, h.n == h2.n && h.gen == h2.gen, "old and new handles to one node are equal")
	p.Put(m)

	// The cap bounds what the pool keeps.
	p = Pool{Cap: 3}
	for range 5 {
		p.Put(new(Node))
	}
	want := 3
	if invariants.Enabled {
		want = 0 // the invariants build never recycles a node
	}
	require.Equal(t, want, p.Len(), "nodes kept by a pool with Cap 3")
}

func TestNoAllocs(t *testing.T) {
	testenv.SkipAllocs(t)
	{
		newQ := func() *Queue { return new(Queue) }
		q := newQ()
		var p Pool
		r := rand.New(rand.NewPCG(1, 2))
		for range 10_000 {
			n := p.Get()
			n.When = r.Int64N(1 << 40)
			q.Push(n)
		}
		p.Put(p.Get()) // warm the pool
		fn := func() {}
		assert.Zero(t, testing.AllocsPerRun(1000, func() {
			n := p.Get()
			n.When, n.Fn = r.Int64N(1<<40), fn
			q.Push(n)
			q.Remove(n)
			p.Put(n)
		}), "Get+Push+Remove+Put: allocs per run")
		assert.Zero(t, testing.AllocsPerRun(1000, func() {
			n := q.Pop()
			q.Reschedule(n, n.When+r.Int64N(1<<30))
		}), "Pop+Reschedule: allocs per run")
		assert.Zero(t, testing.AllocsPerRun(1000, func() {
			if n := q.Pop(); n != nil {
				p.Put(n)
			}
		}), "Pop+Put: allocs per run")
	}
}
