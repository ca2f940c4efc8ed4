// Package iovec writes gathered buffers to a file descriptor with one
// writev(2) call. It is the only place the buffers' pointers are handed to
// the kernel, so the package is the only user of unsafe on the write path;
// on systems without it, Writev reports ErrUnsupported and callers fall
// back to plain writes.
package iovec

import "errors"

// Max is the most buffers one Writev call passes to the kernel (Linux's
// IOV_MAX); callers pass the rest in later calls.
const Max = 1024

// ErrUnsupported is returned by Writev where the system lacks writev here.
var ErrUnsupported = errors.New("iovec: writev not supported on this system")
