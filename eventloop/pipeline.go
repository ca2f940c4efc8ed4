package eventloop

import (
	"errors"
	"fmt"
	"slices"

	"github.com/netkit/netkit/buf"
)

// Event numbers: bits of a handler's mask and indexes of a context's links.
const (
	evActive = iota
	evRead
	evReadComplete
	evWritability
	evUserEvent
	evError
	evReadClosed
	evInactive
	numIn

	evWrite = iota - numIn - 1 // outbound: a context's out links
	evFlush
	numOut
)

// mask returns the events h implements: inbound bits 0..numIn-1, outbound
// bits numIn and up.
func mask(h Handler) uint16 {
	var m uint16
	if _, ok := h.(ActiveHandler); ok {
		m |= 1 << evActive
	}
	if _, ok := h.(ReadHandler); ok {
		m |= 1 << evRead
	}
	if _, ok := h.(ReadCompleteHandler); ok {
		m |= 1 << evReadComplete
	}
	if _, ok := h.(WritabilityHandler); ok {
		m |= 1 << evWritability
	}
	if _, ok := h.(UserEventHandler); ok {
		m |= 1 << evUserEvent
	}
	if _, ok := h.(ErrorHandler); ok {
		m |= 1 << evError
	}
	if _, ok := h.(ReadClosedHandler); ok {
		m |= 1 << evReadClosed
	}
	if _, ok := h.(InactiveHandler); ok {
		m |= 1 << evInactive
	}
	if _, ok := h.(WriteHandler); ok {
		m |= 1 << (numIn + evWrite)
	}
	if _, ok := h.(FlushHandler); ok {
		m |= 1 << (numIn + evFlush)
	}
	return m
}

// A Context is a handler's place in a pipeline: what it fires events and
// writes through. Each context keeps, per event, a direct link to the next
// context that handles it — toward the tail for inbound events, toward the
// head for outbound ones — recomputed whenever the pipeline changes, so
// firing an event is one table load and one call. Links are one-byte
// positions in the pipeline's table (end: the tail, or the head, is next),
// which keeps a connection small.
type Context struct {
	p    *Pipeline
	name string
	h    Handler
	mask uint16
	in   [numIn]uint8
	out  [numOut]uint8
}

// end is the link to the tail (inbound) or the head (outbound).
const end = 0xff

// MaxHandlers is the most handlers a pipeline holds.
const MaxHandlers = end

// Conn returns the connection of x's pipeline.
func (x *Context) Conn() *Conn { return x.p.c }

// Name returns the name x's handler was added under.
func (x *Context) Name() string { return x.name }

// Handler returns x's handler.
func (x *Context) Handler() Handler { return x.h }

// FireActive passes the active event to the next handler that handles it.
func (x *Context) FireActive() { x.p.active(x.p.at(x.in[evActive])) }

// FireRead passes msg to the next ReadHandler.
func (x *Context) FireRead(msg any) { x.p.read(x.p.at(x.in[evRead]), msg) }

// FireReadComplete passes the read-complete event on.
func (x *Context) FireReadComplete() { x.p.readComplete(x.p.at(x.in[evReadComplete])) }

// FireWritabilityChanged passes a writability change on.
func (x *Context) FireWritabilityChanged(writable bool) {
	x.p.writability(x.p.at(x.in[evWritability]), writable)
}

// FireUserEvent passes ev to the next UserEventHandler.
func (x *Context) FireUserEvent(ev any) { x.p.userEvent(x.p.at(x.in[evUserEvent]), ev) }

// FireError passes err to the next ErrorHandler.
func (x *Context) FireError(err error) { x.p.error(x.p.at(x.in[evError]), err) }

// FireReadClosed passes the read-closed event on.
func (x *Context) FireReadClosed() { x.p.readClosed(x.p.at(x.in[evReadClosed])) }

// FireInactive passes the inactive event on.
func (x *Context) FireInactive() { x.p.inactive(x.p.at(x.in[evInactive])) }

// Write passes msg to the next WriteHandler toward the head, which queues
// it on the connection (see WriteHandler for the messages the head takes).
// It takes over msg: on an error a *buf.Buffer has been released, and a
// *buf.Composite's bytes discarded.
func (x *Context) Write(msg any) error { return x.p.write(x.p.at(x.out[evWrite]), msg) }

// Flush passes a flush toward the head, which writes what is queued.
func (x *Context) Flush() { x.p.flush(x.p.at(x.out[evFlush])) }

// Close closes the connection (see Conn.Close).
func (x *Context) Close() error { return x.p.c.Close() }

// A Pipeline is a connection's chain of handlers, between a head (the
// socket) and a tail (which ends events nobody handled). Its methods run on
// the connection's loop (in an Initializer, a handler, or Conn.Execute);
// changes take effect for the next event fired. It holds at most
// MaxHandlers handlers.
//
// The head and the tail are not contexts: the pipeline keeps the head's
// inbound links and the tail's outbound ones. The first handler ever added
// lives inside the Pipeline (so inside the Conn), with its table: a
// connection with one handler is one heap object.
type Pipeline struct {
	c          *Conn
	ctxs       []*Context // head to tail; links are positions in it
	one        [1]*Context
	headIn     [numIn]uint8
	tailOut    [numOut]uint8
	inlineUsed bool
	inline     Context
}

// Errors of Pipeline's methods.
var (
	errDuplicateName = errors.New("eventloop: pipeline already has a handler of that name")
	errNoSuchName    = errors.New("eventloop: pipeline has no handler of that name")
	errNoEvents      = errors.New("eventloop: handler implements none of the event interfaces")
	errFull          = errors.New("eventloop: pipeline is full (MaxHandlers)")
)

func (p *Pipeline) init(c *Conn) {
	p.c = c
	p.ctxs = p.one[:0]
	p.relink()
}

// at returns the context at position i, nil for end.
func (p *Pipeline) at(i uint8) *Context {
	if i == end {
		return nil
	}
	return p.ctxs[i]
}

// AddLast adds h, under name, just before the tail: it sees inbound events
// after every handler already there, outbound ones before them.
func (p *Pipeline) AddLast(name string, h Handler) error {
	return p.insert(name, h, len(p.ctxs))
}

// AddFirst adds h, under name, just after the head.
func (p *Pipeline) AddFirst(name string, h Handler) error {
	return p.insert(name, h, 0)
}

// insert adds h at position i.
func (p *Pipeline) insert(name string, h Handler, i int) error {
	p.mustOnLoop()
	if p.find(name) >= 0 {
		return fmt.Errorf("%w: %q", errDuplicateName, name)
	}
	if len(p.ctxs) >= MaxHandlers {
		return errFull
	}
	x, err := p.newContext(name, h)
	if err != nil {
		return err
	}
	p.ctxs = slices.Insert(p.ctxs, i, x)
	p.relink()
	return nil
}

func (p *Pipeline) newContext(name string, h Handler) (*Context, error) {
	m := mask(h)
	if m == 0 {
		return nil, fmt.Errorf("%w: %q (%T)", errNoEvents, name, h)
	}
	var x *Context
	if !p.inlineUsed {
		p.inlineUsed = true
		x = &p.inline
	} else {
		x = new(Context)
	}
	*x = Context{p: p, name: name, h: h, mask: m}
	return x, nil
}

// Remove takes the handler named name out of the pipeline and returns it.
func (p *Pipeline) Remove(name string) (Handler, error) {
	p.mustOnLoop()
	i := p.find(name)
	if i < 0 {
		return nil, fmt.Errorf("%w: %q", errNoSuchName, name)
	}
	x := p.ctxs[i]
	p.ctxs = slices.Delete(p.ctxs, i, i+1)
	p.relink()
	p.detach(x, i)
	h := x.h
	if x == &p.inline {
		// The connection holds this context for its life: let go of the
		// handler (an HTTP/1 handler after an upgrade, say). The context
		// still fires events onward for a handler that removed itself.
		x.h = nil
	}
	return h, nil
}

// Replace puts h, under newName, where the handler named name was, and
// returns the old handler.
func (p *Pipeline) Replace(name, newName string, h Handler) (Handler, error) {
	p.mustOnLoop()
	i := p.find(name)
	if i < 0 {
		return nil, fmt.Errorf("%w: %q", errNoSuchName, name)
	}
	if newName != name && p.find(newName) >= 0 {
		return nil, fmt.Errorf("%w: %q", errDuplicateName, newName)
	}
	x, err := p.newContext(newName, h)
	if err != nil {
		return nil, err
	}
	old := p.ctxs[i]
	p.ctxs[i] = x
	p.relink()
	old.in, old.out = x.in, x.out // the old handler, still running, goes on as x would
	return old.h, nil
}

// detach gives a context just removed from position i the links of that
// position, so that a handler that removes itself and then fires an event
// reaches the handlers that were after (or, outbound, before) it.
func (p *Pipeline) detach(x *Context, i int) {
	x.in = p.headIn
	if i > 0 {
		x.in = p.ctxs[i-1].in
	}
	x.out = p.tailOut
	if i < len(p.ctxs) {
		x.out = p.ctxs[i].out
	}
}

// Get returns the handler named name, or nil.
func (p *Pipeline) Get(name string) Handler {
	if i := p.find(name); i >= 0 {
		return p.ctxs[i].h
	}
	return nil
}

// Context returns the context of the handler named name, or nil.
func (p *Pipeline) Context(name string) *Context {
	if i := p.find(name); i >= 0 {
		return p.ctxs[i]
	}
	return nil
}

// Names returns the handlers' names from head to tail.
func (p *Pipeline) Names() []string {
	names := make([]string, len(p.ctxs))
	for i, x := range p.ctxs {
		names[i] = x.name
	}
	return names
}

func (p *Pipeline) find(name string) int {
	for i, x := range p.ctxs {
		if x.name == name {
			return i
		}
	}
	return -1
}

func (p *Pipeline) mustOnLoop() {
	if p.c != nil && p.c.loop != nil && !p.c.loop.InLoop() {
		panic("eventloop: Pipeline used outside the connection's loop (use Conn.Execute)")
	}
}

// relink recomputes every link: O(handlers × events), paid when the
// pipeline changes, never when an event fires.
func (p *Pipeline) relink() {
	var in [numIn]uint8
	for e := range in {
		in[e] = end
	}
	for i := len(p.ctxs) - 1; i >= 0; i-- {
		x := p.ctxs[i]
		x.in = in
		for e := range in {
			if x.mask&(1<<e) != 0 {
				in[e] = uint8(i)
			}
		}
	}
	p.headIn = in
	var out [numOut]uint8
	for e := range out {
		out[e] = end
	}
	for i, x := range p.ctxs {
		x.out = out
		for e := range out {
			if x.mask&(1<<(numIn+e)) != 0 {
				out[e] = uint8(i)
			}
		}
	}
	p.tailOut = out
}

// Event delivery to context n, or, for nil, to the tail (inbound) or the
// head (outbound). The tail ends events nobody handled: it releases
// messages that own buffers, and closes a connection whose peer
// half-closed when no handler took that event.
func (p *Pipeline) active(n *Context) {
	if n != nil {
		n.h.(ActiveHandler).OnActive(n)
	}
}

func (p *Pipeline) read(n *Context, msg any) {
	if n != nil {
		n.h.(ReadHandler).OnRead(n, msg)
		return
	}
	if _, ok := msg.(*buf.Composite); !ok {
		releaseMsg(msg) // a composite is lent: what is left stays
	}
}

func (p *Pipeline) readComplete(n *Context) {
	if n != nil {
		n.h.(ReadCompleteHandler).OnReadComplete(n)
	}
}

func (p *Pipeline) writability(n *Context, writable bool) {
	if n != nil {
		n.h.(WritabilityHandler).OnWritabilityChanged(n, writable)
	}
}

func (p *Pipeline) userEvent(n *Context, ev any) {
	if n != nil {
		n.h.(UserEventHandler).OnUserEvent(n, ev)
		return
	}
	releaseMsg(ev)
}

func (p *Pipeline) error(n *Context, err error) {
	if n != nil {
		n.h.(ErrorHandler).OnError(n, err)
	}
}

func (p *Pipeline) readClosed(n *Context) {
	if n != nil {
		n.h.(ReadClosedHandler).OnReadClosed(n)
		return
	}
	p.c.Close()
}

func (p *Pipeline) inactive(n *Context) {
	if n != nil {
		n.h.(InactiveHandler).OnInactive(n)
	}
}

func (p *Pipeline) write(n *Context, msg any) error {
	if n != nil {
		return n.h.(WriteHandler).OnWrite(n, msg)
	}
	return p.c.enqueue(msg)
}

func (p *Pipeline) flush(n *Context) {
	if n != nil {
		n.h.(FlushHandler).OnFlush(n)
		return
	}
	p.c.flushNow()
}

// fire* start events at the head; writeAll and flushAll at the tail.
func (p *Pipeline) fireRead(msg any)       { p.read(p.at(p.headIn[evRead]), msg) }
func (p *Pipeline) fireReadComplete()      { p.readComplete(p.at(p.headIn[evReadComplete])) }
func (p *Pipeline) fireActive()            { p.active(p.at(p.headIn[evActive])) }
func (p *Pipeline) fireInactive()          { p.inactive(p.at(p.headIn[evInactive])) }
func (p *Pipeline) fireError(err error)    { p.error(p.at(p.headIn[evError]), err) }
func (p *Pipeline) fireReadClosed()        { p.readClosed(p.at(p.headIn[evReadClosed])) }
func (p *Pipeline) fireWritability(w bool) { p.writability(p.at(p.headIn[evWritability]), w) }
func (p *Pipeline) fireUserEvent(ev any)   { p.userEvent(p.at(p.headIn[evUserEvent]), ev) }
func (p *Pipeline) writeAll(msg any) error { return p.write(p.at(p.tailOut[evWrite]), msg) }
func (p *Pipeline) flushAll()              { p.flush(p.at(p.tailOut[evFlush])) }
