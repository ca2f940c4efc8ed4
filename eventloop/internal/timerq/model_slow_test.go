package timerq

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// model is the slow reference: a slice kept sorted by (when, insertion
// number), with its own insertion counter.
type model struct {
	items []modelItem
	ins   uint64
}

type modelItem struct {
	when int64
	ins  uint64
	n    *Node
}

func (m *model) push(n *Node, when int64) {
	m.ins++
	it := modelItem{when, m.ins, n}
	i, _ := slices.BinarySearchFunc(m.items, it, func(a, b modelItem) int {
		if a.when != b.when {
			return cmpInt(a.when, b.when)
		}
		return cmpInt(int64(a.ins), int64(b.ins))
	})
	m.items = slices.Insert(m.items, i, it)
}

func (m *model) remove(n *Node) bool {
	for i, it := range m.items {
		if it.n == n {
			m.items = slices.Delete(m.items, i, i+1)
			return true
		}
	}
	return false
}

func (m *model) peek() *Node {
	if len(m.items) == 0 {
		return nil
	}
	return m.items[0].n
}

func (m *model) pop() *Node {
	n := m.peek()
	if n != nil {
		m.items = m.items[1:]
	}
	return n
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// verify checks every invariant stated on Queue.
func verify(t testing.TB, q *Queue) {
	t.Helper()
	const d = 4
	for i, e := range q.s {
		require.Equal(t, int32(i+1), e.n.index, "slot %d: node index %d", i, e.n.index)
		require.Equal(t, e.n.When, e.when, "slot %d: when %d, node When %d", i, e.when, e.n.When)
		require.False(t, i > 0 && less(e, q.s[(i-1)/d]), "slot %d sorts before its parent", i)
	}
	for _, e := range q.s[len(q.s):cap(q.s)] {
		require.Nil(t, e.n, "a slot past len keeps a node alive")
	}
}

// runModel applies steps random operations to q and to the model and
// compares every answer. Deadlines come from a small range so that ties are
// common; other is a second queue holding foreign nodes.
func runModel(t testing.TB, q *Queue, r *rand.Rand, steps int) {
	var m model
	var other Queue
	var p Pool
	nodes := make([]*Node, 48)
	for i := range nodes {
		nodes[i] = p.Get()
	}
	foreign := make([]*Node, 4)
	for i := range foreign {
		foreign[i] = &Node{When: int64(i)}
		other.Push(foreign[i])
	}
	deadline := func() int64 { return r.Int64N(16) }
	for step := range steps {
		switch op := r.IntN(100); {
		case op < 35: // Push (or Reschedule, for a queued node)
			n := nodes[r.IntN(len(nodes))]
			w := deadline()
			if n.Queued() {
				q.Reschedule(n, w)
				m.remove(n)
			} else if r.IntN(2) == 0 {
				n.When = w
				q.Push(n)
			} else {
				q.Reschedule(n, w)
			}
			m.push(n, w)
		case op < 55:
			got, want := q.Pop(), m.pop()
			require.Same(t, want, got, "step %d: Pop", step)
			if got != nil {
				require.False(t, got.Queued(), "step %d: popped node still Queued", step)
			}
		case op < 70:
			now := deadline()
			got := q.PopDue(now)
			var want *Node
			if len(m.items) > 0 && m.items[0].when <= now {
				want = m.pop()
			}
			require.Same(t, want, got, "step %d: PopDue(%d)", step, now)
		case op < 90:
			n := nodes[r.IntN(len(nodes))]
			got, want := q.Remove(n), m.remove(n)
			require.Equal(t, want, got, "step %d: Remove", step)
		case op < 95:
			n := foreign[r.IntN(len(foreign))]
			require.False(t, q.Remove(n), "step %d: Remove of a foreign node succeeded", step)
			require.True(t, n.Queued(), "step %d: Remove of a foreign node disturbed it", step)
			require.Same(t, n, other.s[n.index-1].n, "step %d: Remove of a foreign node disturbed it", step)
		default:
			got, want := q.Peek(), m.peek()
			require.Same(t, want, got, "step %d: Peek", step)
		}
		require.Equal(t, len(m.items), q.Len(), "step %d: Len differs from the model's", step)
		verify(t, q)
	}
	for q.Len() > 0 {
		got, want := q.Pop(), m.pop()
		require.Same(t, want, got, "drain: Pop")
	}
	verify(t, &other)
}

func TestModel(t *testing.T) {
	for seed := range uint64(100) {
		runModel(t, new(Queue), rand.New(rand.NewPCG(seed, 12)), 2000)
	}
}

func FuzzModel(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	f.Fuzz(func(t *testing.T, a, b uint64) {
		runModel(t, new(Queue), rand.New(rand.NewPCG(a, b)), 500)
	})
}
