package eventloop

import "errors"

var (
	// ErrUnsupported is returned by NewGroup on systems other than Linux:
	// the loops are built on epoll and eventfd.
	ErrUnsupported = errors.New("eventloop: unsupported on this system (Linux only)")
	// ErrShutdown is returned by Execute from outside a loop once Shutdown
	// has begun: the loop runs what is queued and stops taking work.
	ErrShutdown = errors.New("eventloop: loop is shutting down")
	// ErrClosed is returned by Execute and Register once the loop has
	// stopped.
	ErrClosed = errors.New("eventloop: loop is closed")
)
