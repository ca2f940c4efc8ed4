// Package mpsc is the event loop's task queue: an unbounded, lock-free
// multi-producer single-consumer FIFO.
//
// # Design
//
// Items live in chunks of [chunkSize] slots linked in a list. A producer claims
// a slot with one atomic add on the tail chunk's write index, stores the item
// and publishes it by storing the chunk's generation into the slot's ready
// word. The producer that claims the first index past the end links the next
// chunk (or finds it already linked) and moves the tail. The consumer walks the
// list from its head, and a chunk it has read to the end is recycled: reset and
// handed back to producers through a few spare slots (producers take with an
// atomic swap, so there is no ABA problem). In steady state, with the consumer
// lagging by fewer chunks than there are spare slots, neither side allocates.
//
// Recycling is safe because producers pin a chunk before they touch it: a
// producer adds one to the chunk's reference count and only then re-reads the
// tail; if the tail is no longer that chunk it unpins and starts again. The
// consumer recycles a chunk only after the tail has moved past it and its
// reference count has been seen at zero; a chunk still pinned waits on a
// consumer-owned list and is looked at again on the next recycle. So a
// producer that loaded an old tail pointer and was descheduled can never write
// into a chunk that has been reset.
//
// # Unpublished slots
//
// A producer that has claimed a slot but not yet published it (it was
// descheduled between the two) holds up the items behind it: the consumer
// never waits for it; [Queue.Pop] returns false, [Queue.Drain] stops and
// [Queue.Empty] reports true, and the loop comes back later. That producer
// publishes and then does its own wake check (below), so the item is not
// stranded.
//
// # Memory model
//
// Every Push publishes its item with a sequentially consistent atomic store
// (sync/atomic operations are sequentially consistent), and Empty reads the
// next slot's ready word with an atomic load. Hence the wake protocol the loop
// relies on holds: if a producer does
//
//	q.Push(task); if sleeping.Load() { wake() }
//
// and the consumer does
//
//	sleeping.Store(true); if q.Empty() { sleep() }
//
// then they cannot both miss each other: either the producer sees the
// consumer's announcement and wakes it, or the consumer's Empty sees the
// producer's publication. When Empty reports true only because an earlier
// slot is claimed but unpublished, the producer of that slot has not yet done
// its wake check, and will see the announcement when it does.
package mpsc
