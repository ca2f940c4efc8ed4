package timerq

// A Queue is an indexed min-heap of nodes ordered by (When, insertion
// order), for a single owner. The zero Queue is empty and ready.
//
// Invariants, between calls:
//   - s[i] is queued at slot i: s[i].n.index == i+1, and s[i].when == s[i].n.When;
//   - 4-ary heap order: slot i's children are 4i+1 … 4i+4, and no slot
//     sorts before its parent (i-1)/4 under less;
//   - a node is in at most one queue (Push panics on a queued node);
//   - slots past len(s) hold no pointers (removed nodes are not kept alive).
type Queue struct {
	s     []slot
	seq   uint64 // last insertion number handed out
	moves uint64 // heap slots written since the queue was made
}

// A slot keeps the deadline beside the node so that sifting compares
// deadlines from the slice without loading the node.
type slot struct {
	when int64
	n    *Node
}

// less orders slots by deadline, then by insertion order. The node is read
// only on a tie.
func less(a, b slot) bool {
	return a.when < b.when || a.when == b.when && a.n.seq < b.n.seq
}

// Len returns the number of queued nodes.
func (q *Queue) Len() int { return len(q.s) }

// Moves returns the number of heap slots written since the queue was made:
// one per sift step plus one for each element's final placement. Tests use
// it to check that Push, Remove and Reschedule touch O(log n) slots.
func (q *Queue) Moves() uint64 { return q.moves }

// Push queues n at n.When. It is O(log n), O(1) on average for random
// deadlines, and allocates only when the heap slice grows. Push panics if n
// is already queued (in this queue or another).
func (q *Queue) Push(n *Node) {
	if n.index != 0 {
		panic("timerq: Push of a queued node")
	}
	q.seq++
	n.seq = q.seq
	q.s = append(q.s, slot{})
	q.up4(len(q.s)-1, slot{n.When, n})
}

// Peek returns the earliest node without removing it, or nil when the
// queue is empty. It is O(1).
func (q *Queue) Peek() *Node {
	if len(q.s) == 0 {
		return nil
	}
	return q.s[0].n
}

// Pop removes and returns the earliest node, or nil when the queue is
// empty. It is O(log n) and never allocates.
func (q *Queue) Pop() *Node {
	if len(q.s) == 0 {
		return nil
	}
	s := q.s
	n := s[0].n
	n.index = 0
	last := len(s) - 1
	e := s[last]
	s[last] = slot{}
	q.s = s[:last]
	if last > 0 {
		q.down4(0, e)
	}
	return n
}

// PopDue removes and returns the earliest node if its deadline is at or
// before now, else it returns nil and leaves the queue unchanged.
func (q *Queue) PopDue(now int64) *Node {
	if len(q.s) == 0 || q.s[0].when > now {
		return nil
	}
	return q.Pop()
}

// Remove takes n out of the queue in O(log n), reaching it through its
// recorded slot. It reports false, and changes nothing, if n is not queued
// here: not queued at all, or queued in another queue.
func (q *Queue) Remove(n *Node) bool {
	s := q.s
	i := int(n.index) - 1
	if i < 0 || i >= len(s) || s[i].n != n {
		return false
	}
	n.index = 0
	last := len(s) - 1
	e := s[last]
	s[last] = slot{}
	q.s = s[:last]
	if i != last {
		q.fix(i, e)
	}
	return true
}

// Reschedule sets n's deadline to when. If n is queued here it moves to its
// new place in O(log n) and counts as newly inserted for ties; if n is not
// queued it is pushed. Reschedule panics if n is queued in another queue.
func (q *Queue) Reschedule(n *Node, when int64) {
	if n.index == 0 {
		n.When = when
		q.Push(n)
		return
	}
	i := int(n.index) - 1
	if i >= len(q.s) || q.s[i].n != n {
		panic("timerq: Reschedule of a node queued in another queue")
	}
	n.When = when
	q.seq++
	n.seq = q.seq
	q.fix(i, slot{when, n})
}

// fix places e at slot i, sifting it up or down.
func (q *Queue) fix(i int, e slot) {
	if i > 0 && less(e, q.s[(i-1)/4]) {
		q.up4(i, e)
	} else {
		q.down4(i, e)
	}
}

// up4 moves the hole at slot i toward the root of the 4-ary heap while e
// sorts before the hole's parent, then writes e into the hole.
func (q *Queue) up4(i int, e slot) {
	s := q.s
	var moves uint64
	for i > 0 {
		p := (i - 1) / 4
		if !less(e, s[p]) {
			break
		}
		s[i] = s[p]
		s[i].n.index = int32(i + 1)
		moves++
		i = p
	}
	s[i] = e
	e.n.index = int32(i + 1)
	q.moves += moves + 1
}

// down4 moves the hole at slot i toward the leaves of the 4-ary heap while
// its least child sorts before e, then writes e into the hole.
func (q *Queue) down4(i int, e slot) {
	s := q.s
	n := len(s)
	var moves uint64
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		end := min(c+4, n)
		for j := c + 1; j < end; j++ {
			if less(s[j], s[m]) {
				m = j
			}
		}
		if !less(s[m], e) {
			break
		}
		s[i] = s[m]
		s[i].n.index = int32(i + 1)
		moves++
		i = m
	}
	s[i] = e
	e.n.index = int32(i + 1)
	q.moves += moves + 1
}
