// Package relaxed stores a 64-bit word without a fence, for a word whose
// other accesses are atomic. On amd64 an aligned 8-byte MOV is
// single-copy atomic and, under the processor's total store order, a
// release; sync/atomic's Store is an XCHG, a locked instruction that costs
// some 20 cycles more and orders what follows too. buf's Get publishes a
// pooled buffer's new generation with Store64: the buffer is its sole
// owner's there, another goroutine sees it only after a hand-off that
// synchronises anyway, and the readers that do not (Stats, a misused stale
// handle) need only an untorn value.
//
// The amd64 version is assembly (relaxed_amd64.s), which the race detector
// does not see; the twin (purego, or another architecture) is
// atomic.StoreUint64.
package relaxed
