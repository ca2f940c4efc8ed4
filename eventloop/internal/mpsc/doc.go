// Package mpsc is the event loop's task queue: an unbounded, lock-free
// multi-producer single-consumer FIFO.
//
// # Design
//
// Items live in chunks of [chunkSize] slots linked in a list. A producer claims
// a slot with one atomic add on the tail chunk's claim counter, stores the
// item, and publishes it by storing the chunk's generation into the slot's
// ready word: one atomic add and one atomic store per Push. The consumer walks
// the list from its head; a chunk it has read to the end is recycled (closed,
// reset, and offered to producers through a few spare slots that producers
// take with an atomic swap, so there is no ABA problem). With the consumer
// lagging by fewer chunks than there are spare slots, neither side allocates.
//
// A producer may load the tail, be descheduled, and add to the claim counter
// of a chunk that has since been read and recycled. Recycling therefore
// closes a chunk first: it stores a counter with a high "closed" bit, so such
// a stale claim reads as far past the end and owns nothing; the producer
// reloads the tail. A chunk is opened (counter 0) only by the producer that
// links it, just before linking it, and linking cannot fail, so every slot
// claimed in an open chunk is reachable by the consumer.
//
// When a chunk fills, the one producer whose claim is exactly chunkSize links
// the next chunk (a few stores; it allocates only when no spare is left).
// Producers that reach the full chunk meanwhile wait for the tail to move:
// they spin briefly, then yield. This is the one place a producer waits for
// another, once per chunkSize items, for the length of a few stores (longer
// only if the linking producer is descheduled), as in crossbeam's SegQueue.
//
// # Unpublished slots
//
// A producer that has claimed a slot but not yet published it (it was
// descheduled between the two) holds up the items behind it: the consumer
// never waits for it; [Queue.Pop] returns false, [Queue.Drain] stops and
// [Queue.Empty] reports true, and the loop comes back later. That producer
// publishes and then does its own wake check (below), so the item is not
// stranded. Likewise a stale claim can land in a chunk that its linking
// producer has opened but not yet linked; that item becomes visible when the
// chunk is linked, and the linking producer, whose own Push completes only
// after the link, does its wake check after that.
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
