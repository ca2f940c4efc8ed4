package http1

import (
	"sync/atomic"
	"time"

	"github.com/netkit/netkit/codec/httpdate"
)

// A DateCache holds the value of a response's Date field (RFC 9110
// §6.6.1), an IMF-fixdate such as "Sun, 06 Nov 1994 08:49:37 GMT",
// formatted once per second instead of once per response.
//
// There are two ways to use it. A server with a once-per-second timer (an
// event loop) calls Update from the timer and AppendCached per response,
// which costs one atomic load and a 29-byte copy and never reads the
// clock. Any other caller passes the time to Append, which reformats only
// when its second differs from the cached one.
//
// A DateCache is safe for concurrent use: the cached date is an immutable
// value behind an atomic pointer, replaced (one 64-byte allocation) when
// the second changes. Readers never wait, and a reader racing an update
// gets the old date or the new one, never a mix. The atomic load costs
// what a plain one does on amd64, so per-loop instances without atomics
// would save nothing measurable; one DateCache per event loop still keeps
// the pointer's cache line local to the loop's core, and one shared by
// all is correct too. The zero value is ready to use. BenchmarkDateCache
// compares the two ways with time's AppendFormat per response.
type DateCache struct {
	v atomic.Pointer[cachedDate]
}

type cachedDate struct {
	sec int64
	b   []byte   // the formatted date: arr[:29], or longer for a year past 9999
	arr [29]byte // room for the usual date, in the same allocation
}

// Update caches now's date unless the cached one is of the same second.
func (c *DateCache) Update(now time.Time) { c.load(now) }

// load returns the date of now's second, formatting it if needed.
func (c *DateCache) load(now time.Time) *cachedDate {
	sec := now.Unix()
	if d := c.v.Load(); d != nil && d.sec == sec {
		return d
	}
	d := &cachedDate{sec: sec}
	d.b = httpdate.Append(d.arr[:0], now)
	c.v.Store(d)
	return d
}

// Append appends the IMF-fixdate of now and returns the extended slice.
// It formats (with httpdate.Append) only when now's second differs from
// the cached one, and caches the result; otherwise it copies the cached
// bytes. It allocates only when dst must grow, or once when the second
// changes.
func (c *DateCache) Append(dst []byte, now time.Time) []byte {
	return append(dst, c.load(now).b...)
}

// AppendCached appends the date cached by the last Update or Append,
// without reading the clock, and returns the extended slice: how stale it
// may be is up to the caller's timer. On a DateCache never updated it
// caches time.Now first. It allocates only when dst must grow.
func (c *DateCache) AppendCached(dst []byte) []byte { return append(dst, c.cached()...) }

// cached returns the cached date's bytes, read-only, updating from the
// clock on a DateCache never updated.
func (c *DateCache) cached() []byte {
	d := c.v.Load()
	if d == nil {
		d = c.load(time.Now())
	}
	return d.b
}
