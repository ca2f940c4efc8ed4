package httpserver

import (
	"errors"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec/http1"
	"github.com/netkit/netkit/eventloop"
)

// ErrUpgradeBusy is what Upgrade returns when the connection still waits
// for a detached response: the switch would overtake it. Answer the
// request normally (503, say) or have the client retry.
var ErrUpgradeBusy = errors.New("httpserver: Upgrade while a detached response is awaited")

// errUpgradeHTTP10 refuses an upgrade of an HTTP/1.0 request: 101 is
// HTTP/1.1's (RFC 9110 §15.2.2), and the writer sends no 1xx to 1.0.
var errUpgradeHTTP10 = errors.New("httpserver: Upgrade of an HTTP/1.0 request")

// errUpgradeHTTP2 refuses an upgrade of a request on an HTTP/2 stream:
// HTTP/2 has no Upgrade (RFC 9113 §8.6).
var errUpgradeHTTP2 = errors.New("httpserver: Upgrade of an HTTP/2 request")

// Upgrade switches the connection of the request being handled to
// another protocol (RFC 9110 §7.8): the path to WebSocket, or to h2c. It
// writes h as the 101 (Switching Protocols) response — its Status is set
// to 101; its Headers carry Upgrade and "Connection: upgrade" — and once
// the Handler returns and the responses before it are out, takes the HTTP
// handler out of the connection's pipeline and calls install with the
// pipeline, where the application adds its handlers (they get OnRead of
// the bytes that follow, and the connection's other events). The bytes
// the client sent after the request, the new protocol's first ones, are
// fired to them as a read at once.
//
// Call it from a Handler instead of writing a response. It returns
// ErrUpgradeBusy, writing nothing, while a detached request on the
// connection waits for its answer, an error for an HTTP/1.0 request (101
// is HTTP/1.1's) or an HTTP/2 one, and the writer's error when h cannot be written; the
// Handler then answers as usual. It panics when w is not
// the writer of a running Handler.
func Upgrade(w *http1.ResponseWriter, h *http1.ResponseHeader, install func(p *eventloop.Pipeline)) error {
	if _, ok := w.Owner.(*h2conn); ok {
		return errUpgradeHTTP2
	}
	c, ok := w.Owner.(*conn)
	if !ok || !c.cn.Loop().InLoop() || !c.inHandler {
		panic("httpserver: Upgrade called outside a Handler")
	}
	if c.waiting > 0 {
		return ErrUpgradeBusy
	}
	if c.req.Minor == 0 {
		return errUpgradeHTTP10
	}
	hh := *h
	hh.Status = 101
	if err := w.WriteHeader(&hh); err != nil {
		return err
	}
	c.upgrade = install
	return nil
}

// switchProtocol hands the connection to the handlers install adds,
// after the 101 went to the connection's queue: in holds the bytes after
// the request.
func (c *conn) switchProtocol(x *eventloop.Context, in *buf.Composite) {
	install := c.upgrade
	c.upgrade = nil
	c.upgraded = true
	if c.timerAt != 0 {
		c.timer.Cancel()
		c.timerAt = 0
	}
	c.req.Release()
	c.releasePending()
	x.Flush()
	p := x.Conn().Pipeline()
	install(p)
	if in.Len() > 0 {
		x.FireRead(in) // the handlers after this one: the new protocol's
	}
	p.Remove("http1")
}
