package buf

import (
	"io"
	"syscall"

	"github.com/netkit/netkit/internal/rt/iovec"
)

// Buffers returns the readable bytes as views of the components, one slice
// per component, for a gathered write. Buffers consumes nothing; after
// writing, Discard what was written. The result is a [][]byte, not a
// net.Buffers, so that programs using buf do not link package net; it has
// net.Buffers' underlying type and so converts (or assigns) to it, whose
// WriteTo hands the views to writev where the connection supports it:
//
//	bufs := net.Buffers(c.Buffers())
//	n, err := bufs.WriteTo(conn)
//	c.Discard(int(n))
//
// The views alias component memory and are valid until the next Discard or
// Release; the slice holding them is reused by the next call to Buffers.
// It allocates only to grow that slice.
func (c *Composite) Buffers() [][]byte {
	c.check()
	return c.buffers(len(c.comps))
}

// BuffersN returns the first views of Buffers, at most n of them (n ≥ 1),
// in the same slice that Buffers reuses: for a gathered write that can
// take only so many (writev takes IOV_MAX, iovec.Max here), BuffersN costs
// O(n) where Buffers costs O(components), so that writing a long queue
// call by call stays linear. The views' lifetime is Buffers'. It panics if
// n < 1.
func (c *Composite) BuffersN(n int) [][]byte {
	c.check()
	if n < 1 {
		panic("buf: Composite.BuffersN with a count below 1")
	}
	return c.buffers(n)
}

// buffers returns the views of Buffers, at most k ≥ 1 of them: writev
// takes iovec.Max per call, and building views of every component for
// each call would make WriteTo quadratic in the number of components.
func (c *Composite) buffers(k int) [][]byte {
	c.bufs = c.bufs[:0]
	if c.r == c.w {
		return c.bufs
	}
	if len(c.rp) > 0 {
		c.bufs = append(c.bufs, c.rp)
	}
	for j := c.cur + 1; j < len(c.comps) && len(c.bufs) < k; j++ {
		c.bufs = append(c.bufs, c.comps[j].p)
	}
	return c.bufs
}

// WriteTo implements io.WriterTo: it writes the readable bytes to w and
// consumes and releases what was written, as Discard does. A component
// written in full is released; one written in part keeps its remainder for
// the next call.
//
// WriteTo is for streams of bytes: it may split the bytes over several
// writes, which a datagram socket would send as separate messages.
// When w exposes its file descriptor (syscall.Conn: *net.TCPConn,
// *net.UnixConn, *os.File, …) on Linux, darwin or OpenBSD, WriteTo passes
// up to 1024 components per writev(2) call straight from component memory,
// resumes after partial writes, and waits through the runtime's poller
// while a non-blocking descriptor is full (with internal/rt's pure-Go twins,
// Linux gets one write(2) per component instead of the writev). It checks once per connection
// that a socket is a stream socket and returns ErrNotStream, writing
// nothing, for a datagram or other message socket. Any other writer,
// which must be a stream of bytes too, gets one Write per component. A
// short write without an error stops the write and reports
// io.ErrShortWrite; a Write that reports more bytes than it was given
// panics, as Buffer.WriteTo does.
//
// To write again without allocating (the standard library's SyscallConn
// allocates a RawConn per call), WriteTo keeps the connection it last
// wrote to through a descriptor and that connection's RawConn, and uses
// the RawConn again while w is the same connection (w == the kept one).
// It so assumes what holds for the standard library's connections and
// files: a RawConn stays valid for as long as its connection lives, and
// reports an error once the connection is closed. Connections whose
// values cannot be compared with == (a struct holding a slice, say) are
// not kept; writing to them costs a SyscallConn call each time.
//
// The composite keeps that connection reachable: until WriteTo writes to
// another descriptor, Discard(c.Len()) empties c, or Release, the
// connection is not garbage-collected. A composite that outlives its
// connection, in a free list for instance, should be emptied or released
// when the connection is closed. Closing is the owner's job either way:
// a kept connection that was closed holds memory only, not its descriptor.
func (c *Composite) WriteTo(w io.Writer) (int64, error) {
	c.check()
	if c.r == c.w {
		c.releaseRead()
		return 0, nil
	}
	if sc, ok := w.(syscall.Conn); ok {
		if n, err, done := c.writev(sc); done {
			return n, err
		}
	}
	n, err := c.writeEach(w)
	if err == nil && c.r != c.w {
		err = io.ErrShortWrite
	}
	return n, err
}

// writeEach writes the views to w, one Write each, consuming what was
// written, and stops at the first error or short write, so that the n
// bytes written are the first n. (After a short write without an error
// net.Buffers.WriteTo goes on with the next slice: w would get bytes from
// the middle of the stream.)
func (c *Composite) writeEach(w io.Writer) (n int64, err error) {
	for _, p := range c.buffers(len(c.comps)) {
		m, err := w.Write(p)
		if m < 0 || m > len(p) {
			panic("buf: Write returned an invalid count")
		}
		n += int64(m)
		if err == nil && m != len(p) {
			err = io.ErrShortWrite
		}
		if err != nil {
			c.discard(int(n))
			return n, err
		}
	}
	c.discard(int(n))
	return n, nil
}

// A rawWriter is WriteTo's writev state, kept by the composite so that a
// write allocates nothing: the iovec array, the callback handed to
// RawConn.Write (bound once), and the connection last written to and its
// RawConn.
type rawWriter struct {
	c       *Composite
	iov     iovec.Array
	fn      func(fd uintptr) bool // write, bound once
	conn    syscall.Conn          // the connection last written to, or nil
	rc      syscall.RawConn       // conn's RawConn
	checked bool                  // conn is known to be a stream
	wrote   int
	err     error
}

// write is the RawConn.Write callback: one writev of up to iovec.Max
// views, retried on EINTR; false asks the poller to wait until the
// descriptor is writable. Its first call for a connection checks that the
// descriptor is a stream.
func (x *rawWriter) write(fd uintptr) bool {
	if !x.checked {
		if iovec.NotStream(fd) {
			x.err = ErrNotStream
			return true
		}
		x.checked = true
	}
	bufs := x.c.buffers(iovec.Max)
	x.wrote, x.err = x.iov.Writev(fd, bufs)
	for iovec.Retry(x.err) {
		x.wrote, x.err = x.iov.Writev(fd, bufs)
	}
	return !iovec.Wait(x.err)
}

// rawConn returns sc's RawConn, reusing the kept one while sc is the
// connection kept. A new connection replaces the kept one if its value
// can be compared: then the comparison in later calls cannot panic either
// (a value of the same dynamic type compares field by field against this
// one, whose fields all compare).
func (x *rawWriter) rawConn(sc syscall.Conn) (syscall.RawConn, error) {
	if x.conn != nil && x.conn == sc {
		return x.rc, nil
	}
	x.forget()
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	if equal(sc, sc) {
		x.conn, x.rc = sc, rc
	}
	return rc, nil
}

// equal reports whether a == b, and false where the comparison panics: when
// both hold, at some depth, values of the same type without == (a slice, a
// map, a func). equal(v, v) so tells whether v can be compared at all.
func equal(a, b syscall.Conn) (eq bool) {
	defer func() {
		if recover() != nil {
			eq = false
		}
	}()
	return a == b
}

// forget drops the connection and RawConn kept for the next write, and
// whether the connection was checked.
func (x *rawWriter) forget() {
	x.conn, x.rc, x.checked = nil, nil, false
}

// writev writes through w's descriptor. done is false when the descriptor
// cannot be used (no writev on this system, or no raw access), and nothing
// has been written.
func (c *Composite) writev(sc syscall.Conn) (n int64, err error, done bool) {
	x := c.raw
	if x == nil {
		x = &rawWriter{c: c}
		x.fn = x.write
		c.raw = x
	}
	rc, err := x.rawConn(sc)
	if err != nil {
		return 0, nil, false
	}
	unsupported := false
	for c.r < c.w && err == nil {
		x.wrote, x.err = 0, nil
		cerr := rc.Write(x.fn)
		wrote, werr := x.wrote, x.err
		x.err = nil
		if werr == iovec.ErrUnsupported {
			unsupported = true
			break
		}
		if wrote > 0 {
			n += int64(wrote)
			c.discard(wrote)
		}
		switch {
		case werr == ErrNotStream:
			err = werr // nothing written: the check comes first
		case cerr != nil:
			// The poller's error (deadline, close) ends a wait after
			// EAGAIN: werr is that EAGAIN, which is not the reason.
			err = cerr
		case werr != nil:
			err = werr
		case wrote == 0:
			err = io.ErrShortWrite
		}
	}
	if unsupported && n == 0 {
		return 0, nil, false
	}
	return n, err, true
}
