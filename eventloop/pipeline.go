package eventloop

import (
	"errors"
	"fmt"
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
// firing an event is one pointer load and one call.
type Context struct {
	p          *Pipeline
	name       string
	h          Handler
	mask       uint16
	removed    bool
	prev, next *Context
	in         [numIn]*Context
	out        [numOut]*Context
	// The handler as the interfaces of the frequent events (nil where it
	// does not implement them); the others are asserted when fired.
	read     ReadHandler
	complete ReadCompleteHandler
	write    WriteHandler
	flush    FlushHandler
}

// Conn returns the connection of x's pipeline.
func (x *Context) Conn() *Conn { return x.p.c }

// Name returns the name x's handler was added under.
func (x *Context) Name() string { return x.name }

// Handler returns x's handler.
func (x *Context) Handler() Handler { return x.h }

// FireActive passes the active event to the next handler that handles it.
func (x *Context) FireActive() {
	n := x.in[evActive]
	n.h.(ActiveHandler).OnActive(n)
}

// FireRead passes msg to the next ReadHandler.
func (x *Context) FireRead(msg any) {
	n := x.in[evRead]
	n.read.OnRead(n, msg)
}

// FireReadComplete passes the read-complete event on.
func (x *Context) FireReadComplete() {
	n := x.in[evReadComplete]
	n.complete.OnReadComplete(n)
}

// FireWritabilityChanged passes a writability change on.
func (x *Context) FireWritabilityChanged(writable bool) {
	n := x.in[evWritability]
	n.h.(WritabilityHandler).OnWritabilityChanged(n, writable)
}

// FireUserEvent passes ev to the next UserEventHandler.
func (x *Context) FireUserEvent(ev any) {
	n := x.in[evUserEvent]
	n.h.(UserEventHandler).OnUserEvent(n, ev)
}

// FireError passes err to the next ErrorHandler.
func (x *Context) FireError(err error) {
	n := x.in[evError]
	n.h.(ErrorHandler).OnError(n, err)
}

// FireReadClosed passes the read-closed event on.
func (x *Context) FireReadClosed() {
	n := x.in[evReadClosed]
	n.h.(ReadClosedHandler).OnReadClosed(n)
}

// FireInactive passes the inactive event on.
func (x *Context) FireInactive() {
	n := x.in[evInactive]
	n.h.(InactiveHandler).OnInactive(n)
}

// Write passes msg to the next WriteHandler toward the head, which queues
// it on the connection (see WriteHandler for the messages the head takes).
// It takes over msg: on an error a *buf.Buffer or *buf.Composite message has
// been released.
func (x *Context) Write(msg any) error {
	n := x.out[evWrite]
	return n.write.OnWrite(n, msg)
}

// Flush passes a flush toward the head, which writes what is queued.
func (x *Context) Flush() {
	n := x.out[evFlush]
	n.flush.OnFlush(n)
}

// Close closes the connection (see Conn.Close).
func (x *Context) Close() error { return x.p.c.Close() }

// A Pipeline is a connection's chain of handlers, between a head (the
// socket) and a tail (which ends events nobody handled). Its methods run on
// the connection's loop (in an Initializer, a handler, or Conn.Execute);
// changes take effect for the next event fired.
type Pipeline struct {
	c          *Conn
	head, tail Context
	n          int
}

// Errors of Pipeline's methods.
var (
	errDuplicateName = errors.New("eventloop: pipeline already has a handler of that name")
	errNoSuchName    = errors.New("eventloop: pipeline has no handler of that name")
	errNoEvents      = errors.New("eventloop: handler implements none of the event interfaces")
)

func (p *Pipeline) init(c *Conn) {
	p.c = c
	p.head = Context{p: p, name: "head", h: headHandler{}, mask: 1<<(numIn+evWrite) | 1<<(numIn+evFlush)}
	p.tail = Context{p: p, name: "tail", h: tailHandler{}, mask: 1<<numIn - 1}
	p.head.write, p.head.flush = headHandler{}, headHandler{}
	p.tail.read, p.tail.complete = tailHandler{}, tailHandler{}
	p.head.next, p.tail.prev = &p.tail, &p.head
	p.relink()
}

// AddLast adds h, under name, just before the tail: it sees inbound events
// after every handler already there, outbound ones before them.
func (p *Pipeline) AddLast(name string, h Handler) error {
	return p.insert(name, h, p.tail.prev)
}

// AddFirst adds h, under name, just after the head.
func (p *Pipeline) AddFirst(name string, h Handler) error {
	return p.insert(name, h, &p.head)
}

func (p *Pipeline) insert(name string, h Handler, after *Context) error {
	p.mustOnLoop()
	if p.find(name) != nil {
		return fmt.Errorf("%w: %q", errDuplicateName, name)
	}
	x, err := p.newContext(name, h)
	if err != nil {
		return err
	}
	x.prev, x.next = after, after.next
	after.next.prev = x
	after.next = x
	p.n++
	p.relink()
	return nil
}

func (p *Pipeline) newContext(name string, h Handler) (*Context, error) {
	m := mask(h)
	if m == 0 {
		return nil, fmt.Errorf("%w: %q (%T)", errNoEvents, name, h)
	}
	x := &Context{p: p, name: name, h: h, mask: m}
	x.read, _ = h.(ReadHandler)
	x.complete, _ = h.(ReadCompleteHandler)
	x.write, _ = h.(WriteHandler)
	x.flush, _ = h.(FlushHandler)
	return x, nil
}

// Remove takes the handler named name out of the pipeline and returns it.
func (p *Pipeline) Remove(name string) (Handler, error) {
	p.mustOnLoop()
	x := p.find(name)
	if x == nil {
		return nil, fmt.Errorf("%w: %q", errNoSuchName, name)
	}
	x.prev.next, x.next.prev = x.next, x.prev
	x.removed = true
	p.n--
	p.relink()
	return x.h, nil
}

// Replace puts h, under newName, where the handler named name was, and
// returns the old handler.
func (p *Pipeline) Replace(name, newName string, h Handler) (Handler, error) {
	p.mustOnLoop()
	old := p.find(name)
	if old == nil {
		return nil, fmt.Errorf("%w: %q", errNoSuchName, name)
	}
	if newName != name && p.find(newName) != nil {
		return nil, fmt.Errorf("%w: %q", errDuplicateName, newName)
	}
	x, err := p.newContext(newName, h)
	if err != nil {
		return nil, err
	}
	x.prev, x.next = old.prev, old.next
	old.prev.next, old.next.prev = x, x
	old.removed = true
	p.relink()
	return old.h, nil
}

// Get returns the handler named name, or nil.
func (p *Pipeline) Get(name string) Handler {
	if x := p.find(name); x != nil {
		return x.h
	}
	return nil
}

// Context returns the context of the handler named name, or nil.
func (p *Pipeline) Context(name string) *Context { return p.find(name) }

// Names returns the handlers' names from head to tail.
func (p *Pipeline) Names() []string {
	names := make([]string, 0, p.n)
	for x := p.head.next; x != &p.tail; x = x.next {
		names = append(names, x.name)
	}
	return names
}

func (p *Pipeline) find(name string) *Context {
	for x := p.head.next; x != &p.tail; x = x.next {
		if x.name == name {
			return x
		}
	}
	return nil
}

func (p *Pipeline) mustOnLoop() {
	if p.c.loop != nil && !p.c.loop.InLoop() {
		panic("eventloop: Pipeline used outside the connection's loop (use Conn.Execute)")
	}
}

// relink recomputes every context's links: O(handlers × events), paid when
// the pipeline changes, never when an event fires. A removed context keeps
// its links, so a handler that removes itself and then fires an event
// still reaches the handlers after it.
func (p *Pipeline) relink() {
	var in [numIn]*Context
	for e := range in {
		in[e] = &p.tail
	}
	for x := p.tail.prev; x != nil; x = x.prev {
		x.in = in
		for e := range in {
			if x.mask&(1<<e) != 0 {
				in[e] = x
			}
		}
	}
	var out [numOut]*Context
	for e := range out {
		out[e] = &p.head
	}
	for x := p.head.next; x != nil; x = x.next {
		x.out = out
		for e := range out {
			if x.mask&(1<<(numIn+e)) != 0 {
				out[e] = x
			}
		}
	}
}

// fire* start events at the head.
func (p *Pipeline) fireRead(msg any)       { p.head.FireRead(msg) }
func (p *Pipeline) fireReadComplete()      { p.head.FireReadComplete() }
func (p *Pipeline) fireActive()            { p.head.FireActive() }
func (p *Pipeline) fireInactive()          { p.head.FireInactive() }
func (p *Pipeline) fireError(err error)    { p.head.FireError(err) }
func (p *Pipeline) fireReadClosed()        { p.head.FireReadClosed() }
func (p *Pipeline) fireWritability(w bool) { p.head.FireWritabilityChanged(w) }
func (p *Pipeline) write(msg any) error    { return p.tail.Write(msg) }
func (p *Pipeline) flush()                 { p.tail.Flush() }
