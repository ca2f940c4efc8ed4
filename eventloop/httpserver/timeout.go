package httpserver

import (
	"errors"
	"time"

	"github.com/netkit/netkit/codec/http1"
)

// The timeouts' defaults: every connection has them unless an option
// changes them.
const (
	// DefaultReadHeaderTimeout bounds the arrival of a request's head,
	// from the connection's opening for the first request and from the
	// first byte of the head for the others.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultIdleTimeout bounds the wait for the next request on a
	// keep-alive connection with nothing in progress.
	DefaultIdleTimeout = 90 * time.Second
	// DefaultBodyTimeout bounds the time between two reads of a
	// request's body while it arrives: a slow upload that keeps sending
	// is not cut, one that stalls is.
	DefaultBodyTimeout = 30 * time.Second
	// DefaultWriteTimeout bounds the time the server waits, with
	// responses to send, for the client to take a byte of them.
	DefaultWriteTimeout = 30 * time.Second
)

// WithReadHeaderTimeout sets how long a request's head may take to
// arrive, from the connection's opening for its first request and from
// the head's first byte for the others; a head still incomplete then is
// answered 408 and the connection closes (a slowloris trickle ends
// there). 0 means DefaultReadHeaderTimeout; a negative d turns it off.
func WithReadHeaderTimeout(d time.Duration) Option {
	return func(o *options) { o.timeouts.header = d }
}

// WithIdleTimeout sets how long a keep-alive connection may wait for its
// next request with nothing in progress (no request partly received, no
// response being computed or sent) before the server closes it. 0 means
// DefaultIdleTimeout; a negative d turns it off.
func WithIdleTimeout(d time.Duration) Option {
	return func(o *options) { o.timeouts.idle = d }
}

// WithBodyTimeout sets how long a request's body may go without a byte
// arriving: it measures bytes received, not the time the whole body
// takes, so a large upload over a slow link is not cut while it moves.
// A stalled body is answered 408 and the connection closes. 0 means
// DefaultBodyTimeout; a negative d turns it off.
func WithBodyTimeout(d time.Duration) Option {
	return func(o *options) { o.timeouts.body = d }
}

// WithWriteTimeout sets how long the server waits, with responses
// queued, for the client to take at least one byte of them; a client
// that stops reading is disconnected then (a slow reader that keeps
// reading is not). 0 means DefaultWriteTimeout; a negative d turns it
// off.
func WithWriteTimeout(d time.Duration) Option {
	return func(o *options) { o.timeouts.write = d }
}

// ErrWriteTimeout is what a connection whose client took nothing of its
// responses for the write timeout is closed with (the pipeline's OnError
// sees it).
var ErrWriteTimeout = errors.New("httpserver: the client read nothing for the write timeout")

// timeouts are the four limits, resolved: 0 is off.
type timeouts struct {
	header, idle, body, write time.Duration
}

// resolve turns the options' values (0: default, negative: off) into
// the limits.
func (t timeouts) resolve() timeouts {
	pick := func(d, def time.Duration) time.Duration {
		switch {
		case d == 0:
			return def
		case d < 0:
			return 0
		}
		return d
	}
	return timeouts{
		header: pick(t.header, DefaultReadHeaderTimeout),
		idle:   pick(t.idle, DefaultIdleTimeout),
		body:   pick(t.body, DefaultBodyTimeout),
		write:  pick(t.write, DefaultWriteTimeout),
	}
}

// What a connection is waiting for, for its read timeouts.
const (
	phHead uint8 = iota // a request's head (the first one: from the opening)
	phIdle              // the next request, with nothing in progress
	phBody              // the rest of a request's body
	phNone              // nothing of the client: closing, or a detached answer is awaited
)

// requestTimeout answers a request whose head or body took too long.
var requestTimeout = http1.ResponseHeader{Status: 408, Close: true, ContentType: "text/plain; charset=utf-8"}

// start times a new connection's first request head from now.
func (c *conn) start() {
	now := c.now()
	c.phase, c.since, c.lastRead = phHead, now, now
	if d := c.s.timeouts.header; d > 0 {
		c.timerAt = now + int64(d)
		c.timer = c.cn.Loop().Schedule(d, c.expire)
	}
}

// now is the loop's clock, in nanoseconds.
func (c *conn) now() int64 { return c.cn.Loop().Now().UnixNano() }

// settle notes what the connection waits for, given the bytes of input
// left unparsed, and makes sure the timer looks in time. The timer is
// lazy: moving a deadline later costs nothing (the pending check finds
// the new one and sleeps again), only moving it earlier reschedules.
func (c *conn) settle(inLen int) {
	c.inLen = inLen
	t := &c.s.timeouts
	now := c.clock // one clock read per read event: OnRead's
	if now == 0 {
		now = c.now()
	}
	c.clock = 0
	ph := phNone
	switch {
	case c.bodyNext && c.pipe != nil && c.pipe.paused:
		// The Handler's goroutine reads the body slower than it comes:
		// the wait is this side's.
	case c.bodyNext:
		ph = phBody
	case c.closing || c.waiting > 0 || c.dead || c.paused || c.heldBack:
		// Waiting on this side (a detached answer, a client that does
		// not read its responses: the write timeout's business), or
		// ending.
	case inLen == 0:
		ph = phIdle
	case c.dec.InBody():
		ph = phBody
	default:
		ph = phHead
	}
	switch {
	case ph == phBody:
		c.since = c.lastRead // progress is bytes received
	case ph != c.phase || c.reqs != c.reqsMark:
		c.since = now // a new wait: another phase, or another request
	case ph == phIdle && c.lastRead > c.since:
		c.since = c.lastRead // bytes that made no request yet
	}
	c.phase, c.reqsMark = ph, c.reqs
	if c.cn.Outbound() > 0 {
		if c.sentAt == 0 {
			c.sentAt, c.sentMark = now, c.sent()
		}
	} else {
		c.sentAt = 0
	}
	var limit time.Duration
	switch ph {
	case phHead:
		limit = t.header
	case phIdle:
		limit = t.idle
	case phBody:
		limit = t.body
	}
	due := int64(0)
	if limit > 0 {
		due = c.since + int64(limit)
	}
	if c.sentAt != 0 && t.write > 0 {
		if w := c.sentAt + int64(t.write); due == 0 || w < due {
			due = w
		}
	}
	if due == 0 {
		return // nothing to time: a timer pending finds that and stops
	}
	if c.timerAt != 0 && c.timerAt <= due {
		return // the pending timer fires first and looks again
	}
	if c.timerAt != 0 {
		c.timer.Cancel()
	}
	c.timerAt = due
	c.timer = c.cn.Loop().Schedule(time.Duration(due-now), c.expire)
}

// expire runs when the connection's timer fires: it ends the connection
// whose wait has passed its limit, else looks again later.
func (c *conn) expire() {
	c.timerAt = 0
	if c.dead || c.closeSent || c.upgraded {
		return
	}
	t := &c.s.timeouts
	now := c.now()
	if c.sentAt != 0 && t.write > 0 {
		if s := c.sent(); s != c.sentMark {
			c.sentAt, c.sentMark = now, s // the client took some
		} else if now-c.sentAt >= int64(t.write) {
			c.cn.Abort(ErrWriteTimeout) // it reads nothing: what is queued cannot go
			return
		}
	}
	switch c.phase {
	case phIdle:
		if t.idle > 0 && now-c.since >= int64(t.idle) {
			c.close(c.x)
			return
		}
	case phHead, phBody:
		limit := t.header
		if c.phase == phBody {
			limit = t.body
		}
		if limit > 0 && now-c.since >= int64(limit) {
			c.timedOut()
			return
		}
	}
	c.settle(c.inLen)
}

// timedOut answers 408 to a request whose head or body stalled and closes
// the connection after it.
func (c *conn) timedOut() {
	c.releasePending()
	c.closing, c.refused = true, true
	w := &c.w
	w.Begin(nil)
	h := requestTimeout
	w.Respond(&h, []byte("request timeout\n"))
	c.take(w)
	c.cn.Flush()
	c.close(c.x)
}
