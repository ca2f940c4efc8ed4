// Package rawio reads a non-blocking descriptor with a raw system call:
// read(2) entered directly, without the runtime's bookkeeping for a call
// that may block (entersyscall and exitsyscall), which a read of a
// descriptor in non-blocking mode never does. An event loop that makes
// every read this way never has its P found "in a system call" by the
// runtime's monitor, which would otherwise hand the P to another thread
// and wake itself up more often (see eventloop's Loop).
//
// Read passes the buffer to the kernel as a pointer (unsafe). The pure-Go
// twin, under the build tag nounsafe, calls unix.Read. Linux only.
package rawio
