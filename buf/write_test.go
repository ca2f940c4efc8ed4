package buf_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/buf/buftest"
)

func TestBufferAvailableBuffer(t *testing.T) {
	buftest.CheckLeaks(t)
	b := prepared(buf.NewAllocator(), 3, "abc")
	defer b.Release()
	p := b.AvailableBuffer()
	require.Empty(t, p, "AvailableBuffer")
	require.Equal(t, b.Cap()-b.ReaderIndex()-b.Len(), cap(p), "AvailableBuffer's capacity")
	c := b.Cap()
	p = binary.BigEndian.AppendUint32(p, 0x64656667)
	b.Write(p)
	checkBytes(t, b, []byte("abcdefg"))
	require.Equal(t, c, b.Cap(), "Cap %d -> %d for a write that fit", c, b.Cap())
}

func TestBufferRoundTrip(t *testing.T) {
	buftest.CheckLeaks(t)
	b := buf.Get(0)
	defer b.Release()
	for _, c := range codecs {
		for _, v := range testValues() {
			b.Reset()
			c.write(b, v)
			v &= c.mask()
			checkBytes(t, b, c.encode(nil, v))
			got := c.get(b, 0)
			require.Equal(t, v, got, "Get%s", c.name)
			got, err := c.read(b)
			require.NoError(t, err, "Read%s", c.name)
			require.Equal(t, v, got, "Read%s", c.name)
			require.Zero(t, b.Len(), "Len after Read%s", c.name)
		}
	}
	// A long mixed sequence, through several growths.
	r := rand.New(rand.NewPCG(3, 4))
	var want []byte
	type item struct {
		c codec
		v uint64
	}
	var items []item
	for range 5000 {
		it := item{codecs[r.IntN(len(codecs))], r.Uint64()}
		it.c.write(b, it.v)
		want = it.c.encode(want, it.v)
		items = append(items, it)
	}
	checkBytes(t, b, want)
	for i, it := range items {
		got, err := it.c.read(b)
		require.NoError(t, err, "item %d: Read%s", i, it.c.name)
		require.Equal(t, it.v&it.c.mask(), got, "item %d: Read%s", i, it.c.name)
	}
}

// writers are the ways to append bytes that return an error.
var writers = []struct {
	name  string
	write func(b *buf.Buffer, p []byte) (int, error)
}{
	{"Write", func(b *buf.Buffer, p []byte) (int, error) { return b.Write(p) }},
	{"WriteString", func(b *buf.Buffer, p []byte) (int, error) { return b.WriteString(string(p)) }},
	{"WriteByte", func(b *buf.Buffer, p []byte) (int, error) {
		for i, c := range p {
			if err := b.WriteByte(c); err != nil {
				return i, err
			}
		}
		return len(p), nil
	}},
	{"ReadFrom", func(b *buf.Buffer, p []byte) (int, error) {
		n, err := b.ReadFrom(bytes.NewReader(p))
		return int(n), err
	}},
}

func TestBufferWrite(t *testing.T) {
	buftest.CheckLeaks(t)
	for _, w := range writers {
		b := buf.Get(16)
		var want []byte
		for _, n := range []int{0, 1, 2, 13, 100, 5000, 0, 70000} {
			p := pattern(n)
			got, err := w.write(b, p)
			require.Equal(t, n, got, "%s of %d bytes = %d, %v", w.name, n, got, err)
			require.NoError(t, err, "%s of %d bytes = %d", w.name, n, got)
			want = append(want, p...)
			checkBytes(t, b, want)
		}
		b.Release()
	}
}

// TestBufferWriteOwnBytes appends a buffer's readable bytes to itself, as
// bytes.Buffer allows. The write grows b, and the old block must not be
// given up (poisoned in the invariants build, up for grabs by another
// goroutine in the default one) before p has been copied out of it.
func TestBufferWriteOwnBytes(t *testing.T) {
	buftest.CheckLeaks(t)
	b := buf.Get(16)
	defer b.Release()
	b.Write(pattern(16))
	n, err := b.Write(b.Bytes())
	require.Equal(t, 16, n, "Write(b.Bytes()) = %d, %v", n, err)
	require.NoError(t, err, "Write(b.Bytes()) = %d", n)
	checkBytes(t, b, append(pattern(16), pattern(16)...))
}

// dataEOFReader returns all its data together with io.EOF.
type dataEOFReader struct{ p []byte }

func (r *dataEOFReader) Read(p []byte) (int, error) {
	n := copy(p, r.p)
	r.p = r.p[n:]
	if len(r.p) == 0 {
		return n, io.EOF
	}
	return n, nil
}

var errTest = errors.New("test error")

func TestBufferReadFrom(t *testing.T) {
	buftest.CheckLeaks(t)
	a := buf.NewAllocator()
	data := pattern(3000)
	for _, tc := range []struct {
		name string
		r    io.Reader
		n    int
		err  error
	}{
		{"empty", strings.NewReader(""), 0, nil},
		{"small", bytes.NewReader(data[:10]), 10, nil},
		{"large", bytes.NewReader(data), 3000, nil},
		{"data with EOF", &dataEOFReader{data[:700]}, 700, nil},
		{"trickle", iotest.OneByteReader(bytes.NewReader(data[:1500])), 1500, nil},
		{"data then error", io.MultiReader(bytes.NewReader(data[:600]), iotest.ErrReader(errTest)), 600, errTest},
		{"data with error", iotest.DataErrReader(io.MultiReader(bytes.NewReader(data[:5]), iotest.ErrReader(errTest))), 5, errTest},
		{"error", iotest.ErrReader(errTest), 0, errTest},
		{"timeout", iotest.TimeoutReader(bytes.NewReader(data[:100])), 100, iotest.ErrTimeout},
	} {
		b := prepared(a, 7, "pre")
		n, err := b.ReadFrom(tc.r)
		assert.EqualValues(t, tc.n, n, "%s: ReadFrom", tc.name)
		assert.Equal(t, tc.err, err, "%s: ReadFrom", tc.name)
		checkBytes(t, b, append([]byte("pre"), data[:n]...))
		b.Release()
	}
}

// limitWriter accepts at most n bytes per call and then returns err.
type limitWriter struct {
	bytes.Buffer
	n   int
	err error
}

func (w *limitWriter) Write(p []byte) (int, error) {
	n, _ := w.Buffer.Write(p[:min(len(p), w.n)])
	if n < len(p) {
		return n, w.err
	}
	return n, nil
}

func TestBufferWriteTo(t *testing.T) {
	buftest.CheckLeaks(t)
	a := buf.NewAllocator()
	for _, tc := range []struct {
		name    string
		content string
		w       *limitWriter
		n       int
		err     error
	}{
		{"all", "hello", &limitWriter{n: 100}, 5, nil},
		{"empty", "", &limitWriter{n: 0, err: errTest}, 0, nil},
		{"short", "hello", &limitWriter{n: 2}, 2, io.ErrShortWrite},
		{"nothing accepted", "hello", &limitWriter{n: 0}, 0, io.ErrShortWrite},
		{"error", "hello", &limitWriter{n: 3, err: errTest}, 3, errTest},
	} {
		b := prepared(a, 1, tc.content)
		n, err := b.WriteTo(tc.w)
		assert.EqualValues(t, tc.n, n, "%s: WriteTo", tc.name)
		assert.Equal(t, tc.err, err, "%s: WriteTo", tc.name)
		assert.Equal(t, tc.content[:tc.n], tc.w.String(), "%s: bytes written", tc.name)
		checkBytes(t, b, []byte(tc.content[tc.n:])) // consumes what was accepted
		b.Release()
	}
}

func TestCommit(t *testing.T) {
	b := buf.Get(64)
	defer b.Release()
	b.WriteString("ab")
	p := b.AvailableBuffer()
	n := copy(p[:cap(p)], "cdef")
	b.Commit(n)
	got := string(b.Bytes())
	require.Equal(t, "abcdef", got, "after Commit: %q, want abcdef", got)
	free := cap(b.AvailableBuffer())
	for _, bad := range []int{-1, free + 1} {
		assert.Panics(t, func() { b.Commit(bad) }, "Commit(%d) with %d free", bad, free)
	}
	require.Equal(t, "abcdef", string(b.Bytes()), "a refused Commit changed the buffer")
}
