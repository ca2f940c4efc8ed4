package buf

import (
	"io"
	"net"
	"syscall"

	"github.com/netkit/netkit/internal/iovec"
)

// Buffers returns the readable bytes as views of the components, one slice
// per component, for a net.Conn: net.Buffers.WriteTo hands them to writev
// when the connection supports it. Buffers consumes nothing; after writing,
// Discard what was written:
//
//	bufs := c.Buffers()
//	n, err := bufs.WriteTo(conn)
//	c.Discard(int(n))
//
// The views alias component memory and are valid until the next Discard or
// Release; the slice holding them is reused by the next call to Buffers.
// It allocates only to grow that slice.
func (c *Composite) Buffers() net.Buffers {
	c.check()
	return c.buffers(len(c.comps))
}

// buffers returns the views of Buffers, at most k ≥ 1 of them: writev
// takes iovec.Max per call, and building views of every component for
// each call would make WriteTo quadratic in the number of components.
func (c *Composite) buffers(k int) net.Buffers {
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
// When w exposes its file descriptor (syscall.Conn: *net.TCPConn,
// *net.UnixConn, *os.File, …) on Linux, WriteTo passes up to 1024
// components per writev(2) call straight from component memory, resumes
// after partial writes, and waits through the runtime's poller while a
// non-blocking descriptor is full. Otherwise it falls back to
// net.Buffers.WriteTo for a syscall.Conn (writev for the standard
// library's connections) and to one Write per component for other
// writers. A short write without an error stops the write and reports
// io.ErrShortWrite.
func (c *Composite) WriteTo(w io.Writer) (int64, error) {
	c.check()
	if c.r == c.w {
		c.releaseRead()
		return 0, nil
	}
	sc, isConn := w.(syscall.Conn)
	if isConn {
		if n, err, done := c.writev(sc); done {
			return n, err
		}
	}
	var n int64
	var err error
	if isConn {
		// net's connections write these with writev where the path above
		// is not available.
		bufs := c.Buffers()
		n, err = bufs.WriteTo(w)
	} else {
		n, err = writeEach(w, c.Buffers())
	}
	c.discard(int(n))
	if err == nil && c.r != c.w {
		err = io.ErrShortWrite
	}
	return n, err
}

// writeEach writes bufs to w, one Write each, and stops at the first error
// or short write, so that the n bytes written are the first n. (After a
// short write without an error net.Buffers.WriteTo goes on with the next
// slice: w would get bytes from the middle of the stream.)
func writeEach(w io.Writer, bufs [][]byte) (n int64, err error) {
	for _, p := range bufs {
		m, err := w.Write(p)
		n += int64(m)
		if err != nil {
			return n, err
		}
		if m != len(p) {
			return n, io.ErrShortWrite
		}
	}
	return n, nil
}

// A rawWriter is WriteTo's writev state, kept by the composite so that a
// write allocates nothing: the iovec array, the callback handed to
// RawConn.Write (bound once), and the RawConn of the last connection
// written to.
type rawWriter struct {
	c     *Composite
	iov   iovec.Array
	fn    func(fd uintptr) bool // write, bound once
	conn  syscall.Conn          // the connection rc belongs to (a pointer)
	rc    syscall.RawConn
	wrote int
	err   error
}

// write is the RawConn.Write callback: one writev of up to iovec.Max
// views, retried on EINTR; false asks the poller to wait until the
// descriptor is writable.
func (x *rawWriter) write(fd uintptr) bool {
	bufs := x.c.buffers(iovec.Max)
	x.wrote, x.err = x.iov.Writev(fd, bufs)
	for iovec.Retry(x.err) {
		x.wrote, x.err = x.iov.Writev(fd, bufs)
	}
	return !iovec.Wait(x.err)
}

// rawConn returns sc's RawConn, reusing the last one for the standard
// library's connections (whose SyscallConn allocates).
func (x *rawWriter) rawConn(sc syscall.Conn) (syscall.RawConn, error) {
	if x.rc != nil && x.conn == sc {
		return x.rc, nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	switch sc.(type) {
	case *net.TCPConn, *net.UnixConn:
		// Pointers: comparable, and the same connection next time.
		x.conn, x.rc = sc, rc
	}
	return rc, nil
}

// forget drops the connection and RawConn kept for the next write.
func (x *rawWriter) forget() { x.conn, x.rc = nil, nil }

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
