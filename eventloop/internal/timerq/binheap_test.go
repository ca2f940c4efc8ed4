package timerq

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// binHeap is the binary-heap variant of Queue (same slot layout, same
// ordering), kept for the benchmarks that chose the 4-ary heap.
type binHeap struct {
	s   []slot
	seq uint64
}

func (h *binHeap) push(n *Node) {
	h.seq++
	n.seq = h.seq
	h.s = append(h.s, slot{})
	h.up(len(h.s)-1, slot{n.When, n})
}

func (h *binHeap) remove(n *Node) bool {
	i := int(n.index) - 1
	if i < 0 || i >= len(h.s) || h.s[i].n != n {
		return false
	}
	last := len(h.s) - 1
	e := h.s[last]
	h.s[last] = slot{}
	h.s = h.s[:last]
	n.index = 0
	if i != last {
		if i > 0 && less(e, h.s[(i-1)/2]) {
			h.up(i, e)
		} else {
			h.down(i, e)
		}
	}
	return true
}

func (h *binHeap) up(i int, e slot) {
	s := h.s
	for i > 0 {
		p := (i - 1) / 2
		if !less(e, s[p]) {
			break
		}
		s[i] = s[p]
		s[i].n.index = int32(i + 1)
		i = p
	}
	s[i] = e
	e.n.index = int32(i + 1)
}

func (h *binHeap) down(i int, e slot) {
	s := h.s
	n := len(s)
	for {
		m := 2*i + 1
		if m >= n {
			break
		}
		if m+1 < n && less(s[m+1], s[m]) {
			m++
		}
		if !less(s[m], e) {
			break
		}
		s[i] = s[m]
		s[i].n.index = int32(i + 1)
		i = m
	}
	s[i] = e
	e.n.index = int32(i + 1)
}

func (h *binHeap) popDue(now int64) *Node {
	if len(h.s) == 0 || h.s[0].when > now {
		return nil
	}
	n := h.s[0].n
	h.remove(n)
	return n
}

// TestVariantsAgree checks the benchmark-only heaps against Queue, so that
// the benchmarks compare heaps that work: after the same pushes and
// removals, all drain in the same order.
func TestVariantsAgree(t *testing.T) {
	const n = 10_000
	r := rand.New(rand.NewPCG(8, 8))
	var q Queue
	var bq binHeap
	var pq ptrHeap
	sets := [3][]*Node{}
	for i := range sets {
		sets[i] = make([]*Node, n)
	}
	for k := range n {
		w := r.Int64N(1000) // ties are common
		for i := range sets {
			sets[i][k] = &Node{When: w}
		}
		q.Push(sets[0][k])
		bq.push(sets[1][k])
		pq.push(sets[2][k])
	}
	for range n / 3 {
		k := r.IntN(n)
		a, b, c := q.Remove(sets[0][k]), bq.remove(sets[1][k]), pq.remove(sets[2][k])
		require.Equal(t, a, b, "Remove: the binary heap disagrees with Queue")
		require.Equal(t, a, c, "Remove: the pointer heap disagrees with Queue")
	}
	for {
		a, b, c := q.PopDue(1<<62), bq.popDue(1<<62), pq.popDue(1<<62)
		if a == nil || b == nil || c == nil {
			require.Nil(t, a, "the heaps hold different numbers of nodes")
			require.Nil(t, b, "the heaps hold different numbers of nodes")
			require.Nil(t, c, "the heaps hold different numbers of nodes")
			return
		}
		i := indexOf(sets[0], a)
		require.Equal(t, i, indexOf(sets[1], b), "the binary heap and Queue drain in different orders")
		require.Equal(t, i, indexOf(sets[2], c), "the pointer heap and Queue drain in different orders")
	}
}
