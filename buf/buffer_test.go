package buf_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/buf/buftest"
)

// pattern returns n bytes that differ from their neighbours.
func pattern(n int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(i*7 + i>>8)
	}
	return p
}

// checkBytes fails t unless b's readable bytes are want.
func checkBytes(t *testing.T, b *buf.Buffer, want []byte) {
	t.Helper()
	if b.Len() != len(want) || !bytes.Equal(b.Bytes(), want) {
		t.Fatalf("Len %d Bytes %q, want Len %d Bytes %q", b.Len(), trim(b.Bytes()), len(want), trim(want))
	}
}

func trim(p []byte) []byte { return p[:min(len(p), 64)] }

// prepared returns a buffer from a whose readable bytes are content, with
// skip bytes consumed before them so the reader index is not zero.
func prepared(a *buf.Allocator, skip int, content string) *buf.Buffer {
	b := a.Get(0)
	b.Write(make([]byte, skip))
	b.WriteString(content)
	b.Skip(skip)
	return b
}

func TestGetCap(t *testing.T) {
	buftest.CheckLeaks(t)
	a := buf.NewAllocator()
	for _, n := range []int{0, 1, 15, 16, 17, 100, 4095, 4096, 4097, 65535, a.MaxSize(), a.MaxSize() + 1, 200 << 10} {
		b := a.Get(n)
		if b.Cap() < n || b.Len() != 0 || b.RefCount() != 1 || b.ReaderIndex() != 0 {
			t.Errorf("Get(%d): Cap %d Len %d RefCount %d ReaderIndex %d", n, b.Cap(), b.Len(), b.RefCount(), b.ReaderIndex())
		}
		b.Release()
	}
	mustPanic(t, "buf: Get(-1): negative size", func() { a.Get(-1) })
}

func TestBufferBytesAliasing(t *testing.T) {
	buftest.CheckLeaks(t)
	b := buf.Get(64)
	defer b.Release()
	b.WriteString("xhello")
	b.Skip(1)
	p := b.Bytes()
	if string(p) != "hello" || cap(p) != len(p) {
		t.Fatalf("Bytes = %q with cap %d", p, cap(p))
	}
	p[0] = 'j'          // aliases b's memory
	q := append(p, '?') // cap == len: must copy, not write into b
	b.WriteByte('!')
	checkBytes(t, b, []byte("jello!"))
	if string(q) != "jello?" {
		t.Fatalf("appended copy = %q", q)
	}
	if got, _ := b.Next(2); string(got) != "je" || cap(got) != 2 {
		t.Fatalf("Next(2) = %q with cap %d", got, cap(got))
	}
}

func TestBufferAvailableBuffer(t *testing.T) {
	buftest.CheckLeaks(t)
	b := prepared(buf.NewAllocator(), 3, "abc")
	defer b.Release()
	p := b.AvailableBuffer()
	if len(p) != 0 || cap(p) != b.Cap()-b.ReaderIndex()-b.Len() {
		t.Fatalf("AvailableBuffer len %d cap %d; Cap %d ReaderIndex %d Len %d", len(p), cap(p), b.Cap(), b.ReaderIndex(), b.Len())
	}
	c := b.Cap()
	p = binary.BigEndian.AppendUint32(p, 0x64656667)
	b.Write(p)
	checkBytes(t, b, []byte("abcdefg"))
	if b.Cap() != c {
		t.Fatalf("Cap %d -> %d for a write that fit", c, b.Cap())
	}
}

func TestBufferGrow(t *testing.T) {
	buftest.CheckLeaks(t)
	a := buf.NewAllocator()
	for _, tc := range []struct{ get, write, skip, n int }{
		{16, 0, 0, 0}, {16, 0, 0, 16}, {16, 10, 0, 7}, {16, 10, 8, 12}, {16, 16, 16, 16},
		{100, 90, 50, 100}, {4096, 4000, 100, 5000}, {1, 0, 0, 70000}, {a.MaxSize(), 1000, 10, a.MaxSize()},
	} {
		t.Run(fmt.Sprint(tc), func(t *testing.T) {
			b := a.Get(tc.get)
			defer b.Release()
			b.Write(pattern(tc.write))
			b.Skip(tc.skip)
			b.Grow(tc.n)
			checkBytes(t, b, pattern(tc.write)[tc.skip:])
			c := b.Cap()
			if free := c - b.ReaderIndex() - b.Len(); free < tc.n || cap(b.AvailableBuffer()) != free {
				t.Fatalf("Grow(%d) left %d free bytes, AvailableBuffer cap %d", tc.n, free, cap(b.AvailableBuffer()))
			}
			b.Write(pattern(tc.n))
			if b.Cap() != c {
				t.Fatalf("writing the %d grown bytes moved Cap %d -> %d", tc.n, c, b.Cap())
			}
			checkBytes(t, b, append(pattern(tc.write)[tc.skip:], pattern(tc.n)...))
		})
	}
	b := prepared(a, 0, "x")
	defer b.Release()
	mustPanic(t, "buf: Grow with negative count", func() { b.Grow(-1) })
	mustPanic(t, buf.ErrTooLarge, func() { b.Grow(math.MaxInt) })
	checkBytes(t, b, []byte("x"))
}

func TestBufferReaderIndexReset(t *testing.T) {
	buftest.CheckLeaks(t)
	b := prepared(buf.NewAllocator(), 0, "abcdef")
	defer b.Release()
	b.ReadByte()
	mark := b.ReaderIndex()
	b.Next(3)
	b.SetReaderIndex(mark) // back out of an incomplete parse
	checkBytes(t, b, []byte("bcdef"))
	b.SetReaderIndex(0)
	checkBytes(t, b, []byte("abcdef"))
	end := b.ReaderIndex() + b.Len()
	b.SetReaderIndex(end)
	checkBytes(t, b, nil)
	mustPanic(t, fmt.Sprintf("buf: SetReaderIndex(-1) outside [0, %d]", end), func() { b.SetReaderIndex(-1) })
	mustPanic(t, fmt.Sprintf("buf: SetReaderIndex(%d) outside [0, %d]", end+1, end), func() { b.SetReaderIndex(end + 1) })
	if b.ReaderIndex() != end {
		t.Fatalf("ReaderIndex %d after failed SetReaderIndex, want %d", b.ReaderIndex(), end)
	}
	c := b.Cap()
	b.Reset()
	if b.Len() != 0 || b.ReaderIndex() != 0 || b.Cap() != c {
		t.Fatalf("after Reset: Len %d ReaderIndex %d Cap %d (was %d)", b.Len(), b.ReaderIndex(), b.Cap(), c)
	}
	if _, err := b.ReadByte(); err != io.EOF {
		t.Fatalf("ReadByte after Reset: %v", err)
	}
	b.WriteString("again")
	checkBytes(t, b, []byte("again"))
}

func TestBufferRead(t *testing.T) {
	buftest.CheckLeaks(t)
	a := buf.NewAllocator()
	for _, tc := range []struct {
		content string
		p, n    int
		err     error
	}{
		{"", 4, 0, io.EOF}, {"", 0, 0, nil}, {"abc", 0, 0, nil},
		{"abc", 2, 2, nil}, {"abc", 3, 3, nil}, {"abc", 5, 3, nil},
	} {
		b := prepared(a, 2, tc.content)
		p := make([]byte, tc.p)
		n, err := b.Read(p)
		if n != tc.n || err != tc.err || string(p[:n]) != tc.content[:n] {
			t.Errorf("Read(%d) of %q = %d, %v (%q), want %d, %v", tc.p, tc.content, n, err, p[:n], tc.n, tc.err)
		}
		checkBytes(t, b, []byte(tc.content[n:]))
		b.Release()
	}
}

// A readOp is a read that consumes width bytes or nothing.
type readOp struct {
	name  string
	width int
	read  func(b *buf.Buffer) ([]byte, error)
}

var readOps = func() []readOp {
	ops := []readOp{
		{"ReadByte", 1, func(b *buf.Buffer) ([]byte, error) { c, err := b.ReadByte(); return []byte{c}, err }},
		{"Next(0)", 0, func(b *buf.Buffer) ([]byte, error) { return b.Next(0) }},
		{"Next(3)", 3, func(b *buf.Buffer) ([]byte, error) { return b.Next(3) }},
		{"Skip(5)", 5, func(b *buf.Buffer) ([]byte, error) { return nil, b.Skip(5) }},
	}
	for _, c := range codecs {
		ops = append(ops, readOp{"Read" + c.name, c.size, func(b *buf.Buffer) ([]byte, error) {
			v, err := c.read(b)
			return c.encode(nil, v), err
		}})
	}
	return ops
}()

func TestBufferShortReadsConsumeNothing(t *testing.T) {
	buftest.CheckLeaks(t)
	a := buf.NewAllocator()
	for _, op := range readOps {
		for have := 0; have <= op.width+1; have++ {
			content := string(pattern(have))
			b := prepared(a, 3, content)
			got, err := op.read(b)
			switch {
			case have >= op.width:
				if err != nil || got != nil && op.width > 0 && string(got) != content[:op.width] {
					t.Errorf("%s with %d bytes = %x, %v", op.name, have, got, err)
				}
				checkBytes(t, b, []byte(content[op.width:]))
			default:
				want := io.ErrUnexpectedEOF
				if have == 0 {
					want = io.EOF
				}
				if err != want {
					t.Errorf("%s with %d bytes: err %v, want %v", op.name, have, err, want)
				}
				checkBytes(t, b, []byte(content)) // nothing consumed
			}
			b.Release()
		}
	}
	b := prepared(a, 0, "abc")
	defer b.Release()
	mustPanic(t, "buf: Next with negative count", func() { b.Next(-1) })
	mustPanic(t, "buf: Next with negative count", func() { b.Skip(-1) })
	checkBytes(t, b, []byte("abc"))
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
			if got := c.get(b, 0); got != v {
				t.Fatalf("Get%s = %#x, want %#x", c.name, got, v)
			}
			if got, err := c.read(b); got != v || err != nil || b.Len() != 0 {
				t.Fatalf("Read%s = %#x, %v (Len %d), want %#x", c.name, got, err, b.Len(), v)
			}
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
		if got, err := it.c.read(b); got != it.v&it.c.mask() || err != nil {
			t.Fatalf("item %d: Read%s = %#x, %v, want %#x", i, it.c.name, got, err, it.v&it.c.mask())
		}
	}
}

func TestBufferGetPut(t *testing.T) {
	buftest.CheckLeaks(t)
	a := buf.NewAllocator()
	for _, c := range codecs {
		b := prepared(a, 3, string(pattern(20)))
		for i := 0; i+c.size <= b.Len(); i++ {
			if got, want := c.get(b, i), c.decode(b.Bytes()[i:]); got != want {
				t.Fatalf("Get%s(%d) = %#x, want %#x", c.name, i, got, want)
			}
			want := bytes.Clone(b.Bytes())
			c.encode(want[:i], 0x0102030405060708)
			c.put(b, i, 0x0102030405060708)
			checkBytes(t, b, want) // and the reader index did not move
		}
		for _, i := range []int{-1, b.Len() - c.size + 1, b.Len(), math.MaxInt} {
			want := fmt.Sprintf("buf: index %d, width %d out of range with %d readable bytes", i, c.size, b.Len())
			mustPanic(t, want, func() { c.get(b, i) })
			mustPanic(t, want, func() { c.put(b, i, 0) })
		}
		b.Release()
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
			if got, err := w.write(b, p); got != n || err != nil {
				t.Fatalf("%s of %d bytes = %d, %v", w.name, n, got, err)
			}
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
	if n, err := b.Write(b.Bytes()); n != 16 || err != nil {
		t.Fatalf("Write(b.Bytes()) = %d, %v", n, err)
	}
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
		if n != int64(tc.n) || err != tc.err {
			t.Errorf("%s: ReadFrom = %d, %v, want %d, %v", tc.name, n, err, tc.n, tc.err)
		}
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
		if n != int64(tc.n) || err != tc.err || tc.w.String() != tc.content[:tc.n] {
			t.Errorf("%s: WriteTo = %d, %v (wrote %q), want %d, %v", tc.name, n, err, tc.w.String(), tc.n, tc.err)
		}
		checkBytes(t, b, []byte(tc.content[tc.n:])) // consumes what was accepted
		b.Release()
	}
}

func TestBufferIndex(t *testing.T) {
	buftest.CheckLeaks(t)
	a := buf.NewAllocator()
	for _, tc := range []struct {
		content, needle string
		want            int
	}{
		{"", "", 0}, {"", "a", -1}, {"abc", "", 0}, {"abc", "c", 2}, {"abcabc", "ca", 2},
		{"abc", "abcd", -1}, {"hello\r\n\r\nbody", "\r\n\r\n", 5},
	} {
		b := prepared(a, 4, tc.content)
		if got := b.Index([]byte(tc.needle)); got != tc.want {
			t.Errorf("Index(%q) in %q = %d, want %d", tc.needle, tc.content, got, tc.want)
		}
		b.Release()
	}
}

func TestBufferTouch(t *testing.T) {
	buftest.CheckLeaks(t) // LeakAll: every buffer is tracked and records the touch
	for _, b := range []*buf.Buffer{buf.Get(16), buf.Get(buf.Default.MaxSize() + 1), buf.Wrap(nil)} {
		if b.Touch("here") != b {
			t.Fatal("Touch did not return its buffer")
		}
		b.Release()
	}
}

func TestBufferSlice(t *testing.T) {
	buftest.CheckLeaks(t)
	b := prepared(buf.NewAllocator(), 2, "0123456789")
	v := b.Slice(3, 5)
	checkBytes(t, v, []byte("34567"))
	checkBytes(t, b, []byte("0123456789")) // Slice consumes nothing
	if v.Cap() != 5 {
		t.Fatalf("view Cap %d, want 5", v.Cap())
	}
	v.Bytes()[0] = 'x' // shared memory, both ways
	b.PutUint16(4, 0x7979)
	checkBytes(t, v, []byte("xyy67"))
	checkBytes(t, b, []byte("012xyy6789"))
	vv := v.Slice(1, 3)
	checkBytes(t, vv, []byte("yy6"))
	if c, _ := v.ReadByte(); c != 'x' || b.Len() != 10 || vv.Len() != 3 {
		t.Fatal("reading a view moved another buffer's index")
	}
	for _, r := range []struct{ off, n int }{{-1, 1}, {0, -1}, {0, 11}, {10, 1}, {11, 0}, {5, 6}} {
		mustPanic(t, fmt.Sprintf("buf: Slice(%d, %d) out of range with 10 readable bytes", r.off, r.n), func() { b.Slice(r.off, r.n) })
	}
	if empty := b.Slice(10, 0); empty.Len() != 0 {
		t.Fatal("empty view at the end not empty")
	}
	// One reference count for all: the view's last Release frees the root.
	vv.Retain()
	if b.RefCount() != 2 || v.RefCount() != 2 || vv.RefCount() != 2 {
		t.Fatalf("RefCounts %d %d %d, want 2", b.RefCount(), v.RefCount(), vv.RefCount())
	}
	if b.Release() {
		t.Fatal("root Release returned true with the view's reference left")
	}
	checkBytes(t, vv, []byte("yy6"))
	if !vv.Release() {
		t.Fatal("view's last Release returned false")
	}
	if b.RefCount() != 0 || v.RefCount() != 0 {
		t.Fatal("root not released by its view's last Release")
	}
}

func TestWrap(t *testing.T) {
	buftest.CheckLeaks(t)
	p := make([]byte, 5, 8)
	copy(p, "hello")
	b := buf.Wrap(p)
	checkBytes(t, b, p)
	if b.Cap() != 8 || &b.Bytes()[0] != &p[0] {
		t.Fatalf("Wrap: Cap %d, Bytes not aliasing p", b.Cap())
	}
	b.WriteString("!!!") // fits p's spare capacity
	if string(p[:8]) != "hello!!!" {
		t.Fatalf("write did not land in p's array: %q", p[:8])
	}
	b.WriteByte('?') // grows: p is left alone from now on
	b.PutUint16(0, 0x4a4a)
	checkBytes(t, b, []byte("JJllo!!!?"))
	if string(p[:8]) != "hello!!!" {
		t.Fatalf("p changed after growth: %q", p[:8])
	}
	if !b.Release() || b.RefCount() != 0 {
		t.Fatal("Wrap: Release did not drop the only reference")
	}
	n := buf.Wrap(nil)
	n.Write(pattern(1000))
	checkBytes(t, n, pattern(1000))
	n.Release()
}

func TestBufferGrowth(t *testing.T) {
	buftest.CheckLeaks(t)
	a := buf.NewAllocator()
	t.Run("bytewise", func(t *testing.T) {
		want := pattern(200 << 10)
		b := a.Get(0)
		defer b.Release()
		c := b.Cap()
		for i, x := range want {
			b.WriteByte(x)
			if b.Cap() != c { // a class boundary was crossed: check it all
				if b.Cap() < c {
					t.Fatalf("Cap shrank %d -> %d", c, b.Cap())
				}
				c = b.Cap()
				checkBytes(t, b, want[:i+1])
			}
		}
		checkBytes(t, b, want)
		if b.Cap() <= a.MaxSize() {
			t.Fatalf("Cap %d after %d bytes", b.Cap(), len(want))
		}
	})
	t.Run("bulk", func(t *testing.T) {
		r := rand.New(rand.NewPCG(5, 6))
		b := buf.Get(1)
		defer b.Release()
		var want []byte
		for len(want) < 300<<10 {
			p := pattern(r.IntN(40 << 10))
			b.Write(p)
			want = append(want, p...)
		}
		checkBytes(t, b, want)
	})
	t.Run("read and write", func(t *testing.T) {
		r := rand.New(rand.NewPCG(7, 8))
		b := a.Get(16)
		defer b.Release()
		var model bytes.Buffer
		for range 20000 {
			n := r.IntN(300)
			if r.IntN(2) == 0 {
				p := pattern(n)
				b.Write(p)
				model.Write(p)
			} else {
				got, err := b.Next(min(n, b.Len()))
				want := model.Next(min(n, model.Len()))
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("Next = %q, %v, want %q", trim(got), err, trim(want))
				}
			}
			checkBytes(t, b, model.Bytes())
		}
	})
	t.Run("past MaxSize", func(t *testing.T) {
		for _, n := range []int{buf.Default.MaxSize(), buf.Default.MaxSize() + 1} {
			b := buf.Get(n)
			want := pattern(3*buf.Default.MaxSize() + 5)
			b.Write(want[:n])
			b.Write(want[n:])
			checkBytes(t, b, want)
			b.Release()
		}
	})
}

// TestBufferGrowWithViewsBounded streams small messages through a buffer
// and takes a view of each, as a parser handing payloads on would. The
// readable bytes never exceed one message, so the capacity should stay
// small; Grow's documented policy slides when the consumed bytes outnumber
// the readable ones.
func TestBufferGrowWithViewsBounded(t *testing.T) {
	buftest.CheckLeaks(t)
	b := buf.Get(256)
	defer b.Release()
	msg := pattern(100)
	for range 20000 {
		b.Write(msg)
		v := b.Slice(0, len(msg)).Retain()
		b.Skip(len(msg))
		v.Release() // the consumer is done with it
	}
	if b.Cap() > 4<<10 {
		t.Fatalf("Cap = %d bytes holding %d readable: capacity doubles on every refill once a view was taken", b.Cap(), b.Len())
	}
}
