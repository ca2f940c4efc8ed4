// Package relaxed stores a 64-bit word without a fence, for a word whose
// other accesses are atomic. On amd64 an aligned 8-byte MOV is
// single-copy atomic and, under the processor's total store order, a
// release; sync/atomic's Store is an XCHG, a locked instruction that costs
// some 20 cycles more and orders what follows too. buf's Get publishes a
// pooled buffer's new generation with Store64, and its sole owner's
// Release the released state: the buffer is that goroutine's alone there,
// another goroutine sees it only after a hand-off that synchronises
// anyway, and the readers that do not (Stats, a misused stale handle) need
// only an untorn value.
//
// The amd64 version is a plain Go store, a data race by the memory
// model's definition but one it bounds: a racing read of a word observes
// some write whole. It inlines, where a function in assembly (the first
// version) cost a call at each use. The twin (purego, the race build, or
// another architecture) is atomic.StoreUint64.
package relaxed
