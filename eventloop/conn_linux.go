//go:build linux

package eventloop

import (
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/internal/rt/iovec"
)

// errAgain is the error of a read or write the socket cannot take now.
const errAgain = unix.EAGAIN

// loopConns is a loop's share of the connection machinery: its open
// connections, a free list of emptied composites, and the iovec array of
// its writes. Only the loop touches it.
type loopConns struct {
	list  []*Conn
	comps []*buf.Composite
	iov   iovec.Array
}

// maxFreeComposites bounds a loop's free list of composites.
const maxFreeComposites = 256

func (lc *loopConns) composite() *buf.Composite {
	if n := len(lc.comps); n > 0 {
		c := lc.comps[n-1]
		lc.comps[n-1] = nil
		lc.comps = lc.comps[:n-1]
		return c
	}
	return buf.NewComposite()
}

// putComposite empties c (releasing what it holds) and keeps it for reuse.
func (lc *loopConns) putComposite(c *buf.Composite) {
	c.Discard(c.Len())
	if len(lc.comps) < maxFreeComposites && c.NumComponents() == 0 {
		lc.comps = append(lc.comps, c)
		return
	}
	c.Release()
}

// writevViews, when set (by tests), is told how many views of the
// outbound queue each writev was given.
var writevViews atomic.Pointer[func(views int)]

// writev writes c's first readable bytes to fd, at most iovec.Max
// components (IOV_MAX) of them: n bytes written, errAgain when the socket
// is full, or the system call's error. Taking views of the first
// components only keeps a flush of a long queue linear: views of the
// whole queue per call made it quadratic.
func (lc *loopConns) writev(fd int, c *buf.Composite) (int, error) {
	for {
		bufs := c.BuffersN(iovec.Max)
		if f := writevViews.Load(); f != nil {
			(*f)(len(bufs))
		}
		n, err := lc.iov.WritevNonblock(uintptr(fd), bufs)
		if err == unix.EINTR {
			continue
		}
		return n, err
	}
}

// registerConn adds c to the loop's epoll set and its list (on the loop).
func (l *Loop) registerConn(c *Conn) error {
	if err := l.register(c.fd, c.interest, c); err != nil {
		return err
	}
	c.slot = int32(len(l.conns.list))
	l.conns.list = append(l.conns.list, c)
	return nil
}

// unregisterConn undoes registerConn.
func (l *Loop) unregisterConn(c *Conn) {
	l.unregister(c.fd)
	list := l.conns.list
	if int(c.slot) < len(list) && list[c.slot] == c {
		last := list[len(list)-1]
		list[c.slot] = last
		last.slot = c.slot
		list[len(list)-1] = nil
		l.conns.list = list[:len(list)-1]
	}
}

// closeConns closes every connection of the loop as it stops.
func (l *Loop) closeConns() {
	for len(l.conns.list) > 0 {
		l.conns.list[len(l.conns.list)-1].closeNow(ErrClosed)
	}
}
