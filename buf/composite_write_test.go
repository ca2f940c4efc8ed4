package buf_test

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/buf/buftest"
	"github.com/netkit/netkit/internal/testenv"
)

// cwComposed is a composite built by cwCompose together with what the
// test needs to check it: the bytes laid end to end and one extra reference
// to every appended buffer, so that the test can tell which ones the
// composite has released.
type cwComposed struct {
	c    *buf.Composite
	data []byte
	bufs []*buf.Buffer // retained once by cwCompose
	ends []int         // ends[k]: offset in data one past bufs[k]'s bytes
}

// cwCompose appends one pooled buffer per size, filled with random bytes.
// Each buffer is retained before it is appended; call done to check and
// drop those references.
func cwCompose(t *testing.T, rng *rand.Rand, sizes []int) *cwComposed {
	t.Helper()
	x := &cwComposed{c: buf.NewComposite()}
	for _, n := range sizes {
		p := make([]byte, n)
		for i := range p {
			p[i] = byte(rng.Uint32())
		}
		b := buf.Get(n)
		b.Write(p)
		x.bufs = append(x.bufs, b.Retain())
		x.c.Append(b)
		x.data = append(x.data, p...)
		x.ends = append(x.ends, len(x.data))
	}
	require.Equal(t, len(x.data), x.c.Len(), "composite of %d sizes: Len", len(sizes))
	return x
}

// checkReleased checks that the composite has released exactly the buffers
// whose bytes all lie before stream offset consumed: those have the test's
// reference only, the others the composite's as well.
func (x *cwComposed) checkReleased(t *testing.T, consumed int) {
	t.Helper()
	bad := 0
	for k, b := range x.bufs {
		want := 2
		if x.ends[k] <= consumed {
			want = 1
		}
		if got := b.RefCount(); got != want && bad < 5 {
			bad++
			t.Errorf("buffer %d (bytes %d…%d, %d consumed): RefCount %d, want %d",
				k, x.ends[k]-b.Len(), x.ends[k], consumed, got, want)
		}
	}
}

// done checks that every buffer has been released by the composite, drops
// the test's references and releases the composite.
func (x *cwComposed) done(t *testing.T) {
	t.Helper()
	x.checkReleased(t, len(x.data))
	for _, b := range x.bufs {
		b.Release()
	}
	x.c.Release()
}

// cwRemaining returns the composite's readable bytes as Buffers sees them.
func cwRemaining(c *buf.Composite) []byte {
	var p []byte
	for _, v := range c.Buffers() {
		p = append(p, v...)
	}
	return p
}

// cwMixedSizes returns component sizes from 1 byte to 64 KiB, spread
// evenly over the powers of two, adding up to at least total bytes.
func cwMixedSizes(rng *rand.Rand, total int) []int {
	var sizes []int
	for sum := 0; sum < total; {
		n := min(1+rng.IntN(1<<rng.IntN(17)), 64<<10)
		if rng.IntN(16) == 0 {
			n = 64 << 10
		}
		sizes = append(sizes, n)
		sum += n
	}
	return sizes
}

// cwEqual reports the first difference of got from want.
func cwEqual(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	t.Errorf("%s: %d bytes, want %d; first difference at byte %d", what, len(got), len(want), i)
}

// cwTCP returns the two ends of a loopback TCP connection.
func cwTCP(t testing.TB) (client, server *net.TCPConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		conn, err := ln.Accept()
		assert.NoError(t, err)
		accepted <- conn
	}()
	conn, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	srv := <-accepted
	if srv == nil {
		conn.Close()
		t.FailNow()
	}
	client, server = conn.(*net.TCPConn), srv.(*net.TCPConn)
	t.Cleanup(func() {
		client.Close()
		server.Close()
	})
	return client, server
}

// cwReadAll reads r to the end in a goroutine, chunk bytes per Read; the
// result arrives on the channel.
func cwReadAll(r io.Reader, chunk int) <-chan []byte {
	ch := make(chan []byte, 1)
	go func() {
		var got []byte
		p := make([]byte, chunk)
		for {
			n, err := r.Read(p)
			got = append(got, p[:n]...)
			if err != nil {
				ch <- got
				return
			}
		}
	}()
	return ch
}

// cwWriteAll writes x's composite to w with WriteTo while got collects
// what the other end reads, then closes w's side with closeW and checks
// that exactly want arrived, that the composite is empty and that every
// buffer was released.
func cwWriteAll(t *testing.T, x *cwComposed, w io.Writer, got <-chan []byte, closeW func() error, want []byte) {
	t.Helper()
	n, err := x.c.WriteTo(w)
	require.NoError(t, err, "WriteTo = %d, %v; want %d, nil", n, err, len(want))
	require.Equal(t, int64(len(want)), n, "WriteTo = %d, %v; want %d, nil", n, err, len(want))
	l := x.c.Len()
	assert.Equal(t, 0, l, "after WriteTo: Len %d, want 0", l)
	k := x.c.NumComponents()
	assert.Equal(t, 0, k, "after WriteTo: %d components held, want 0", k)
	closeW()
	cwEqual(t, "bytes received", <-got, want)
	x.done(t)
}

// cwWriteToConn writes x's composite to client with WriteTo while the
// server end is read to the end (cwWriteAll).
func cwWriteToConn(t *testing.T, x *cwComposed, client, server *net.TCPConn) {
	t.Helper()
	cwWriteAll(t, x, client, cwReadAll(server, 64<<10), client.CloseWrite, x.data)
}

// TestCompositeWriteToTCP writes several MiB of components from 1 byte to
// 64 KiB to a loopback socket, enough to fill the socket buffer, so that
// writev writes in part and WriteTo waits and resumes.
func TestCompositeWriteToTCP(t *testing.T) {
	buftest.CheckLeaks(t)
	rng := rand.New(rand.NewPCG(1, 2))
	x := cwCompose(t, rng, cwMixedSizes(rng, 6<<20))
	t.Logf("%d components, %d bytes", len(x.bufs), len(x.data))
	client, server := cwTCP(t)
	cwWriteToConn(t, x, client, server)
}

// TestCompositeWriteToManyComponents writes more components than one
// writev call takes (iovec.Max, 1024).
func TestCompositeWriteToManyComponents(t *testing.T) {
	buftest.CheckLeaks(t)
	rng := rand.New(rand.NewPCG(3, 4))
	sizes := make([]int, 3000)
	for i := range sizes {
		sizes[i] = 1 + rng.IntN(64)
	}
	x := cwCompose(t, rng, sizes)
	client, server := cwTCP(t)
	cwWriteToConn(t, x, client, server)
}

// TestCompositeWriteToSlowReader writes to a socket with a small send
// buffer whose peer reads a little at a time.
func TestCompositeWriteToSlowReader(t *testing.T) {
	buftest.CheckLeaks(t)
	rng := rand.New(rand.NewPCG(5, 6))
	x := cwCompose(t, rng, cwMixedSizes(rng, 1<<20))
	client, server := cwTCP(t)
	require.NoError(t, client.SetWriteBuffer(4096))
	cwWriteAll(t, x, client, cwReadAll(server, 1000), client.CloseWrite, x.data)
}

// TestCompositeWriteToReaderMidComponent writes from a reader that has
// consumed part of the first component and all of some before: WriteTo
// writes from the reader on and releases everything.
func TestCompositeWriteToReaderMidComponent(t *testing.T) {
	buftest.CheckLeaks(t)
	rng := rand.New(rand.NewPCG(7, 8))
	x := cwCompose(t, rng, []int{10, 20, 3000, 5, 4464, 1})
	const skip = 10 + 20 + 7
	require.NoError(t, x.c.Skip(skip))
	// Skip releases nothing; the first two buffers are still held.
	x.checkReleased(t, 0)
	client, server := cwTCP(t)
	cwWriteAll(t, x, client, cwReadAll(server, 4096), client.CloseWrite, x.data[skip:])
}

// TestCompositeWriteToEmpty: with nothing readable, WriteTo writes nothing
// and releases the components that reads consumed, as Discard(0) does.
func TestCompositeWriteToEmpty(t *testing.T) {
	buftest.CheckLeaks(t)
	rng := rand.New(rand.NewPCG(9, 10))
	x := cwCompose(t, rng, []int{5, 6, 7})
	_, err := io.ReadAll(x.c)
	require.NoError(t, err)
	x.checkReleased(t, 0)
	var w bytes.Buffer
	n, err := x.c.WriteTo(&w)
	assert.NoError(t, err, "WriteTo of an empty composite")
	assert.Zero(t, n, "WriteTo of an empty composite")
	assert.Zero(t, w.Len(), "bytes written by WriteTo of an empty composite")
	x.done(t)

	c := buf.NewComposite()
	defer c.Release()
	n, err = c.WriteTo(&w)
	assert.NoError(t, err, "WriteTo of a new composite")
	assert.Zero(t, n, "WriteTo of a new composite")
}

// TestCompositeWriteToDeadline lets a write deadline expire while the peer
// reads nothing: WriteTo returns the deadline error and the bytes it did
// write, the composite keeps exactly the rest (including the remainder of
// a component written in part) and releases only what was written; a
// second WriteTo, with the peer reading, writes the rest.
func TestCompositeWriteToDeadline(t *testing.T) {
	buftest.CheckLeaks(t)
	rng := rand.New(rand.NewPCG(11, 12))
	// Odd sizes, so that the socket buffer is unlikely to fill exactly at
	// a component boundary.
	sizes := make([]int, 0, 150)
	for range cap(sizes) {
		sizes = append(sizes, 4095+rng.IntN(16<<10))
	}
	x := cwCompose(t, rng, sizes)
	client, server := cwTCP(t)
	require.NoError(t, client.SetWriteBuffer(16<<10))
	cwDeadlineWrite(t, x, client, func() io.Reader { return server }, client.CloseWrite)
}

// cwDeadlineWrite is TestCompositeWriteToDeadline's check on any writer
// with a write deadline whose peer, reader, is not read until the
// deadline has expired; closeWrite signals the end of the stream.
func cwDeadlineWrite(t *testing.T, x *cwComposed, w interface {
	io.Writer
	SetWriteDeadline(time.Time) error
}, reader func() io.Reader, closeWrite func() error) {
	t.Helper()
	total := len(x.data)
	require.NoError(t, w.SetWriteDeadline(time.Now().Add(100*time.Millisecond)))
	n, err := x.c.WriteTo(w)
	assert.ErrorIs(t, err, os.ErrDeadlineExceeded, "WriteTo past the deadline: error %v, want os.ErrDeadlineExceeded", err)
	require.Greater(t, n, int64(0), "WriteTo past the deadline wrote %d bytes; want some of %d", n, total)
	require.Less(t, n, int64(total), "WriteTo past the deadline wrote %d bytes; want some of %d", n, total)
	assert.Equal(t, total-int(n), x.c.Len(), "Len after WriteTo of %d bytes", n)
	cwEqual(t, "bytes kept", cwRemaining(x.c), x.data[n:])
	x.checkReleased(t, int(n))
	partial := false
	for k, e := range x.ends {
		partial = partial || (e > int(n) && e-x.bufs[k].Len() < int(n))
	}
	t.Logf("deadline after %d of %d bytes; a component written in part: %v", n, total, partial)

	// The rest, with the peer reading.
	require.NoError(t, w.SetWriteDeadline(time.Time{}))
	got := cwReadAll(reader(), 32<<10)
	n2, err := x.c.WriteTo(w)
	assert.NoError(t, err, "second WriteTo = %d, %v; want %d, nil", n2, err, int64(total)-n)
	assert.Equal(t, int64(total)-n, n2, "second WriteTo = %d, %v; want %d, nil", n2, err, int64(total)-n)
	l := x.c.Len()
	assert.Equal(t, 0, l, "after the second WriteTo: Len %d, want 0", l)
	closeWrite()
	cwEqual(t, "bytes received", <-got, x.data)
	x.done(t)
}

// cwShortWriter accepts at most max bytes per Write, without an error: a
// writer that breaks io.Writer's contract.
type cwShortWriter struct {
	bytes.Buffer
	max int
}

func (w *cwShortWriter) Write(p []byte) (int, error) {
	return w.Buffer.Write(p[:min(len(p), w.max)])
}

var errCWBroken = errors.New("broken writer")

// cwFailingWriter accepts budget bytes in all, then fails, writing part of
// the Write that crosses the budget.
type cwFailingWriter struct {
	bytes.Buffer
	budget int
}

func (w *cwFailingWriter) Write(p []byte) (int, error) {
	if len(p) <= w.budget {
		w.budget -= len(p)
		return w.Buffer.Write(p)
	}
	n, _ := w.Buffer.Write(p[:w.budget])
	w.budget = 0
	return n, errCWBroken
}

// cwNoFD is a syscall.Conn whose descriptor cannot be had: WriteTo falls
// back to plain writes.
type cwNoFD struct{ bytes.Buffer }

func (*cwNoFD) SyscallConn() (syscall.RawConn, error) { return nil, errors.New("no descriptor") }

// TestCompositeWriteToFallback writes to writers that are not descriptors.
func TestCompositeWriteToFallback(t *testing.T) {
	sizes := []int{1, 100, 4096, 3, 70, 65536, 2, 999}
	total := 0
	for _, n := range sizes {
		total += n
	}

	for _, tc := range []struct {
		name string
		w    interface {
			io.Writer
			Bytes() []byte
		}
	}{
		{"bytes.Buffer", new(bytes.Buffer)},
		{"syscall.Conn without descriptor", new(cwNoFD)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			buftest.CheckLeaks(t)
			x := cwCompose(t, rand.New(rand.NewPCG(13, 14)), sizes)
			n, err := x.c.WriteTo(tc.w)
			assert.Equal(t, int64(total), n, "WriteTo = %d, %v; want %d, nil", n, err, total)
			assert.NoError(t, err, "WriteTo = %d, %v; want %d, nil", n, err, total)
			l := x.c.Len()
			assert.Equal(t, 0, l, "after WriteTo: Len %d", l)
			cwEqual(t, "bytes written", tc.w.Bytes(), x.data)
			x.done(t)
		})
	}

	t.Run("short writes", func(t *testing.T) {
		buftest.CheckLeaks(t)
		x := cwCompose(t, rand.New(rand.NewPCG(15, 16)), []int{7, 2, 1, 10, 5})
		w := &cwShortWriter{max: 3}
		// The first Write takes 3 of the first component's 7 bytes: WriteTo
		// stops there, keeps the other 4, and reports io.ErrShortWrite.
		n, err := x.c.WriteTo(w)
		assert.False(t, n != 3 || !errors.Is(err, io.ErrShortWrite), "WriteTo = %d, %v; want 3, io.ErrShortWrite", n, err)
		cwEqual(t, "bytes written", w.Bytes(), x.data[:n])
		cwEqual(t, "bytes kept", cwRemaining(x.c), x.data[n:])
		x.checkReleased(t, int(n))
		// Calling again until everything is written delivers the stream in
		// order, each call writing something.
		for calls := 0; x.c.Len() > 0; calls++ {
			before := x.c.Len()
			n, err := x.c.WriteTo(w)
			require.Greater(t, n, int64(0), "WriteTo with %d bytes left = %d, %v", before, n, err)
			require.LessOrEqual(t, n, 3*int64(len(x.bufs)), "WriteTo with %d bytes left = %d, %v", before, n, err)
			require.False(t, err != nil && !errors.Is(err, io.ErrShortWrite), "WriteTo with %d bytes left = %d, %v", before, n, err)
			if err == nil {
				require.Zero(t, x.c.Len(), "bytes left after WriteTo = %d, nil", n)
			}
			x.checkReleased(t, w.Len())
			require.LessOrEqual(t, calls, len(x.data), "WriteTo makes no progress")
		}
		cwEqual(t, "bytes written", w.Bytes(), x.data)
		x.done(t)
	})

	t.Run("error", func(t *testing.T) {
		buftest.CheckLeaks(t)
		x := cwCompose(t, rand.New(rand.NewPCG(17, 18)), sizes)
		const budget = 1 + 100 + 1000 // fails 1000 bytes into the third component
		w := &cwFailingWriter{budget: budget}
		n, err := x.c.WriteTo(w)
		assert.False(t, n != budget || !errors.Is(err, errCWBroken), "WriteTo = %d, %v; want %d, %v", n, err, budget, errCWBroken)
		l := x.c.Len()
		assert.Equal(t, total-budget, l, "after the failed WriteTo: Len")
		cwEqual(t, "bytes written", w.Bytes(), x.data[:budget])
		cwEqual(t, "bytes kept", cwRemaining(x.c), x.data[budget:])
		x.checkReleased(t, budget)

		// The same writer, healed, takes the rest.
		w.budget = total
		n, err = x.c.WriteTo(w)
		assert.Equal(t, int64(total-budget), n, "second WriteTo = %d, %v; want %d, nil", n, err, total-budget)
		assert.NoError(t, err, "second WriteTo = %d, %v; want %d, nil", n, err, total-budget)
		cwEqual(t, "bytes written", w.Bytes(), x.data)
		x.done(t)
	})
}

// TestCompositeWriteToClosed: a closed connection is an error, and the
// composite keeps everything.
func TestCompositeWriteToClosed(t *testing.T) {
	buftest.CheckLeaks(t)
	x := cwCompose(t, rand.New(rand.NewPCG(19, 20)), []int{100, 200})
	client, _ := cwTCP(t)
	client.Close()
	n, err := x.c.WriteTo(client)
	assert.False(t, n != 0 || !errors.Is(err, net.ErrClosed), "WriteTo a closed connection = %d, %v; want 0, net.ErrClosed", n, err)
	l := x.c.Len()
	assert.Len(t, x.data, l, "after the failed WriteTo: Len %d, want %d", l, len(x.data))
	x.checkReleased(t, 0)
	_, err = io.ReadAll(x.c)
	require.NoError(t, err)
	x.c.Discard(0)
	x.done(t)
}

// TestCompositeBuffers checks that Buffers returns one view per component
// holding readable bytes, together the readable bytes, and that it
// consumes nothing.
func TestCompositeBuffers(t *testing.T) {
	buftest.CheckLeaks(t)
	rng := rand.New(rand.NewPCG(21, 22))
	sizes := []int{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8000}
	x := cwCompose(t, rng, sizes)

	views := x.c.Buffers()
	assert.Equal(t, len(sizes), len(views), "Buffers: %d views, want %d", len(views), len(sizes))
	for k, v := range views {
		assert.Len(t, v, sizes[k], "view %d: %d bytes, want %d", k, len(v), sizes[k])
	}
	cwEqual(t, "views", cwRemaining(x.c), x.data)
	l := x.c.Len()
	assert.Len(t, x.data, l, "Buffers consumed something: Len %d, want %d", l, len(x.data))

	// The views alias component memory: a Put shows through them.
	x.c.PutUint64(0, 0x0102030405060708)
	binaryPut := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	copy(x.data, binaryPut)
	cwEqual(t, "views after PutUint64", cwRemaining(x.c), x.data)

	// After reads the first view starts at the reader.
	for _, skip := range []int{2, 1, 3, 5} {
		require.NoError(t, x.c.Skip(skip))
		consumed := len(x.data) - x.c.Len()
		cwEqual(t, "views after Skip", cwRemaining(x.c), x.data[consumed:])
		for k, v := range x.c.Buffers() {
			assert.NotEmpty(t, v, "after Skip to %d: view %d is empty", consumed, k)
		}
	}

	// Read everything: no views.
	require.NoError(t, x.c.Skip(x.c.Len()))
	v := x.c.Buffers()
	assert.Empty(t, v, "Buffers of an empty composite: %d views", len(v))
	x.c.Discard(0)
	x.done(t)
}

// TestCompositeBuffersN: BuffersN gives the first n views of Buffers, from
// the reader on, and all of them when n is larger.
func TestCompositeBuffersN(t *testing.T) {
	buftest.CheckLeaks(t)
	rng := rand.New(rand.NewPCG(25, 26))
	sizes := []int{3, 1, 4, 1, 5, 9, 2, 6}
	x := cwCompose(t, rng, sizes)
	all := len(x.data)
	for _, n := range []int{1, 3, len(sizes), len(sizes) + 5} {
		views := x.c.BuffersN(n)
		want := min(n, len(sizes))
		require.Len(t, views, want, "BuffersN(%d): %d views, want %d", n, len(views), want)
		got := 0
		for k, v := range views {
			assert.Len(t, v, sizes[k], "BuffersN(%d): view %d has %d bytes, want %d", n, k, len(v), sizes[k])
			got += len(v)
		}
		cwEqual(t, "BuffersN views", bytes.Join(views, nil), x.data[:got])
	}
	// into the fourth component
	require.NoError(t, x.c.Skip(5))
	views := x.c.BuffersN(2)
	cwEqual(t, "BuffersN after Skip", bytes.Join(views, nil), x.data[5:5+len(views[0])+len(views[1])])
	assert.False(t, len(views) != 2 || len(views[0]) != 3 || len(views[1]) != 1, "BuffersN(2) after Skip(5): %d views", len(views))
	assert.Equal(t, all-5, x.c.Len(), "BuffersN consumed something: Len %d", x.c.Len())
	assert.Panics(t, func() { x.c.BuffersN(0) }, "BuffersN(0)")
	x.c.Skip(x.c.Len())
	x.c.Discard(0)
	x.done(t)
}

// TestCompositeBuffersWriteTo is the documented pattern: net.Buffers'
// WriteTo, then Discard what was written.
func TestCompositeBuffersWriteTo(t *testing.T) {
	buftest.CheckLeaks(t)
	rng := rand.New(rand.NewPCG(23, 24))

	t.Run("bytes.Buffer", func(t *testing.T) {
		x := cwCompose(t, rng, []int{10, 20, 30000, 4})
		var w bytes.Buffer
		bufs := net.Buffers(x.c.Buffers())
		n, err := bufs.WriteTo(&w)
		require.NoError(t, err, "Buffers().WriteTo = %d", n)
		require.Equal(t, int64(len(x.data)), n, "Buffers().WriteTo = %d, %v", n, err)
		x.checkReleased(t, 0) // nothing consumed yet
		require.NoError(t, x.c.Discard(int(n)))
		cwEqual(t, "bytes written", w.Bytes(), x.data)
		x.done(t)
	})

	t.Run("tcp", func(t *testing.T) {
		x := cwCompose(t, rng, cwMixedSizes(rng, 2<<20))
		client, server := cwTCP(t)
		got := cwReadAll(server, 64<<10)
		bufs := net.Buffers(x.c.Buffers())
		n, err := bufs.WriteTo(client)
		require.NoError(t, err, "Buffers().WriteTo = %d", n)
		require.Equal(t, int64(len(x.data)), n, "Buffers().WriteTo = %d, %v", n, err)
		require.NoError(t, x.c.Discard(int(n)))
		l := x.c.Len()
		assert.Equal(t, 0, l, "after Discard: Len %d", l)
		client.CloseWrite()
		cwEqual(t, "bytes received", <-got, x.data)
		x.done(t)
	})
}

// TestCompositeWriteToAllocs checks that WriteTo on a TCP connection
// allocates nothing once the composite has written to it: the connection,
// its RawConn and the writev callback are kept.
func TestCompositeWriteToAllocs(t *testing.T) {
	buftest.CheckLeaks(t)
	testenv.SkipRace(t, "allocation counts differ under the race detector")
	client, server := cwTCP(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		p := make([]byte, 64<<10)
		for {
			if _, err := server.Read(p); err != nil {
				return
			}
		}
	}()
	skipIfNoPooling(t)
	a := buf.NewAllocator(buf.WithLeakLevel(buf.LeakOff))
	parts := [][]byte{pattern(100), pattern(3), pattern(4000), pattern(17)}
	c := buf.NewComposite()
	send := func() {
		for _, p := range parts {
			b := a.Get(len(p))
			b.Write(p)
			c.Append(b)
		}
		_, err := c.WriteTo(client)
		require.NoError(t, err)
	}
	send()
	n := testing.AllocsPerRun(100, send)
	assert.Equal(t, float64(0), n, "WriteTo: %v allocs per run, want 0", n)
	c.Release()
	client.CloseWrite()
	<-done
}

// cwDatagramPair returns a connected pair of datagram sockets of the
// network ("udp" or "unixgram"); the test closes them.
func cwDatagramPair(t *testing.T, network string) (from, to net.Conn) {
	t.Helper()
	var laddr, raddr net.Addr
	switch network {
	case "udp":
		to, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		require.NoError(t, err)
		t.Cleanup(func() { to.Close() })
		from, err := net.DialUDP("udp", nil, to.LocalAddr().(*net.UDPAddr))
		require.NoError(t, err)
		t.Cleanup(func() { from.Close() })
		return from, to
	case "unixgram":
		dir := t.TempDir()
		laddr = &net.UnixAddr{Name: dir + "/from", Net: network}
		raddr = &net.UnixAddr{Name: dir + "/to", Net: network}
	}
	to, err := net.ListenUnixgram(network, raddr.(*net.UnixAddr))
	require.NoError(t, err)
	t.Cleanup(func() { to.Close() })
	from, err = net.DialUnix(network, laddr.(*net.UnixAddr), raddr.(*net.UnixAddr))
	require.NoError(t, err)
	t.Cleanup(func() { from.Close() })
	return from, to
}

// TestCompositeWriteToDatagram checks that WriteTo refuses a datagram
// socket, which would receive one composite as several datagrams: it
// returns ErrNotStream, sends nothing and releases nothing, and refuses
// again on the next call.
func TestCompositeWriteToDatagram(t *testing.T) {
	for _, network := range []string{"udp", "unixgram"} {
		t.Run("net="+network, func(t *testing.T) {
			buftest.CheckLeaks(t)
			from, to := cwDatagramPair(t, network)
			x := cwCompose(t, rand.New(rand.NewPCG(31, 32)), []int{10, 20, 30})
			for range 2 {
				n, err := x.c.WriteTo(from)
				require.Equal(t, int64(0), n, "WriteTo a %s socket = %d, %v; want 0, ErrNotStream", network, n, err)
				require.ErrorIs(t, err, buf.ErrNotStream, "WriteTo a %s socket = %d, %v; want 0, ErrNotStream", network, n, err)
				require.Equal(t, len(x.data), x.c.Len(), "after the refused WriteTo: Len")
				x.checkReleased(t, 0)
			}
			// Nothing arrived: the first datagram to arrive is a marker
			// sent now.
			_, err := from.Write([]byte("marker"))
			require.NoError(t, err)
			to.SetReadDeadline(time.Now().Add(5 * time.Second))
			p := make([]byte, 100)
			n, err := to.Read(p)
			require.NoError(t, err)
			require.Equal(t, "marker", string(p[:n]), "first datagram received")
			x.c.Discard(x.c.Len())
			x.done(t)
		})
	}
}

// cwLiar is a writer that reports more bytes than it was given.
type cwLiar struct{}

func (cwLiar) Write(p []byte) (int, error) { return len(p) + 1, nil }

// TestCompositeWriteToInvalidCount checks that WriteTo rejects a writer's
// impossible count as Buffer.WriteTo does: with a panic naming it, having
// consumed nothing.
func TestCompositeWriteToInvalidCount(t *testing.T) {
	buftest.CheckLeaks(t)
	x := cwCompose(t, rand.New(rand.NewPCG(33, 34)), []int{5, 6})
	b := buf.Get(4)
	b.WriteString("abcd")
	const want = "buf: Write returned an invalid count"
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"Buffer", func() { b.WriteTo(cwLiar{}) }},
		{"Composite", func() { x.c.WriteTo(cwLiar{}) }},
	} {
		got := panicString(tc.f)
		assert.Equal(t, want, got, "%s.WriteTo a lying writer: panic", tc.name)
	}
	require.Equal(t, len(x.data), x.c.Len(), "after the panic: Len")
	x.checkReleased(t, 0)
	b.Release()
	x.c.Discard(x.c.Len())
	x.done(t)
}

// cwWriteAndDrop writes c to a fresh TCP connection, closes it, and
// returns a channel closed when the client connection is collected; no
// reference to the connection is left outside c.
func cwWriteAndDrop(t *testing.T, c *buf.Composite, data []byte) <-chan struct{} {
	client, server := cwPair(t)
	collected := make(chan struct{})
	runtime.AddCleanup(client, func(ch chan struct{}) { close(ch) }, collected)
	for range 2 { // the second write reuses the connection kept
		b := buf.Get(len(data))
		b.Write(data)
		c.Append(b)
		n, err := c.WriteTo(client)
		require.Equal(t, int64(len(data)), n, "WriteTo = %d, %v", n, err)
		require.NoError(t, err, "WriteTo = %d", n)
	}
	client.Close()
	server.Close()
	return collected
}

// cwPair returns a connected TCP pair with no cleanup holding them.
func cwPair(t *testing.T) (client, server *net.TCPConn) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	conn, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	srv, err := ln.Accept()
	if err != nil {
		conn.Close()
	}
	require.NoError(t, err)
	return conn.(*net.TCPConn), srv.(*net.TCPConn)
}

// cwCollected reports whether done is closed within a few collections.
func cwCollected(done <-chan struct{}, tries int) bool {
	for range tries {
		runtime.GC()
		select {
		case <-done:
			return true
		case <-time.After(10 * time.Millisecond):
		}
	}
	return false
}

// TestCompositeWriteToKeepsConn checks the documented lifetime of the
// connection WriteTo keeps: the composite keeps it reachable after its
// owner closed and dropped it, until Discard(c.Len()) empties the
// composite; the composite then writes to another connection.
func TestCompositeWriteToKeepsConn(t *testing.T) {
	buftest.CheckLeaks(t)
	c := buf.NewComposite()
	defer c.Release()
	collected := cwWriteAndDrop(t, c, []byte("hello"))
	require.False(t, cwCollected(collected, 3), "the connection kept by the composite was collected")
	require.NoError(t, c.Discard(c.Len()))
	require.True(t, cwCollected(collected, 50), "a closed connection was not collected after Discard(c.Len())")

	client, server := cwTCP(t)
	got := cwReadAll(server, 64)
	b := buf.Get(5)
	b.WriteString("again")
	c.Append(b)
	n, err := c.WriteTo(client)
	require.NoError(t, err)
	require.EqualValues(t, 5, n, "WriteTo another connection")
	client.CloseWrite()
	cwEqual(t, "bytes received", <-got, []byte("again"))
}

// TestCompositeWriteToAlternating writes one composite to two connections
// in turn: each write goes to the connection it names, not to the one
// kept from the write before.
func TestCompositeWriteToAlternating(t *testing.T) {
	buftest.CheckLeaks(t)
	c := buf.NewComposite()
	defer c.Release()
	c1, s1 := cwTCP(t)
	c2, s2 := cwTCP(t)
	got1, got2 := cwReadAll(s1, 64), cwReadAll(s2, 64)
	var want1, want2 []byte
	for i := range 6 {
		to, want := c1, &want1
		if i%2 == 1 {
			to, want = c2, &want2
		}
		msg := []byte{'a' + byte(i), '.'}
		b := buf.Get(len(msg))
		b.Write(msg)
		c.Append(b)
		n, err := c.WriteTo(to)
		require.NoError(t, err)
		require.EqualValues(t, len(msg), n)
		*want = append(*want, msg...)
	}
	c1.CloseWrite()
	c2.CloseWrite()
	cwEqual(t, "bytes received on the first connection", <-got1, want1)
	cwEqual(t, "bytes received on the second connection", <-got2, want2)
}

// cwUncomparable is a syscall.Conn whose values cannot be compared with ==
// (the comparison panics): WriteTo must not keep it, and must not panic.
type cwUncomparable struct {
	conn *net.TCPConn
	tags []string
}

func (u cwUncomparable) Write(p []byte) (int, error)           { return u.conn.Write(p) }
func (u cwUncomparable) SyscallConn() (syscall.RawConn, error) { return u.conn.SyscallConn() }

func TestCompositeWriteToUncomparable(t *testing.T) {
	buftest.CheckLeaks(t)
	c := buf.NewComposite()
	defer c.Release()
	client, server := cwTCP(t)
	got := cwReadAll(server, 64)
	w := cwUncomparable{conn: client, tags: []string{"x"}}
	var want []byte
	for i := range 3 {
		msg := []byte{'0' + byte(i)}
		b := buf.Get(1)
		b.Write(msg)
		c.Append(b)
		n, err := c.WriteTo(w)
		require.NoError(t, err)
		require.EqualValues(t, 1, n)
		want = append(want, msg...)
	}
	client.CloseWrite()
	cwEqual(t, "bytes received", <-got, want)
}
