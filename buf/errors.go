package buf

import (
	"errors"
	"strconv"
)

var (
	// ErrReleased is the value (wrapped, with the buffer's stacks when known)
	// that a panic carries when a released buffer is read, written, retained
	// or released again.
	ErrReleased = errors.New("buf: use of a released buffer")

	// ErrFixed is returned, or carried by a panic from the methods that return
	// no error, when a write needs more room than a buffer that cannot grow
	// (a view made by Slice) has.
	ErrFixed = errors.New("buf: buffer cannot grow")

	// ErrTooLarge is wrapped by the panic value of a Get or Grow whose buffer
	// would need more than the largest int bytes, or more than the runtime
	// can allocate.
	ErrTooLarge = errors.New("buf: buffer too large")

	// ErrRefCount is carried by a panic when Retain would overflow the
	// reference count.
	ErrRefCount = errors.New("buf: reference count overflow")

	// ErrNotStream is returned by Composite.WriteTo, which has written
	// nothing, when the connection is a socket that is not a stream socket
	// (a datagram socket would receive the bytes as several messages).
	ErrNotStream = errors.New("buf: not a stream socket")
)

// A detailError is a sentinel with details after its message: what
// fmt.Errorf("%w…") would make, without linking fmt (and through it
// reflect) into every program that uses buf.
type detailError struct {
	err    error
	detail string
}

func (e *detailError) Error() string { return e.err.Error() + e.detail }
func (e *detailError) Unwrap() error { return e.err }

// itoa formats n in decimal, for messages.
func itoa(n int) string { return strconv.Itoa(n) }
