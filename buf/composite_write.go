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
	c.bufs = c.bufs[:0]
	if c.r == c.w {
		return c.bufs
	}
	if len(c.rp) > 0 {
		c.bufs = append(c.bufs, c.rp)
	}
	for j := c.cur + 1; j < len(c.comps); j++ {
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
// net.Buffers.WriteTo (writev for the standard library's connections,
// one Write per component for other writers). A short write without an
// error reports io.ErrShortWrite.
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
	bufs := c.Buffers()
	n, err := bufs.WriteTo(w)
	c.Discard(int(n))
	if err == nil && c.r != c.w {
		err = io.ErrShortWrite
	}
	return n, err
}

// writev writes through w's descriptor. done is false when the descriptor
// cannot be used (no writev on this system, or no raw access), and nothing
// has been written.
func (c *Composite) writev(sc syscall.Conn) (n int64, err error, done bool) {
	rc, err := sc.SyscallConn()
	if err != nil {
		return 0, nil, false
	}
	if c.iov == nil {
		c.iov = new(iovec.Array)
	}
	unsupported := false
	for c.r < c.w && err == nil {
		var wrote int
		var werr error
		cerr := rc.Write(func(fd uintptr) bool {
			wrote, werr = c.iov.Writev(fd, c.Buffers())
			for iovec.Retry(werr) {
				wrote, werr = c.iov.Writev(fd, c.Buffers())
			}
			return !iovec.Wait(werr) // false: wait until writable, then again
		})
		if werr == iovec.ErrUnsupported {
			unsupported = true
			break
		}
		if wrote > 0 {
			n += int64(wrote)
			c.Discard(wrote)
		}
		switch {
		case werr != nil:
			err = werr
		case cerr != nil:
			err = cerr
		case wrote == 0:
			err = io.ErrShortWrite
		}
	}
	if unsupported && n == 0 {
		return 0, nil, false
	}
	return n, err, true
}
