// Package timerq is the event loop's timer queue: an indexed min-heap of
// timer nodes and a free list of nodes, both for a single owner (the loop
// goroutine). Nothing here locks or uses atomics; sharing a Queue or a Pool
// between goroutines is a data race.
//
// Ordering is by (When, insertion order): timers with equal deadlines fire
// in the order they were pushed (or last rescheduled).
//
// Every queued node records its slot in the heap, so Remove and Reschedule
// find it without a search and cost O(log n) slot writes; Push costs
// O(log n) writes, O(1) on average for random deadlines; Peek is O(1).
// Queue.Moves counts the slot writes so tests can check those bounds.
//
// The heap is 4-ary: each slot holds the node's deadline beside the node
// pointer, so a comparison reads the slice and not the node (the node is
// read only when two deadlines are equal). See the package benchmarks for
// the measurement that chose 4-ary over binary.
//
// A Timer handle outside this package is (node, Gen): Pool.Put bumps Gen,
// so a handle whose Gen differs from its node's refers to a timer that has
// fired or been cancelled, and its Cancel must do nothing.
package timerq
