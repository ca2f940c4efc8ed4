package eventloop

// A Handler is a stage of a connection's pipeline: any value that
// implements one or more of the event interfaces below (ActiveHandler,
// ReadHandler, …, WriteHandler, FlushHandler). The pipeline calls a handler
// only for the events it implements, and links each event straight to the
// next handler that implements it: an event never visits handlers that
// ignore it. Handlers run on the connection's loop, one event at a time.
//
// Listen and Dial take either an Initializer, called for each new
// connection to build its pipeline, or a Handler, added to every
// connection's pipeline under the name "handler" — one value shared by all
// connections, so it must keep per-connection state in Conn.SetValue.
//
// A panic in a handler is recovered: the connection is closed (its
// OnInactive still runs) and the panic goes to Config.OnPanic; the loop and
// its other connections go on.
type Handler any

// An Initializer builds the pipeline of each new connection, on its loop,
// before OnActive: typically c.Pipeline().AddLast(…) of handlers made for
// this connection.
type Initializer func(c *Conn)

// Inbound events, from the socket toward the tail of the pipeline.
type (
	// ActiveHandler is told that the connection is open.
	ActiveHandler interface{ OnActive(x *Context) }
	// ReadHandler receives messages. The first handler receives the
	// connection's inbound *buf.Composite after each read: it consumes the
	// bytes it uses (Next, NextRetained, Discard, Read …) and leaves the
	// rest, a partial message, for the next read; the composite is valid
	// only during the call. Handlers fire what they decode onward with
	// x.FireRead; a *buf.Buffer message belongs to the handler that
	// receives it, which releases it or passes it on (the tail releases
	// what nobody took).
	ReadHandler interface{ OnRead(x *Context, msg any) }
	// ReadCompleteHandler is told that a read event has delivered all it
	// read: the moment to Flush what the reads produced.
	ReadCompleteHandler interface{ OnReadComplete(x *Context) }
	// WritabilityHandler is told when the outbound bytes cross the water
	// marks (WithWaterMarks): writable false above the high mark, true
	// again below the low one.
	WritabilityHandler interface {
		OnWritabilityChanged(x *Context, writable bool)
	}
	// UserEventHandler receives the events fired with FireUserEvent.
	UserEventHandler interface{ OnUserEvent(x *Context, ev any) }
	// ErrorHandler is told of an error on the connection: a reset peer, a
	// failed write, ErrIdleTimeout, ErrInboundFull, or an error a handler
	// fired. It is reported once per cause; the connection closes after a
	// socket error whether or not a handler is listening.
	ErrorHandler interface{ OnError(x *Context, err error) }
	// ReadClosedHandler is told that the peer has shut down its writing
	// half (a FIN): nothing more will be read, and the connection can still
	// write. If no handler implements it, the tail closes the connection
	// (after flushing); WithCloseOnReadClosed closes it without the event.
	ReadClosedHandler interface{ OnReadClosed(x *Context) }
	// InactiveHandler is told, once, that the connection has closed.
	InactiveHandler interface{ OnInactive(x *Context) }
)

// Outbound events, from the tail toward the head, which writes to the
// socket.
type (
	// WriteHandler sees each message written and passes on what it
	// produces with x.Write (or drops it: then it releases it). The head
	// accepts *buf.Buffer (taking over the reference), *buf.Composite
	// (moving its readable bytes out without copying) and []byte (copied).
	WriteHandler interface {
		OnWrite(x *Context, msg any) error
	}
	// FlushHandler sees each Flush and passes it on with x.Flush.
	FlushHandler interface{ OnFlush(x *Context) }
)
