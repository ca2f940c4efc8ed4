//go:build linux || darwin || openbsd

package iovec_test

import (
	"bytes"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/rt/iovec"
	"github.com/netkit/netkit/internal/testenv"
)

// pipe returns a pipe whose write end is non-blocking; the test closes
// both ends.
func pipe(t *testing.T) (r, w *os.File, wfd uintptr) {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() {
		r.Close()
		w.Close()
	})
	rc, err := w.SyscallConn()
	require.NoError(t, err)
	require.NoError(t, rc.Control(func(fd uintptr) { wfd = fd }))
	require.NoError(t, syscall.SetNonblock(int(wfd), true))
	return r, w, wfd
}

// read returns n bytes from r.
func read(t *testing.T, r *os.File, n int) []byte {
	t.Helper()
	p := make([]byte, n)
	got := 0
	for got < n {
		m, err := r.Read(p[got:])
		require.NoError(t, err)
		got += m
	}
	return p
}

func TestWritevGathers(t *testing.T) {
	r, _, fd := pipe(t)
	var a iovec.Array
	bufs := [][]byte{[]byte("hello"), nil, []byte(", "), {}, []byte("world")}
	n, err := a.Writev(fd, bufs)
	require.NoError(t, err)
	require.Equal(t, 12, n)
	assert.Equal(t, "hello, world", string(read(t, r, n)))
}

func TestWritevNothing(t *testing.T) {
	_, _, fd := pipe(t)
	var a iovec.Array
	for _, bufs := range [][][]byte{nil, {nil, {}}} {
		n, err := a.Writev(fd, bufs)
		require.NoError(t, err)
		assert.Zero(t, n)
	}
}

// TestWritevMax checks that one call passes at most Max buffers.
func TestWritevMax(t *testing.T) {
	r, _, fd := pipe(t)
	bufs := make([][]byte, iovec.Max+10)
	for i := range bufs {
		bufs[i] = []byte{byte(i)}
	}
	var a iovec.Array
	n, err := a.Writev(fd, bufs)
	require.NoError(t, err)
	require.Equal(t, iovec.Max, n)
	got := read(t, r, n)
	for i, b := range got {
		require.Equal(t, byte(i), b, "byte %d", i)
	}
}

// TestWritevFull fills the pipe: the write that does not fit is partial,
// and the next reports EAGAIN, which Wait recognises.
func TestWritevFull(t *testing.T) {
	r, _, fd := pipe(t)
	var a iovec.Array
	big := bytes.Repeat([]byte("x"), 1<<16)
	total := 0
	var err error
	for range 1000 {
		var n int
		n, err = a.Writev(fd, [][]byte{big, big})
		total += n
		if err != nil {
			break
		}
		require.Positive(t, n, "a write without an error wrote nothing")
	}
	require.Error(t, err)
	assert.True(t, iovec.Wait(err), "error %v is not EAGAIN", err)
	assert.False(t, iovec.Retry(err))
	assert.Positive(t, total)
	assert.Equal(t, bytes.Repeat([]byte("x"), total), read(t, r, total))
}

// TestWritevClosed checks that an error other than EAGAIN and EINTR is
// wrapped as a syscall error.
func TestWritevClosed(t *testing.T) {
	r, _, fd := pipe(t)
	require.NoError(t, r.Close())
	var a iovec.Array
	n, err := a.Writev(fd, [][]byte{[]byte("x")})
	assert.Zero(t, n)
	var se *os.SyscallError
	require.ErrorAs(t, err, &se)
	assert.ErrorIs(t, err, syscall.EPIPE)
	assert.False(t, iovec.Wait(err))
	assert.False(t, iovec.Retry(err))
}

func TestWritevAllocs(t *testing.T) {
	testenv.SkipAllocs(t)
	r, _, fd := pipe(t)
	go func() {
		p := make([]byte, 4096)
		for {
			if _, err := r.Read(p); err != nil {
				return
			}
		}
	}()
	var a iovec.Array
	bufs := [][]byte{[]byte("abc"), []byte("def")}
	_, err := a.Writev(fd, bufs)
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := a.Writev(fd, bufs); err != nil && !iovec.Wait(err) {
			panic(err)
		}
	})
	assert.Zero(t, allocs)
}

// fd returns the descriptor of a syscall.Conn.
func fd(t *testing.T, c syscall.Conn) (fd uintptr) {
	t.Helper()
	rc, err := c.SyscallConn()
	require.NoError(t, err)
	require.NoError(t, rc.Control(func(d uintptr) { fd = d }))
	return fd
}

func TestNotStream(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	tcp, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer tcp.Close()
	udp, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	require.NoError(t, err)
	defer udp.Close()
	_, w, _ := pipe(t)

	assert.False(t, iovec.NotStream(fd(t, tcp.(*net.TCPConn))), "tcp")
	assert.False(t, iovec.NotStream(fd(t, w)), "pipe")
	assert.True(t, iovec.NotStream(fd(t, udp)), "udp")
}

// TestWritevNonblock: the raw path gathers, reports a full descriptor and
// a closed reader as Writev does.
func TestWritevNonblock(t *testing.T) {
	r, _, fd := pipe(t)
	var a iovec.Array
	n, err := a.WritevNonblock(fd, [][]byte{[]byte("hello"), nil, []byte(", world")})
	require.NoError(t, err)
	require.Equal(t, 12, n)
	assert.Equal(t, "hello, world", string(read(t, r, n)))

	big := bytes.Repeat([]byte("y"), 1<<16)
	total := 0
	for range 1000 {
		n, err = a.WritevNonblock(fd, [][]byte{big, big})
		total += n
		if err != nil {
			break
		}
	}
	require.Error(t, err)
	assert.True(t, iovec.Wait(err), "error %v is not EAGAIN", err)
	assert.Equal(t, bytes.Repeat([]byte("y"), total), read(t, r, total))

	require.NoError(t, r.Close())
	_, err = a.WritevNonblock(fd, [][]byte{[]byte("x")})
	var se *os.SyscallError
	require.ErrorAs(t, err, &se)
	assert.ErrorIs(t, err, syscall.EPIPE)
}
