package timerq

import "github.com/netkit/netkit/internal/invariants"

// DefaultPoolCap is the number of free nodes a zero Pool keeps.
const DefaultPoolCap = 1 << 16

// A Pool is a free list of nodes for a single owner (not a sync.Pool: it
// never drops nodes behind the owner's back, and it is not safe for
// concurrent use). The zero Pool is ready and keeps up to DefaultPoolCap
// nodes; nodes put beyond that are left to the garbage collector.
//
// With -tags invariants, Put never keeps a node, so that a stale pointer to
// a released node is never handed out again to another timer.
type Pool struct {
	free []*Node
	// Cap overrides DefaultPoolCap when > 0; set it before first use.
	Cap int
}

// Get returns a node that is not queued, with every field zero except Gen,
// which keeps its value so that old handles to the node stay stale. Get
// allocates only when the pool is empty.
func (p *Pool) Get() *Node {
	if k := len(p.free); k > 0 {
		n := p.free[k-1]
		p.free[k-1] = nil
		p.free = p.free[:k-1]
		n.free = false
		return n
	}
	return new(Node)
}

// Put releases n: it bumps n.Gen, so every handle (n, old Gen) becomes
// stale, clears Fn and Arg (so the pool keeps no closure alive), and keeps n
// for a later Get if the pool holds fewer than its cap. Put panics if n is
// still queued or already in a pool. The caller must not use n after Put
// except to compare a handle's generation with n.Gen.
func (p *Pool) Put(n *Node) {
	if n.index != 0 {
		panic("timerq: Put of a queued node")
	}
	if n.free {
		panic("timerq: Put of a node already in a pool")
	}
	gen := n.Gen + 1
	*n = Node{Gen: gen, free: true}
	if invariants.Enabled {
		return
	}
	limit := p.Cap
	if limit <= 0 {
		limit = DefaultPoolCap
	}
	if len(p.free) < limit {
		p.free = append(p.free, n)
	}
}

// Len returns the number of free nodes the pool holds.
func (p *Pool) Len() int { return len(p.free) }
