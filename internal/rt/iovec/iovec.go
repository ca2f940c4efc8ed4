// Package iovec writes gathered buffers to a file descriptor with one
// writev(2) call. It is the only place the buffers' pointers are handed to
// the kernel, and so the only user of unsafe on the write path.
//
// Built with -tags nounsafe, a pure-Go twin replaces the writev on Linux:
// it writes the buffers one write(2) each and stops at the first partial
// write, which is slower (one system call per buffer) but keeps the same
// contract. On systems without either, Writev reports ErrUnsupported and
// callers fall back to plain writes.
//
// The package uses package syscall, not golang.org/x/sys/unix, on Linux, so
// that importing it does not link reflect (through encoding/binary).
package iovec

import "errors"

// Max is the most buffers one Writev call passes to the kernel (Linux's
// IOV_MAX); callers pass the rest in later calls.
const Max = 1024

// ErrUnsupported is returned by Writev where the system lacks writev here.
var ErrUnsupported = errors.New("iovec: writev not supported on this system")
