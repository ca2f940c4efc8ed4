package mpsc

import "sync/atomic"

// chunkSize is the number of slots in a chunk. With func() items a slot is 16
// bytes, so a chunk is 4 KiB of slots plus its header.
const chunkSize = 256

// spares is how many reset chunks wait for producers: a consumer lagging by
// up to about this many chunks causes no allocation.
const spares = 8

// cacheLine separates words written by different goroutines.
const cacheLine = 64

// slot holds one item. ready equals the owning chunk's gen once the item is
// published; any other value means the slot is empty or still being written.
type slot[T any] struct {
	v     T
	ready atomic.Uint32
}

// chunk is a block of slots. Invariants:
//   - write counts claims in this incarnation; claims at or past chunkSize
//     mean "full" and the claimer moves on to next.
//   - refs counts producers that hold the chunk pinned; the consumer resets a
//     chunk only when refs is zero and the tail has moved past it.
//   - gen changes (by one) every time the chunk is reset, so a slot's ready
//     word left from the previous incarnation never reads as published.
//   - gen is written only by the consumer (or the allocator, before the chunk
//     is shared) and is read by producers only after a pin and a tail check.
type chunk[T any] struct {
	write atomic.Uint64
	refs  atomic.Int64
	next  atomic.Pointer[chunk[T]]
	gen   uint32
	// link chains chunks on the consumer's retired list; consumer only.
	link  *chunk[T]
	_     [cacheLine]byte
	slots [chunkSize]slot[T]
}

// Queue is an unbounded multi-producer single-consumer FIFO. The zero value is
// an empty queue ready for use; a Queue must not be copied after first use.
//
// Push may be called from any goroutine. Pop, Drain and Empty are for the one
// consumer goroutine only (or for goroutines that take turns with a
// happens-before edge between them).
//
// Items pushed by one producer come out in the order it pushed them; items of
// different producers interleave in the order their slots were claimed.
type Queue[T any] struct {
	// Shared by producers.
	tail  atomic.Pointer[chunk[T]]
	first atomic.Pointer[chunk[T]] // the first chunk ever; set once
	// spare holds reset chunks for producers that need one. Producers take
	// with Swap(nil) and the consumer gives with CompareAndSwap(nil, c): no
	// compare ever races with a reuse, so there is no ABA problem.
	spare [spares]atomic.Pointer[chunk[T]]
	// allocs counts chunks allocated (tests assert recycling with it).
	allocs atomic.Int64
	_      [cacheLine]byte

	// Consumer only.
	head    *chunk[T]
	hidx    int       // next slot of head to read
	retired *chunk[T] // read chunks still pinned by some producer
}

// Push appends v. It never fails and never blocks: it retries only when the
// tail moved under it (another producer linked a chunk), which is bounded by
// progress of the others. In steady state it does not allocate; it allocates
// a chunk only when the consumer lags by more chunks than are recycled.
func (q *Queue[T]) Push(v T) {
	for {
		c := q.tail.Load()
		if c == nil {
			c = q.init()
		}
		c.refs.Add(1) // pin, then check c is still the tail
		if q.tail.Load() != c {
			c.refs.Add(-1)
			continue
		}
		if i := c.write.Add(1) - 1; i < chunkSize {
			s := &c.slots[i]
			s.v = v
			s.ready.Store(c.gen) // publish
			c.refs.Add(-1)
			return
		}
		q.advance(c)
		c.refs.Add(-1)
	}
}

// init installs the first chunk.
func (q *Queue[T]) init() *chunk[T] {
	c := q.first.Load()
	if c == nil {
		n := q.newChunk()
		if q.first.CompareAndSwap(nil, n) {
			c = n
		} else {
			c = q.first.Load()
		}
	}
	q.tail.CompareAndSwap(nil, c)
	return q.tail.Load()
}

// advance makes sure full chunk c (pinned by the caller) has a successor and
// moves the tail past c.
func (q *Queue[T]) advance(c *chunk[T]) {
	next := c.next.Load()
	if next == nil {
		n := q.newChunk()
		if c.next.CompareAndSwap(nil, n) {
			next = n
		} else {
			// n was never shared: offer it as a spare or let it go.
			q.give(n)
			next = c.next.Load()
		}
	}
	q.tail.CompareAndSwap(c, next)
}

// newChunk takes a spare chunk or allocates one.
func (q *Queue[T]) newChunk() *chunk[T] {
	for i := range q.spare {
		if q.spare[i].Load() != nil {
			if c := q.spare[i].Swap(nil); c != nil {
				return c
			}
		}
	}
	q.allocs.Add(1)
	return &chunk[T]{gen: 1}
}

// loadHead returns the consumer's chunk, or nil before the first Push.
func (q *Queue[T]) loadHead() *chunk[T] {
	if q.head == nil {
		q.head = q.first.Load()
	}
	return q.head
}

// Pop removes and returns the oldest published item. It returns false when
// the queue is empty or when the next item's producer has claimed its slot but
// not yet published it (see the package doc); it never waits. Consumer only.
func (q *Queue[T]) Pop() (T, bool) {
	var zero T
	c := q.loadHead()
	if c == nil {
		return zero, false
	}
	for {
		if q.hidx < chunkSize {
			s := &c.slots[q.hidx]
			if s.ready.Load() != c.gen {
				return zero, false
			}
			v := s.v
			s.v = zero // drop the reference for the GC
			q.hidx++
			return v, true
		}
		if c = q.nextChunk(c); c == nil {
			return zero, false
		}
	}
}

// Drain pops up to max items (all that are published when max <= 0), calls f
// on each in order, and returns how many it popped. It stops early, like Pop,
// at a claimed but unpublished slot. f may Push to q but must not Pop or Drain
// it. Consumer only.
func (q *Queue[T]) Drain(max int, f func(T)) int {
	var zero T
	c := q.loadHead()
	if c == nil {
		return 0
	}
	n := 0
	for max <= 0 || n < max {
		if q.hidx == chunkSize {
			if c = q.nextChunk(c); c == nil {
				return n
			}
		}
		s := &c.slots[q.hidx]
		if s.ready.Load() != c.gen {
			return n
		}
		v := s.v
		s.v = zero
		q.hidx++
		n++
		f(v)
	}
	return n
}

// Empty reports whether Pop would return false now: it is exact for every
// item published before the call, except that items behind a claimed but
// unpublished slot count as not yet published (their wake is owed by that
// slot's producer; see the package doc). Consumer only.
func (q *Queue[T]) Empty() bool {
	c := q.loadHead()
	if c == nil {
		return true
	}
	if q.hidx == chunkSize {
		next := c.next.Load()
		if next == nil {
			return true
		}
		// The successor's first slot decides; nextChunk is not called here
		// so that Empty stays a pure read.
		return next.slots[0].ready.Load() != next.gen
	}
	return c.slots[q.hidx].ready.Load() != c.gen
}

// nextChunk moves the consumer from the fully read chunk c to its successor,
// recycling c, and returns the successor or nil if there is none yet. A chunk
// is linked only before any of its slots can be claimed, so a nil next means
// nothing was pushed past c.
func (q *Queue[T]) nextChunk(c *chunk[T]) *chunk[T] {
	next := c.next.Load()
	if next == nil {
		return nil
	}
	// After this the tail is not c (it had moved already or we moved it), so
	// no new pin on c can pass its tail check.
	q.tail.CompareAndSwap(c, next)
	q.head, q.hidx = next, 0
	q.retire(c)
	return next
}

// retire recycles the fully read chunk c, or parks it until no producer pins
// it. Parked chunks are retried each time.
func (q *Queue[T]) retire(c *chunk[T]) {
	c.link = q.retired
	q.retired = nil
	for c != nil {
		link := c.link
		if c.refs.Load() == 0 {
			q.recycle(c)
		} else {
			c.link = q.retired
			q.retired = c
		}
		c = link
	}
}

// recycle resets c, which no producer can reach, and keeps it.
func (q *Queue[T]) recycle(c *chunk[T]) {
	c.next.Store(nil)
	c.write.Store(0)
	c.gen++
	if c.gen == 0 {
		c.gen = 1 // the zero ready word must never read as published
	}
	c.link = nil
	q.give(c)
}

// give offers the reset, unshared chunk c as a spare; when all spare slots
// are taken it is left to the GC.
func (q *Queue[T]) give(c *chunk[T]) {
	for i := range q.spare {
		if q.spare[i].Load() == nil && q.spare[i].CompareAndSwap(nil, c) {
			return
		}
	}
}
