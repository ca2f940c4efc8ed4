package eventloop

// Events is a set of readiness events of a file descriptor: what Register
// and Modify watch for, and what the callback receives. The values are
// netkit's own, the same on every system; the loop translates them to and
// from the poller's (epoll's on Linux).
type Events uint32

// The event bits.
const (
	// Readable: the descriptor has bytes to read, a connection to accept,
	// or the end of the stream.
	Readable Events = 1 << iota
	// Writable: the descriptor can take bytes without blocking.
	Writable
	// Error: an error is pending on the descriptor (always watched).
	Error
	// Hangup: the descriptor was hung up (always watched).
	Hangup
	// PeerClosedWrite reports that the peer shut down its writing half.
	PeerClosedWrite
	// EdgeTriggered makes the registration edge-triggered: the callback runs
	// once per change of readiness, and must read (or write) until EAGAIN.
	// It is never reported.
	EdgeTriggered
	// oneShot disables a registration after its next event, until
	// modified.
	oneShot
)
