package timerq

// A Node is one timer. While a node is queued its queue owns When, seq and
// index: change a queued node's deadline only through Queue.Reschedule.
//
// The zero Node is valid and not queued.
type Node struct {
	When   int64  // deadline, monotonic nanoseconds on the owner's clock
	Period int64  // > 0 for a fixed-rate repeating timer, else 0; the queue never reads it
	Fn     func() // what to run; the queue never reads it
	Gen    uint32 // bumped by Pool.Put: a handle (node, gen) whose gen differs is stale
	Arg    any    // spare slot for the owner (e.g. the loop); the queue never reads it

	// index is the node's heap slot plus one, so that the zero Node is not
	// queued: 0 when not queued, i+1 when at slot i of some queue.
	index int32
	// free is set while the node sits in a Pool, to catch a double Put.
	free bool
	// seq is the insertion order, assigned by Push and Reschedule; it breaks
	// ties between equal deadlines (first in, first out).
	seq uint64
}

// Queued reports whether n is in a queue (any queue).
func (n *Node) Queued() bool { return n.index != 0 }
