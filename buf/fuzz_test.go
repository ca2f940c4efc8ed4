package buf_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"
	"testing/iotest"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/buf/buftest"
)

// Operations of FuzzBuffer. The input is the initial Get size (one byte)
// followed by operations: an opcode byte (modulo numOps) and its arguments.
// Arguments missing at the end of the input read as zero.
const (
	opWrite       = iota // len, mult, seed: write len*(mult%8+1) made-up bytes
	opWriteString        // len: write len bytes from the input as a string
	opWriteByte          // c
	opWriteUint          // codec, 8 value bytes
	opReadUint           // codec
	opNext               // n
	opSkip               // n
	opReadByte           //
	opRead               // n: Read into a slice of n%9 bytes
	opReset              //
	opGrow               // n: Grow(n*8)
	opGet                // codec, offset
	opPut                // codec, offset, 8 value bytes
	opMark               // remember ReaderIndex
	opRewind             // SetReaderIndex to the mark, or to the end without one
	opSlice              // off, n, codec: Slice, then read from the view
	opReadFrom           // kind, len: ReadFrom len input bytes
	opWriteTo            // n: WriteTo a writer accepting n bytes
	opIndex              // len: Index of len%4 input bytes
	opAppend             // len: append input bytes to AvailableBuffer, Write
	numOps
)

// opInput decodes FuzzBuffer's input.
type opInput struct{ p []byte }

func (in *opInput) byte() byte {
	if len(in.p) == 0 {
		return 0
	}
	c := in.p[0]
	in.p = in.p[1:]
	return c
}

func (in *opInput) bytes(n int) []byte {
	n = min(n, len(in.p))
	p := in.p[:n:n]
	in.p = in.p[n:]
	return p
}

func (in *opInput) uint64() uint64 {
	var x [8]byte
	copy(x[:], in.bytes(8))
	return binary.LittleEndian.Uint64(x[:])
}

func (in *opInput) codec() codec { return codecs[int(in.byte())%len(codecs)] }

// fuzzSeeds are a few meaningful operation sequences.
var fuzzSeeds = [][]byte{
	{},
	// Write, read values of every width (the last one short), read past the end.
	{0, opWrite, 13, 0, 1, opReadUint, 0, opReadUint, 1, opReadUint, 2, opReadUint, 2,
		opReadByte, opNext, 2, opSkip, 1, opReadByte, opReadByte, opNext, 1},
	// Fixed-width writes in both orders, patch a length prefix, read back.
	{16, opWriteUint, 1, 1, 2, 3, 4, 5, 6, 7, 8, opWriteUint, 5, 8, 7, 6, 5, 4, 3, 2, 1,
		opPut, 1, 0, 9, 0, 0, 0, 0, 0, 0, 0, opGet, 4, 3, 0, 0, 0, 0, 0, 0, 0, 0,
		opReadUint, 1, opReadUint, 5, opReadUint, 5},
	// Growth across classes and past the allocator's largest class.
	{1, opWrite, 255, 7, 1, opWrite, 255, 7, 2, opSkip, 200, opWrite, 200, 3, 3, opGrow, 255,
		opReset, opWrite, 50, 0, 4, opWriteByte, 9, opGrow, 0},
	// A parser backing out of an incomplete message: mark, read, rewind.
	{0, opWriteString, 5, 'h', 'e', 'l', 'l', 'o', opMark, opNext, 3, opReadUint, 1,
		opRewind, opNext, 5, opRewind, opReset, opRewind},
	// Consume most, then write: the readable bytes slide or move.
	{0, opWrite, 10, 0, 5, opMark, opSkip, 2, opWriteByte, 1, opRewind, opSkip, 9,
		opMark, opWrite, 10, 0, 6, opRewind, opRead, 8, opRead, 0, opRead, 8, opRead, 8},
	// Views: slice, read from the view, keep writing to the root.
	{0, opWrite, 40, 0, 7, opSlice, 3, 20, 2, opSkip, 30, opWrite, 40, 1, 8,
		opSlice, 0, 255, 0, opSlice, 9, 2, 2, opWrite, 255, 3, 9, opIndex, 2, 7, 14},
	// I/O: trickled ReadFrom, short WriteTo, append-style writes.
	{0, opReadFrom, 1, 6, 'a', 'b', 'c', 'd', 'e', 'f', opWriteTo, 2, opAppend, 3, 'x', 'y', 'z',
		opReadFrom, 2, 3, '1', '2', '3', opWriteTo, 255, opReadByte, opRead, 3, opWriteTo, 0},
}

// maxFuzzOps bounds the operations of one input: the comparison after each
// is linear in the readable bytes, and long inputs would make it quadratic.
const maxFuzzOps = 256

// fuzzAlloc has a small largest class so short inputs reach unpooled growth.
var fuzzAlloc = buf.NewAllocator(buf.WithMaxSize(1024))

func FuzzBuffer(f *testing.F) {
	buftest.CheckLeaks(f)
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &opInput{data}
		h := &fuzzHarness{t: t, b: fuzzAlloc.Get(int(in.byte()) * 4), mark: -1}
		defer h.b.Release()
		for step := 0; len(in.p) > 0 && step < maxFuzzOps; step++ {
			h.step = step
			h.do(in)
			h.compare()
		}
	})
}

// fuzzHarness applies operations to a buffer and its model.
type fuzzHarness struct {
	t         *testing.T
	b         *buf.Buffer
	m         modelBuffer
	step      int
	op        int
	mark      int // buffer mark from opMark, or -1
	modelMark int
}

func (h *fuzzHarness) fatalf(format string, args ...any) {
	h.t.Helper()
	h.t.Fatalf("step %d (op %d): "+format, append([]any{h.step, h.op}, args...)...)
}

// compare checks the state every operation must leave behind.
func (h *fuzzHarness) compare() {
	h.t.Helper()
	b := h.b
	if b.Len() != h.m.Len() || !bytes.Equal(b.Bytes(), h.m.Bytes()) {
		h.fatalf("Bytes %x, model %x", trim(b.Bytes()), trim(h.m.Bytes()))
	}
	if b.ReaderIndex() < 0 || b.ReaderIndex()+b.Len() > b.Cap() || b.RefCount() != 1 {
		h.fatalf("ReaderIndex %d Len %d Cap %d RefCount %d", b.ReaderIndex(), b.Len(), b.Cap(), b.RefCount())
	}
}

// checkRead compares a read's results.
func (h *fuzzHarness) checkRead(name string, got []byte, err error, want []byte, wantErr error) {
	h.t.Helper()
	if err != wantErr || err == nil && !bytes.Equal(got, want) {
		h.fatalf("%s = %x, %v; model %x, %v", name, got, err, want, wantErr)
	}
}

// write runs a write on the buffer and keeps the mark only if the reader
// index did not move (a write that slides or reallocates invalidates it).
func (h *fuzzHarness) write(f func()) {
	r := h.b.ReaderIndex()
	f()
	if h.b.ReaderIndex() != r {
		h.mark = -1
	}
}

// made returns n bytes that depend on seed and differ from their neighbours,
// so large writes cost little input.
func made(seed byte, n int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = seed + byte(i*7+i>>8)
	}
	return p
}

func (h *fuzzHarness) do(in *opInput) {
	h.t.Helper()
	b, m := h.b, &h.m
	h.op = int(in.byte()) % numOps
	switch h.op {
	case opWrite:
		n := int(in.byte()) * (int(in.byte())%8 + 1)
		p := made(in.byte(), n)
		h.write(func() {
			if n, err := b.Write(p); n != len(p) || err != nil {
				h.fatalf("Write(%d bytes) = %d, %v", len(p), n, err)
			}
		})
		m.Write(p)
	case opWriteString:
		p := in.bytes(int(in.byte()))
		h.write(func() {
			if n, err := b.WriteString(string(p)); n != len(p) || err != nil {
				h.fatalf("WriteString(%d bytes) = %d, %v", len(p), n, err)
			}
		})
		m.Write(p)
	case opWriteByte:
		c := in.byte()
		h.write(func() {
			if err := b.WriteByte(c); err != nil {
				h.fatalf("WriteByte: %v", err)
			}
		})
		m.Write([]byte{c})
	case opWriteUint:
		c, v := in.codec(), in.uint64()
		h.write(func() { c.write(b, v) })
		m.Write(c.encode(nil, v))
	case opReadUint:
		c := in.codec()
		v, err := c.read(b)
		want, wantErr := m.Next(c.size)
		h.checkRead("Read"+c.name, c.encode(nil, v), err, want, wantErr)
	case opNext:
		n := int(in.byte())
		got, err := b.Next(n)
		want, wantErr := m.Next(n)
		h.checkRead("Next", got, err, want, wantErr)
		if len(got) != cap(got) {
			h.fatalf("Next returned len %d cap %d", len(got), cap(got))
		}
	case opSkip:
		n := int(in.byte())
		err := b.Skip(n)
		_, wantErr := m.Next(n)
		h.checkRead("Skip", nil, err, nil, wantErr)
	case opReadByte:
		c, err := b.ReadByte()
		want, wantErr := m.Next(1)
		h.checkRead("ReadByte", []byte{c}, err, want, wantErr)
	case opRead:
		p := make([]byte, in.byte()%9)
		q := make([]byte, len(p))
		n, err := b.Read(p)
		wn, wantErr := m.Read(q)
		if n != wn {
			h.fatalf("Read(%d) = %d, model %d", len(p), n, wn)
		}
		h.checkRead("Read", p[:n], err, q[:wn], wantErr)
	case opReset:
		b.Reset()
		m.Reset()
		h.mark = -1
	case opGrow:
		n := int(in.byte()) * 8
		h.write(func() { b.Grow(n) })
		if free := b.Cap() - b.ReaderIndex() - b.Len(); free < n || cap(b.AvailableBuffer()) != free {
			h.fatalf("Grow(%d) left %d free, AvailableBuffer cap %d", n, free, cap(b.AvailableBuffer()))
		}
	case opGet, opPut:
		c, off := in.codec(), int(in.byte())
		v := in.uint64() // consumed for both, so Get and Put seeds stay aligned
		if b.Len() < c.size {
			return
		}
		off %= b.Len() - c.size + 1
		if h.op == opPut {
			c.put(b, off, v)
			m.Put(off, c.encode(nil, v))
			return
		}
		if got, want := c.get(b, off), c.decode(m.Get(off, c.size)); got != want {
			h.fatalf("Get%s(%d) = %#x, model %#x", c.name, off, got, want)
		}
	case opMark:
		h.mark, h.modelMark = b.ReaderIndex(), m.r
	case opRewind:
		if h.mark < 0 {
			b.SetReaderIndex(b.ReaderIndex() + b.Len())
			m.r = len(m.data)
			return
		}
		b.SetReaderIndex(h.mark)
		m.r = h.modelMark
	case opSlice:
		h.slice(in)
	case opReadFrom:
		kind := in.byte() % 4
		p := in.bytes(int(in.byte()))
		var r io.Reader = bytes.NewReader(p)
		switch kind {
		case 1:
			r = iotest.OneByteReader(r)
		case 2:
			r = iotest.DataErrReader(r)
		case 3:
			r = iotest.HalfReader(r)
		}
		h.write(func() {
			if n, err := b.ReadFrom(r); n != int64(len(p)) || err != nil {
				h.fatalf("ReadFrom(%d bytes) = %d, %v", len(p), n, err)
			}
		})
		m.Write(p)
	case opWriteTo:
		w := &limitWriter{n: int(in.byte())}
		n, err := b.WriteTo(w)
		want := m.Bytes()[:min(w.n, m.Len())]
		m.r += len(want)
		wantErr := error(nil)
		if m.Len() > 0 {
			wantErr = io.ErrShortWrite
		}
		if n != int64(len(want)) || err != wantErr || !bytes.Equal(w.Bytes(), want) {
			h.fatalf("WriteTo = %d, %v (wrote %x), model %d, %v (%x)", n, err, w.Bytes(), len(want), wantErr, want)
		}
	case opIndex:
		needle := in.bytes(int(in.byte()) % 4)
		if got, want := b.Index(needle), bytes.Index(m.Bytes(), needle); got != want {
			h.fatalf("Index(%x) = %d, model %d", needle, got, want)
		}
	case opAppend:
		p := in.bytes(int(in.byte()))
		h.write(func() {
			q := append(b.AvailableBuffer(), p...)
			if n, err := b.Write(q); n != len(p) || err != nil {
				h.fatalf("Write(AvailableBuffer+%d) = %d, %v", len(p), n, err)
			}
		})
		m.Write(p)
	}
}

// slice makes a view of part of the readable bytes and reads from it; the
// root must not change and the full view must refuse writes.
func (h *fuzzHarness) slice(in *opInput) {
	b, m := h.b, &h.m
	off := int(in.byte()) % (b.Len() + 1)
	n := int(in.byte()) % (b.Len() - off + 1)
	c := in.codec()
	r := b.ReaderIndex()
	v, mv := b.Slice(off, n), m.Slice(off, n)
	if v.Len() != n || v.Cap() != n || !bytes.Equal(v.Bytes(), mv.Bytes()) || v.RefCount() != 1 {
		h.fatalf("Slice(%d, %d) = %x (Cap %d, RefCount %d), model %x", off, n, v.Bytes(), v.Cap(), v.RefCount(), mv.Bytes())
	}
	got, err := c.read(v)
	want, wantErr := mv.Next(c.size)
	h.checkRead("view Read"+c.name, c.encode(nil, got), err, want, wantErr)
	if _, err := v.Write([]byte{1}); err != buf.ErrFixed {
		h.fatalf("Write to a full view: %v, want ErrFixed", err)
	}
	if !bytes.Equal(v.Bytes(), mv.Bytes()) || b.ReaderIndex() != r {
		h.fatalf("view %x, model %x; root ReaderIndex %d -> %d", v.Bytes(), mv.Bytes(), r, b.ReaderIndex())
	}
}
