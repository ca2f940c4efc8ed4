package mpsc

import (
	"runtime"
	"sync/atomic"
)

// chunkSize is the number of slots in a chunk. With func() items a slot is 16
// bytes, so a chunk is 4 KiB of slots plus its header.
const chunkSize = 256

// spares is how many reset chunks wait for producers: a consumer lagging by
// up to about this many chunks causes no allocation.
const spares = 8

// cacheLine separates words written by different goroutines.
const cacheLine = 64

// closed is the state bit of a chunk that is not open for claims: a recycled
// chunk waiting to be reused. A claim on it reads as far past the end.
const closed = 1 << 63

// slot holds one item. ready equals the owning chunk's gen once the item is
// published; any other value means the slot is empty or still being written.
type slot[T any] struct {
	v     T
	ready atomic.Uint32
}

// chunk is a block of slots. Invariants:
//   - state is the claim counter of the current incarnation, or closed plus
//     stray claims. A claim is state.Add(1)-1: below chunkSize it owns that
//     slot; equal to chunkSize it owns the duty of linking the next chunk;
//     above (or closed) it owns nothing.
//   - A chunk is opened (state = 0) only by the producer that is about to link
//     it, and closed (state = closed) by the consumer before it resets the
//     rest, so a producer holding a stale pointer claims nothing in a chunk
//     that is being recycled.
//   - gen changes every time the chunk is recycled, so a slot's ready word
//     left from the previous incarnation never reads as published; it is
//     written only while the chunk is closed and unlinked.
//   - next is nil until the chunk's successor is linked, and is written once
//     per incarnation.
//
// The fields are grouped by who writes them, a cache line apart, so the
// consumer's reads of gen and next do not bounce the line producers increment.
type chunk[T any] struct {
	// Written once per incarnation.
	gen  uint32
	next atomic.Pointer[chunk[T]]
	// link chains chunks on the consumer's retired list; consumer only.
	link *chunk[T]
	_    [cacheLine]byte

	// Incremented by every producer.
	state atomic.Uint64
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
	// with Swap(nil) and the consumer gives with CompareAndSwap(nil, c).
	spare [spares]atomic.Pointer[chunk[T]]
	// allocs counts chunks allocated (tests assert recycling with it).
	allocs atomic.Int64
	_      [cacheLine]byte

	// Consumer only.
	head    *chunk[T]
	hgen    uint32    // head.gen
	hidx    int       // next slot of head to read
	retired *chunk[T] // read chunks that are still the tail
}

// Push appends v. It never fails. The common case is one atomic add to claim
// a slot and one atomic store to publish it. Once per chunkSize items the
// producer that claims the first index past the end links the next chunk (a
// few stores; an allocation only when no recycled chunk is spare), and
// producers that arrive at the full chunk meanwhile wait for it: they spin,
// then yield. That is the one place a producer waits for another.
func (q *Queue[T]) Push(v T) {
	for {
		c := q.tail.Load()
		if c == nil {
			c = q.init()
		}
		i := c.state.Add(1) - 1
		if i < chunkSize {
			s := &c.slots[i]
			s.v = v
			s.ready.Store(c.gen) // publish
			return
		}
		if i == chunkSize {
			q.link(c)
			continue
		}
		if i&closed != 0 {
			continue // a stale pointer to a recycled chunk: the tail moved on
		}
		// c is full and another producer is linking its successor. Wait for
		// the tail to move; stop waiting too if c has been recycled and
		// reopened meanwhile (its claim count is back under the end).
		for spin := 0; q.tail.Load() == c && c.state.Load() >= chunkSize; spin++ {
			if spin >= 16 {
				runtime.Gosched()
			}
		}
	}
}

// init installs the first chunk.
func (q *Queue[T]) init() *chunk[T] {
	c := q.first.Load()
	if c == nil {
		n := &chunk[T]{gen: 1} // open: state 0
		q.allocs.Add(1)
		if q.first.CompareAndSwap(nil, n) {
			c = n
		} else {
			c = q.first.Load()
		}
	}
	q.tail.CompareAndSwap(nil, c)
	return q.tail.Load()
}

// link is called by the one producer whose claim on the full tail chunk c was
// chunkSize: it opens a chunk, links it after c and makes it the tail. The
// consumer cannot recycle c before c.next is set, so c is safe to write.
//
// When no spare chunk was left, the consumer lags by more than the spares
// hold; the producer then yields once (runtime.Gosched) after linking, so a
// consumer that shares the producers' Ps gets to run before the backlog, and
// with it allocation and GC work, grows further. This is the queue's only
// backpressure; Push still never blocks.
func (q *Queue[T]) link(c *chunk[T]) {
	n, fresh := q.newChunk()
	n.state.Store(0) // open; stray claims on it from now on are real
	c.next.Store(n)
	q.tail.Store(n)
	if fresh {
		runtime.Gosched()
	}
}

// newChunk takes a spare chunk or allocates one, and reports whether it
// allocated.
func (q *Queue[T]) newChunk() (*chunk[T], bool) {
	for i := range q.spare {
		if q.spare[i].Load() != nil {
			if c := q.spare[i].Swap(nil); c != nil {
				return c, false
			}
		}
	}
	q.allocs.Add(1)
	return &chunk[T]{gen: 1}, true
}

// loadHead returns the consumer's chunk, or nil before the first Push.
func (q *Queue[T]) loadHead() *chunk[T] {
	if q.head == nil {
		if q.head = q.first.Load(); q.head != nil {
			q.hgen = q.head.gen
		}
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
			if s.ready.Load() != q.hgen {
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
		if s.ready.Load() != q.hgen {
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
	return c.slots[q.hidx].ready.Load() != q.hgen
}

// nextChunk moves the consumer from the fully read chunk c to its successor,
// recycling c, and returns the successor or nil if there is none yet. A chunk
// is linked before any slot of it can be claimed by a producer that found it
// as the tail, so a nil next means nothing was pushed past c (see the package
// doc for a producer holding a pointer from a previous incarnation).
func (q *Queue[T]) nextChunk(c *chunk[T]) *chunk[T] {
	next := c.next.Load()
	if next == nil {
		return nil
	}
	q.head, q.hgen, q.hidx = next, next.gen, 0
	q.retire(c)
	return next
}

// retire recycles the fully read chunk c, or, while it is still the tail (its
// linker has set c.next but not yet moved the tail), parks it to be retried on
// the next call. Producers waiting at a full chunk watch the tail, so a chunk
// must not be reused before the tail has left it.
func (q *Queue[T]) retire(c *chunk[T]) {
	c.link = q.retired
	q.retired = nil
	for c != nil {
		link := c.link
		if q.tail.Load() != c {
			q.recycle(c)
		} else {
			c.link = q.retired
			q.retired = c
		}
		c = link
	}
}

// recycle closes and resets c, which the consumer has read to the end and
// the tail has left, and offers it as a spare.
func (q *Queue[T]) recycle(c *chunk[T]) {
	c.state.Store(closed) // from here stale claims own nothing
	c.next.Store(nil)
	c.gen++
	if c.gen == 0 {
		c.gen = 1 // the zero ready word must never read as published
	}
	c.link = nil
	q.give(c)
}

// give offers the closed, unlinked chunk c as a spare; when all spare slots
// are taken it is left to the GC.
func (q *Queue[T]) give(c *chunk[T]) {
	for i := range q.spare {
		if q.spare[i].Load() == nil && q.spare[i].CompareAndSwap(nil, c) {
			return
		}
	}
}
