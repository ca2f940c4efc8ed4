package eventloop

import (
	"time"

	"github.com/netkit/netkit/buf"
)

// Defaults of the connection options.
const (
	DefaultLowWaterMark  = 32 << 10 // WithWaterMarks
	DefaultHighWaterMark = 64 << 10
	DefaultMaxInbound    = 4 << 20 // WithMaxInbound
	DefaultDialTimeout   = 30 * time.Second
	DefaultCloseTimeout  = 30 * time.Second
)

// An Option configures Listen or Dial.
type Option func(*options)

type options struct {
	backlog           int
	acceptor          bool
	idle              time.Duration
	low, high         int
	closeOnReadClosed bool
	dialTimeout       time.Duration
	closeTimeout      time.Duration
	alloc             *buf.Allocator
	maxInbound        int
}

func newOptions(opts []Option) *options {
	o := &options{
		low: DefaultLowWaterMark, high: DefaultHighWaterMark,
		dialTimeout: DefaultDialTimeout, closeTimeout: DefaultCloseTimeout,
		alloc: buf.Default, maxInbound: DefaultMaxInbound,
	}
	for _, opt := range opts {
		opt(o)
	}
	return o
}

// WithBacklog sets the listen backlog (default: the system's somaxconn).
func WithBacklog(n int) Option { return func(o *options) { o.backlog = n } }

// WithAcceptor makes Listen use one listening socket, on one loop, that
// hands accepted connections to the group's loops round robin, instead of
// one SO_REUSEPORT socket per loop (the default for TCP on Linux). With
// SO_REUSEPORT the kernel spreads connections by a hash of their addresses
// and each loop accepts its own, which scales with loops; one acceptor
// spreads them evenly and suits Unix sockets, where SO_REUSEPORT does not
// apply (Listen uses one for "unix" always).
func WithAcceptor() Option { return func(o *options) { o.acceptor = true } }

// WithIdleTimeout closes a connection, reporting ErrIdleTimeout to its
// pipeline's OnError first, once d has passed without progress: a read of
// which the pipeline consumed at least one byte, or bytes written to the
// socket. A client that trickles bytes which never complete a message
// (slowloris) makes no progress and is timed out. The timer is re-armed
// lazily: reads only note the time, and the timer, when it fires early,
// sleeps again until the last progress plus d. 0 (the default) disables it.
func WithIdleTimeout(d time.Duration) Option { return func(o *options) { o.idle = d } }

// WithWaterMarks sets the outbound water marks: a connection becomes
// unwritable (Writable reports false, OnWritabilityChanged fires) when more
// than high bytes wait to be written, and writable again when fewer than low
// remain. Defaults: 32 KiB and 64 KiB.
func WithWaterMarks(low, high int) Option {
	if low < 0 || high < low {
		panic("eventloop: WithWaterMarks needs 0 ≤ low ≤ high")
	}
	return func(o *options) { o.low, o.high = low, high }
}

// WithCloseOnReadClosed makes a peer's half-close (FIN) close the
// connection fully, after flushing, instead of firing OnReadClosed.
func WithCloseOnReadClosed() Option { return func(o *options) { o.closeOnReadClosed = true } }

// WithDialTimeout bounds Dial's connect (default 30 s).
func WithDialTimeout(d time.Duration) Option { return func(o *options) { o.dialTimeout = d } }

// WithCloseTimeout bounds how long Close and Server.Shutdown wait for
// queued writes to drain before closing anyway (default 30 s).
func WithCloseTimeout(d time.Duration) Option { return func(o *options) { o.closeTimeout = d } }

// WithAllocator sets the allocator of read buffers (default buf.Default).
func WithAllocator(a *buf.Allocator) Option { return func(o *options) { o.alloc = a } }

// WithMaxInbound caps the inbound bytes a pipeline may leave unconsumed
// (a partial message): past it the connection reports ErrInboundFull and
// closes. Default 4 MiB.
func WithMaxInbound(n int) Option { return func(o *options) { o.maxInbound = n } }
