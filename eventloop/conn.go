package eventloop

import (
	"errors"
	"math"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/eventloop/internal/sock"
)

// Errors of connections.
var (
	// ErrConnClosed is returned by writes to a closed connection.
	ErrConnClosed = errors.New("eventloop: connection closed")
	// ErrNotInLoop is returned by Conn.Write called from outside the
	// connection's loop: use AsyncWrite or Execute there.
	ErrNotInLoop = errors.New("eventloop: Conn.Write called outside the connection's loop (use AsyncWrite)")
	// ErrIdleTimeout is reported to OnError when WithIdleTimeout closes a
	// connection.
	ErrIdleTimeout = errors.New("eventloop: idle timeout")
	// ErrInboundFull is reported to OnError when a pipeline leaves more
	// than WithMaxInbound bytes unconsumed; the connection closes.
	ErrInboundFull = errors.New("eventloop: unconsumed inbound bytes over the limit")
	// ErrCloseTimeout is reported when Close gave up waiting for queued
	// writes to drain (WithCloseTimeout): the rest was dropped.
	ErrCloseTimeout = errors.New("eventloop: close timed out with writes queued")
	// ErrMessageType is returned by a write of a message the head cannot
	// send (not a *buf.Buffer, *buf.Composite or []byte).
	ErrMessageType = errors.New("eventloop: the head writes only *buf.Buffer, *buf.Composite and []byte")
)

// Connection state bits.
const (
	csActive      = 1 << iota // OnActive has fired
	csReadClosed              // the peer's FIN was read, or reading stopped for good
	csShutWrite               // CloseWrite asked: shut down writing once drained
	csWriteClosed             // shutdown(SHUT_WR) done
	csClosing                 // Close asked: close once drained
	csClosed                  // the descriptor is closed
	csErrReported             // a socket error went to OnError already
	csPaused                  // PauseRead
	csWaitOut                 // EPOLLOUT is armed: a write hit EAGAIN
	csDraining                // Server.Shutdown: close once idle
	csHup                     // the socket hung up while paused: bytes may be left for ResumeRead
)

// A Conn is a TCP or Unix stream connection on a loop: accepted by a
// Server or made by Dial. Its handlers run on that loop, which reads into
// pooled buffers appended to an inbound buf.Composite (sized adaptively,
// 64 B to 64 KiB, as Netty's adaptive receive allocator) and writes queued
// buffers with writev.
//
// Methods that change the connection (Write, Flush, Close, CloseWrite,
// PauseRead, ResumeRead, Pipeline) run on the loop: in handlers, or through
// Execute. AsyncWrite and Execute are for other goroutines; Writable,
// Outbound, LocalAddr, RemoteAddr and Value may be read anywhere.
//
// One readiness event reads at most 16 times and 256 KiB (a read may take
// it past by less than one receive buffer), and stops after a read that
// fills a buffer of the largest size (64 KiB), and a flush or write event
// makes at most 16 writev calls (Netty's maxMessagesPerRead and
// writeSpinCount): a connection with more to move yields to the loop's
// other connections, tasks and timers and goes on in the loop's next
// round. Connections are registered level-triggered, so the loop comes
// back to a socket that is still readable or writable without a new edge:
// no byte and no event is left behind.
//
// An idle connection holds no buffer: the inbound and outbound composites
// go back to the loop when they empty.
//
// Its fields are packed: with its pipeline's first handler context inside
// it, a connection is one heap object of under 512 bytes.
type Conn struct {
	loop *Loop
	srv  *Server
	opts *options
	fd   int
	// state holds the cs* bits; interest is the event set the descriptor
	// is registered with.
	state    uint32
	interest Events
	depth    int32 // nesting of events being handled (deferred release of in)
	slot     int32 // index in the loop's connection list
	recv     recvSizer
	holds    int16       // work in progress outside the buffers (Hold); fits recv's padding
	unwrite  atomic.Bool // above the high water mark

	pipe Pipeline
	in   *buf.Composite // nil while empty
	out  *buf.Composite // nil while empty

	queued atomic.Int64 // outbound bytes; written only by the loop
	last   int64        // loop clock at the last progress (WithIdleTimeout)
	timer  Timer        // the idle timer, and once closing, the close timeout
	value  atomic.Pointer[any]
	addrs  connAddrs
	async  atomic.Pointer[asyncQueue] // made by the first AsyncWrite
}

// connAddrs are a connection's addresses, kept small (a sock.Addr is 24
// bytes): net.Addr values are made when asked for.
type connAddrs struct {
	local, remote sock.Addr  // TCP
	paths         *[2]string // Unix: the local and remote paths (often "" for one)
}

func (a *connAddrs) addr(h sock.Addr, i int) net.Addr {
	if a.paths != nil {
		return &net.UnixAddr{Name: a.paths[i], Net: "unix"}
	}
	if h.Kind == 0 {
		return nil
	}
	return net.TCPAddrFromAddrPort(h.AddrPort())
}

// asyncQueue holds the buffers of AsyncWrite on their way to the loop.
type asyncQueue struct {
	mu  sync.Mutex
	q   []*buf.Buffer
	on  bool // a task to drain q is queued
	end bool // the connection has closed
	run func()
}

// closedAsync is the queue of a connection closed before any AsyncWrite.
var closedAsync = &asyncQueue{end: true}

// Loop returns the loop c runs on.
func (c *Conn) Loop() *Loop { return c.loop }

// Pipeline returns c's pipeline.
func (c *Conn) Pipeline() *Pipeline { return &c.pipe }

// SetValue attaches v to c (per-connection state for shared handlers).
func (c *Conn) SetValue(v any) { c.value.Store(&v) }

// Value returns what SetValue attached, or nil.
func (c *Conn) Value() any {
	if p := c.value.Load(); p != nil {
		return *p
	}
	return nil
}

// LocalAddr returns the local address (a *net.TCPAddr or *net.UnixAddr).
func (c *Conn) LocalAddr() net.Addr { return c.addrs.addr(c.addrs.local, 0) }

// RemoteAddr returns the peer's address (a *net.TCPAddr or *net.UnixAddr).
func (c *Conn) RemoteAddr() net.Addr { return c.addrs.addr(c.addrs.remote, 1) }

// Writable reports whether the bytes queued for writing are below the high
// water mark (more precisely: they have not crossed above it since they last
// fell below the low one).
func (c *Conn) Writable() bool { return !c.unwrite.Load() }

// Outbound returns the bytes queued and not yet written to the socket.
func (c *Conn) Outbound() int { return int(c.queued.Load()) }

// Execute runs fn on c's loop; a panic in fn closes c, as a handler's does.
func (c *Conn) Execute(fn func()) error {
	return c.loop.Execute(func() {
		defer c.rescue()
		fn()
	})
}

// Write queues msg through the whole outbound pipeline (tail to head): a
// *buf.Buffer (c takes over the reference: it is released once written or
// when c closes), a *buf.Composite (its readable bytes move, without
// copying, and it is left empty; the composite itself stays the caller's:
// a proxy writes one connection's inbound composite to another), or a
// []byte (copied). Nothing is sent until Flush. Write runs
// on c's loop; elsewhere it returns ErrNotInLoop (use AsyncWrite). After
// Close it returns ErrConnClosed. On an error msg has been dropped as
// above (a buffer released, a composite's bytes discarded).
func (c *Conn) Write(msg any) error {
	if !c.loop.InLoop() {
		releaseMsg(msg)
		return ErrNotInLoop
	}
	return c.pipe.writeAll(msg)
}

// Flush writes what is queued, with writev, through the outbound
// pipeline's flush handlers. What the socket does not take (EAGAIN) stays
// queued and goes out when the socket drains, without further calls; so
// does what is left after 16 writev calls, the most one flush or write
// event makes (a long queue to a fast reader yields to the loop's other
// work between rounds).
//
// From another goroutine Flush queues itself to the loop (AsyncWrite writes
// and flushes in one step).
func (c *Conn) Flush() {
	if c.loop.InLoop() {
		c.pipe.flushAll()
		return
	}
	c.post(func() {
		if c.state&csClosed == 0 {
			c.pipe.flushAll()
		}
	})
}

// AsyncWrite writes b and flushes, from any goroutine: b is queued to c's
// loop (batched: one task per burst, not per buffer) and written through
// the outbound pipeline there. c takes over the reference. After c has
// closed it releases b and returns ErrConnClosed.
func (c *Conn) AsyncWrite(b *buf.Buffer) error {
	a := c.async.Load()
	if a == nil {
		a = &asyncQueue{run: c.runAsync}
		if !c.async.CompareAndSwap(nil, a) {
			a = c.async.Load()
		}
	}
	a.mu.Lock()
	if a.end {
		a.mu.Unlock()
		b.Release()
		return ErrConnClosed
	}
	a.q = append(a.q, b)
	run := !a.on
	a.on = true
	a.mu.Unlock()
	if run {
		if err := c.loop.Execute(a.run); err != nil {
			c.dropAsync()
			return err
		}
	}
	return nil
}

// runAsync is the loop's half of AsyncWrite.
func (c *Conn) runAsync() {
	defer c.rescue()
	a := c.async.Load()
	a.mu.Lock()
	q := a.q
	a.q = nil
	a.on = false
	a.mu.Unlock()
	for i, b := range q {
		q[i] = nil
		c.pipe.writeAll(b)
	}
	c.pipe.flushAll()
	a.mu.Lock()
	if a.q == nil && !a.end {
		a.q = q[:0] // keep the array for the next burst
	}
	a.mu.Unlock()
}

// dropAsync ends AsyncWrite: what is queued is released.
func (c *Conn) dropAsync() {
	a := c.async.Swap(closedAsync)
	if a == nil || a == closedAsync {
		return
	}
	a.mu.Lock()
	q := a.q
	a.q, a.end = nil, true
	a.mu.Unlock()
	for _, b := range q {
		b.Release()
	}
}

// Close flushes what is queued, then closes c: at once if the socket takes
// it all, else once it has drained (reads stop meanwhile), or after the
// close timeout (WithCloseTimeout), dropping the rest. OnInactive fires
// when the descriptor closes. Close of a closed connection returns nil.
// From another goroutine, Close queues itself to c's loop and returns at
// once (OnInactive tells when it is done).
func (c *Conn) Close() error {
	if !c.loop.InLoop() {
		c.post(func() { c.Close() })
		return nil
	}
	if c.state&(csClosing|csClosed) != 0 {
		return nil
	}
	c.state |= csClosing
	c.setInterest()
	c.pipe.flushAll()
	if c.state&csClosed == 0 && c.Outbound() == 0 {
		c.closeNow(nil)
		return nil
	}
	if c.state&csClosed == 0 {
		c.timer.Cancel() // no idle timeout while closing
		c.timer = c.loop.Schedule(c.opts.closeTimeout, func() {
			if c.state&csClosed == 0 {
				c.fail(ErrCloseTimeout)
			}
		})
	}
	return nil
}

// Abort closes c at once, dropping what is queued: for a peer that
// stopped reading, whose queue Close would wait on. err, when not nil, is
// reported to the pipeline's OnError first, as an I/O error is. From
// another goroutine Abort queues itself to c's loop and returns.
func (c *Conn) Abort(err error) {
	if !c.loop.InLoop() {
		c.post(func() { c.Abort(err) })
		return
	}
	if err != nil {
		c.fail(err)
		return
	}
	c.closeNow(nil)
}

// CloseWrite flushes, then shuts down c's writing half (the peer reads
// EOF) once what is queued has been written; c goes on reading. When the
// peer has half-closed too, c closes. Writes after CloseWrite return
// ErrConnClosed.
func (c *Conn) CloseWrite() error {
	if !c.loop.InLoop() {
		c.post(func() { c.CloseWrite() })
		return nil
	}
	if c.state&(csShutWrite|csClosing|csClosed) != 0 {
		return nil
	}
	c.state |= csShutWrite
	c.pipe.flushAll()
	if c.state&csClosed == 0 && c.Outbound() == 0 {
		c.shutWrite()
	}
	return nil
}

// post runs f on c's loop, for Close, CloseWrite and Flush called from
// elsewhere: even while the loop shuts down (a loop that has stopped closed
// its connections already), and a panic in f closes c.
func (c *Conn) post(f func()) {
	c.loop.post(func() {
		defer c.rescue()
		f()
	})
}

// PauseRead stops reading from the socket (the peer's writes back up into
// its send buffer: TCP flow control) until ResumeRead: the backpressure a
// proxy applies to a fast sender while its other side is not writable.
// Nothing the peer sent is lost meanwhile: if the socket hangs up while
// paused (the peer's FIN after c's own CloseWrite, a Unix peer's close, a
// reset), what is left in it is read after ResumeRead, and only then does
// c close (reporting the reset, if any, after those bytes).
//
// From another goroutine PauseRead queues itself to c's loop and returns:
// reading stops when the loop runs it, before any task queued after it
// (c.Execute of an empty function, awaited, tells when).
func (c *Conn) PauseRead() {
	if !c.loop.InLoop() {
		c.post(c.PauseRead)
		return
	}
	if c.state&(csPaused|csClosed) == 0 {
		c.state |= csPaused
		c.setInterest()
	}
}

// ResumeRead undoes PauseRead. From another goroutine it queues itself to
// c's loop, as PauseRead does, in order with PauseRead's.
func (c *Conn) ResumeRead() {
	if !c.loop.InLoop() {
		c.post(c.ResumeRead)
		return
	}
	if c.state&csPaused != 0 {
		c.state &^= csPaused | csHup
		if c.state&csClosed == 0 {
			c.setInterest()
		}
	}
}

// Hold marks c busy with work that lives outside its buffers, such as a
// response another goroutine is computing: until as many Unhold calls
// have undone the Holds, Server.Shutdown does not take c for idle (it
// closes a connection once nothing is in, nothing is out and nothing is
// held), and WithIdleTimeout's timer does not close it: the wait is this
// side's, not the peer's. Holds nest. Call it on c's loop.
func (c *Conn) Hold() {
	if c.holds == math.MaxInt16 {
		panic("eventloop: too many Holds")
	}
	c.holds++
}

// Unhold undoes one Hold. The last one lets a Server.Shutdown waiting on
// c close it, at once when c is idle. Call it on c's loop.
func (c *Conn) Unhold() {
	if c.holds <= 0 {
		panic("eventloop: Unhold without a Hold")
	}
	c.holds--
	if c.holds == 0 && c.state&csClosed == 0 && c.state&csDraining != 0 && c.idleNow() {
		c.closeNow(nil)
	}
}

// releaseMsg drops a message refused or unhandled: a *buf.Buffer (or any
// other message with a Release method) is released; a *buf.Composite is
// emptied, since it stays its owner's (writes move only its bytes).
func releaseMsg(msg any) {
	switch m := msg.(type) {
	case *buf.Composite:
		m.Discard(m.Len())
	case interface{ Release() bool }:
		m.Release()
	}
}

// enqueue is the head's write.
func (c *Conn) enqueue(msg any) error {
	if c.state&(csClosed|csShutWrite|csWriteClosed) != 0 {
		releaseMsg(msg)
		return ErrConnClosed
	}
	var n int
	switch m := msg.(type) {
	case *buf.Buffer:
		n = m.Len()
		if n == 0 {
			m.Release()
			return nil
		}
		c.outbound().Append(m)
	case *buf.Composite:
		// Its buffers change composite with their references: an echo
		// writes its read buffers back without a view or a count.
		n = m.MoveTo(c.outbound())
	case []byte:
		n = len(m)
		if n == 0 {
			return nil
		}
		b := c.opts.alloc.Get(n)
		b.Write(m)
		c.outbound().Append(b)
	default:
		releaseMsg(msg)
		return ErrMessageType
	}
	c.queued.Add(int64(n))
	if c.Outbound() > c.opts.high && !c.unwrite.Load() {
		c.unwrite.Store(true)
		c.pipe.fireWritability(false)
	}
	return nil
}

func (c *Conn) outbound() *buf.Composite {
	if c.out == nil {
		c.out = c.loop.conns.composite()
	}
	return c.out
}

// flushNow writes the queue unless a write is waiting for EPOLLOUT (the
// event will resume it).
func (c *Conn) flushNow() {
	if c.Outbound() == 0 || c.state&(csWaitOut|csClosed) != 0 {
		return
	}
	c.writeOut()
}

// maxWritesPerEvent bounds the writev calls of one writeOut, so that a
// connection with a long queue and a fast peer, whose socket never fills,
// cannot hold its loop (Netty's writeSpinCount): the rest waits for the
// next round of the loop, as after EAGAIN. EPOLLOUT is level-triggered, so
// the loop comes back to it at once while the socket stays writable.
const maxWritesPerEvent = 16

// writeOut writes until the queue is empty, the socket is full, or the
// round's budget (maxWritesPerEvent) is spent; what is left waits for
// EPOLLOUT.
func (c *Conn) writeOut() {
	for range maxWritesPerEvent {
		if c.Outbound() == 0 {
			break
		}
		n, err := c.loop.conns.writev(c.fd, c.out)
		if n > 0 {
			c.out.Discard(n)
			c.queued.Add(-int64(n))
			c.progress()
		}
		if err == errAgain {
			break
		}
		if err != nil {
			c.fail(err)
			return
		}
	}
	if c.Outbound() == 0 {
		c.loop.conns.putComposite(c.out)
		c.out = nil
	}
	wait := c.Outbound() > 0
	if wait != (c.state&csWaitOut != 0) {
		c.state ^= csWaitOut
		c.setInterest()
	}
	if c.unwrite.Load() && c.Outbound() < c.opts.low {
		c.unwrite.Store(false)
		c.pipe.fireWritability(true)
	}
	if c.Outbound() == 0 && c.state&csClosed == 0 {
		c.drained()
	}
}

// drained finishes what waited for the queue to empty.
func (c *Conn) drained() {
	switch {
	case c.state&csClosing != 0:
		c.closeNow(nil)
	case c.state&csShutWrite != 0 && c.state&csWriteClosed == 0:
		c.shutWrite()
	case c.state&csDraining != 0 && c.idleNow():
		c.closeNow(nil)
	}
}

// idleNow reports whether c holds nothing (Hold), has no partial message
// in, nothing queued out, and nothing unread in its socket (paused, or past a read event's budget):
// Server.Shutdown closes such connections.
func (c *Conn) idleNow() bool {
	return c.holds == 0 && c.Outbound() == 0 && (c.in == nil || c.in.Len() == 0) && sysUnread(c.fd) == 0
}

func (c *Conn) shutWrite() {
	c.state |= csWriteClosed
	if err := sysShutdownWrite(c.fd); err != nil {
		c.fail(err)
		return
	}
	if c.state&csReadClosed != 0 {
		c.closeNow(nil)
	}
}

// setInterest registers the events c waits for now.
func (c *Conn) setInterest() {
	if c.state&csClosed != 0 {
		return
	}
	var ev Events
	if c.state&(csReadClosed|csPaused|csClosing) == 0 {
		ev |= Readable | PeerClosedWrite
	}
	if c.state&csWaitOut != 0 {
		ev |= Writable
	}
	if c.state&csHup != 0 && ev&Readable == 0 {
		// The kernel reports a hang-up whatever the mask, on every round
		// while it lasts: once is enough until reading resumes.
		ev |= oneShot
	}
	if ev != c.interest {
		c.interest = ev
		if err := c.loop.modify(c.fd, ev); err != nil {
			c.fail(err)
		}
	}
}

// progress notes activity for the idle timeout.
func (c *Conn) progress() {
	if c.opts.idle > 0 {
		c.last = c.loop.nanotime()
	}
}

// ready is c's poller callback. A panic in it goes to the loop's
// dispatch, which calls c.panicked.
func (c *Conn) ready(ev Events) {
	c.depth++
	c.readyEvents(ev)
	c.depth--
	if c.depth == 0 && c.state&csClosed != 0 {
		c.releaseInbound()
	}
}

// panicked closes c after a panic in ready, which dispatch recovered and
// reported.
func (c *Conn) panicked() {
	c.depth--
	c.closeNow(errPanic)
}

func (c *Conn) readyEvents(ev Events) {
	if ev&(Readable|PeerClosedWrite|Hangup|Error) != 0 && c.state&(csReadClosed|csPaused|csClosing|csClosed) == 0 {
		c.readEvent(ev)
	}
	if c.state&csClosed != 0 {
		return
	}
	if ev&(Hangup|Error) != 0 && c.state&(csReadClosed|csPaused|csClosing) == csPaused && c.holdHangup() {
		return
	}
	if ev&(Writable|Hangup|Error) != 0 && c.state&csWaitOut != 0 {
		c.writeOut()
	}
	if ev&(Hangup|Error) != 0 && c.state&csClosed == 0 && c.state&(csReadClosed|csPaused|csClosing) != 0 {
		if c.state&(csReadClosed|csClosing) == 0 && c.holdHangup() {
			return // paused by a writability handler
		}
		// Nothing read the error: ask the socket for it.
		err := sysSocketError(c.fd)
		if err == nil {
			err = ErrConnClosed
		}
		c.fail(err)
	}
}

// holdHangup handles a hang-up (or socket error) while c is paused, and
// reports whether it kept c open: when what the peer sent before it is
// still in the socket, ResumeRead reads it, then the EOF or the error.
// Until then the hang-up is not reported again (the registration turns
// one-shot), and no write is tried: after a hang-up it could only fail,
// closing c with those bytes unread. With nothing unread there is nothing
// to keep, and the hang-up is handled at once.
func (c *Conn) holdHangup() bool {
	if sysUnread(c.fd) == 0 {
		return false
	}
	c.state |= csHup
	c.setInterest()
	return true
}

// endEvent finishes an event: a panic closes c alone; an inbound composite
// that a handler closed c under is released only now.
func (c *Conn) endEvent() {
	if v := recover(); v != nil {
		c.loop.recovered(v)
		c.depth--
		c.closeNow(errPanic)
		return
	}
	c.depth--
	if c.depth == 0 && c.state&csClosed != 0 {
		c.releaseInbound()
	}
}

var errPanic = errors.New("eventloop: a handler panicked")

// rescue, deferred by tasks and timers that run c's handlers, closes c if
// one panicked.
func (c *Conn) rescue() {
	if v := recover(); v != nil {
		c.loop.recovered(v)
		c.closeNow(errPanic)
	}
}

// maxReadsPerEvent bounds the reads one readiness event makes, so that a
// fast sender cannot starve the loop's other connections (Netty's
// maxMessagesPerRead).
const maxReadsPerEvent = 16

// maxReadBytesPerEvent bounds the bytes one readiness event reads, as
// maxReadsPerEvent bounds the reads: 4 reads at the largest receive size.
const maxReadBytesPerEvent = 256 << 10

// readEvent reads what the socket has and fires it through the pipeline.
func (c *Conn) readEvent(ev Events) {
	total, eof := 0, false
	var rerr error
	for range maxReadsPerEvent {
		size := c.recv.next()
		b := c.opts.alloc.Get(size)
		p := b.AvailableBuffer()
		p = p[:cap(p)]
		n, err := sysRead(c.fd, p)
		if n > 0 {
			b.Commit(n)
			if c.in == nil {
				c.in = c.loop.conns.composite()
			}
			c.in.Append(b)
			total += n
			c.recv.record(n, len(p))
		} else {
			b.Release()
		}
		if err == errAgain {
			break
		}
		if err != nil {
			rerr = err
			break
		}
		if n == 0 {
			eof = true
			break
		}
		// A read that did not fill the buffer emptied the socket, unless
		// the peer closed or failed, when the rest must come out now.
		if n < len(p) && ev&(PeerClosedWrite|Hangup|Error) == 0 {
			break
		}
		// The budget is spent: the rest waits for the next round (the
		// registration is level-triggered, so the loop comes back).
		if total >= maxReadBytesPerEvent {
			break
		}
		// A full read at the largest size ends the event too: bursts of
		// that size (a pipelining client's window) would otherwise cost a
		// second read that finds nothing; if more is there, the
		// level-triggered registration reports it in the next round.
		if n == maxRecv && ev&(PeerClosedWrite|Hangup|Error) == 0 {
			break
		}
	}
	if total > 0 {
		before := c.in.Len()
		c.pipe.fireRead(c.in)
		if c.state&csClosed != 0 {
			return
		}
		if c.in.Len() < before {
			c.progress()
		}
		c.pipe.fireReadComplete()
		if c.state&csClosed != 0 {
			return
		}
		c.settleInbound()
		if c.state&csClosed != 0 {
			return
		}
	}
	switch {
	case rerr != nil:
		c.fail(rerr)
	case eof:
		c.readClosed()
	case c.state&csDraining != 0 && c.idleNow():
		c.closeNow(nil)
	}
}

// settleInbound releases what the pipeline consumed, returns an empty
// composite to the loop, and enforces WithMaxInbound.
func (c *Conn) settleInbound() {
	if c.in == nil {
		return
	}
	c.in.Discard(0)
	switch n := c.in.Len(); {
	case n == 0:
		c.loop.conns.putComposite(c.in)
		c.in = nil
	case n > c.opts.maxInbound:
		c.fail(ErrInboundFull)
	}
}

// readClosed handles the peer's FIN.
func (c *Conn) readClosed() {
	c.state |= csReadClosed
	c.setInterest()
	if c.state&csWriteClosed != 0 {
		c.closeNow(nil)
		return
	}
	if c.opts.closeOnReadClosed {
		c.Close()
		return
	}
	c.pipe.fireReadClosed()
}

// fail reports err once (OnError) and closes c at once.
func (c *Conn) fail(err error) {
	if c.state&csClosed != 0 {
		return
	}
	if c.state&csErrReported == 0 {
		c.state |= csErrReported
		c.pipe.fireError(err)
		if c.state&csClosed != 0 {
			return
		}
	}
	c.closeNow(err)
}

// closeNow closes the descriptor, drops what is queued, and fires
// OnInactive (once). err is the cause, nil for an orderly close.
func (c *Conn) closeNow(err error) {
	if c.state&csClosed != 0 {
		return
	}
	c.state |= csClosed
	c.timer.Cancel()
	c.loop.unregisterConn(c)
	sysClose(c.fd)
	if c.out != nil {
		c.loop.conns.putComposite(c.out)
		c.out = nil
	}
	c.queued.Store(0)
	c.dropAsync()
	if c.depth == 0 {
		c.releaseInbound()
	}
	if c.state&csActive != 0 {
		c.fireInactive()
	}
	if c.srv != nil {
		c.srv.connClosed()
	}
}

// fireInactive fires OnInactive, containing a panic there.
func (c *Conn) fireInactive() {
	defer func() {
		if v := recover(); v != nil {
			c.loop.recovered(v)
		}
	}()
	c.pipe.fireInactive()
}

func (c *Conn) releaseInbound() {
	if c.in != nil {
		c.loop.conns.putComposite(c.in)
		c.in = nil
	}
}

// start runs on c's loop: it registers the descriptor, builds the pipeline
// and fires OnActive.
func (c *Conn) start(h Handler) {
	c.pipe.init(c)
	c.recv.init()
	c.interest = Readable | PeerClosedWrite
	if err := c.loop.registerConn(c); err != nil {
		sysClose(c.fd)
		c.state |= csClosed
		c.dropAsync()
		if c.srv != nil {
			c.srv.connClosed()
		}
		return
	}
	c.depth++
	defer c.endEvent()
	if init, ok := h.(Initializer); ok {
		init(c)
	} else if h != nil {
		if err := c.pipe.AddLast("handler", h); err != nil {
			panic(err)
		}
	}
	if c.state&csClosed != 0 {
		return
	}
	if c.opts.idle > 0 {
		c.last = c.loop.nanotime()
		c.armIdle(c.opts.idle)
	}
	c.state |= csActive
	c.pipe.fireActive()
}

// armIdle schedules the idle check after d.
func (c *Conn) armIdle(d time.Duration) {
	c.timer = c.loop.Schedule(d, c.checkIdle)
}

// checkIdle runs when the idle timer fires: it closes c if nothing
// happened since, else sleeps until the last progress plus the timeout.
func (c *Conn) checkIdle() {
	if c.state&csClosed != 0 {
		return
	}
	defer c.rescue()
	left := c.last + int64(c.opts.idle) - c.loop.nanotime()
	if left > 0 {
		c.armIdle(time.Duration(left))
		return
	}
	if c.holds > 0 {
		// Busy on this side (Hold): the wait is not the peer's.
		c.last = c.loop.nanotime()
		c.armIdle(c.opts.idle)
		return
	}
	c.fail(ErrIdleTimeout)
}
