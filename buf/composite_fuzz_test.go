package buf_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/buf/buftest"
)

// Operations of FuzzComposite. The input is one option byte (a component
// limit when its high bit is set) followed by operations: an opcode byte
// (modulo numCompOps) and its arguments, decoded by opInput (arguments
// missing at the end of the input read as zero).
const (
	copAppend       = iota // kind, len, data…: append a buffer of len%9+1 bytes
	copAppendLarge         // kind, seed, len: append 500+len%25 made-up bytes
	copAppendAll           // count, then per buffer kind, len, data…
	copAppendEmpty         // kind: append a buffer with nothing readable
	copReadUint            // codec
	copGet                 // codec, offset
	copPut                 // codec, offset, 8 value bytes
	copRead                // count
	copReadByte            //
	copNext                // count
	copSkip                // count
	copDiscard             // count
	copIndex               // offset, len, mutate: needle from the model
	copIndexMany           // count, then per needle offset, len, mutate
	copSlice               // offset, n, codec: RetainedSlice, read from it, release it
	copConsolidate         //
	copInsert              // offset, count, then per buffer kind, len, data…
	copBuffers             //
	copDiscardAll          // Discard(Len): empty, release everything
	copNextRetained        // n: NextRetained, kept (up to 4) and checked until the end
	copMove                // limit, prefix: MoveTo a second composite after a prefix, skip it there, MoveTo back
	numCompOps
)

// compAlphabet is what the input bytes of small appends map to: few
// symbols, in both cases, so needles taken from the model recur and
// half-match across seams, and case folding matters.
const compAlphabet = "abAB0\xff"

// compFuzzAlloc is FuzzComposite's own allocator: every buffer of an
// execution comes from it (Consolidate's too), so its Stats show whether
// the execution released them all. Its largest class is small so
// consolidated composites also reach unpooled buffers.
var compFuzzAlloc = buf.NewAllocator(buf.WithMaxSize(1024))

// compFuzzSeeds are a few meaningful operation sequences.
var compFuzzSeeds = [][]byte{
	{},
	// Tiny pieces, then reads of every width straddling them, then past the end.
	{0, copAppend, 0, 2, 'a', 'b', 'A', copAppend, 1, 0, 'b', copAppend, 2, 8, 1, 2, 3, 4, 5, 6, 7, 8, 9,
		copAppend, 0, 4, 'a', 'a', 'b', 'b', 'A', copReadUint, 0, copReadUint, 1, copReadUint, 5,
		copReadUint, 2, copReadUint, 3, copReadByte, copNext, 3, copSkip, 2, copRead, 7, copReadByte},
	// Random access across seams, a straddling Put, then a search.
	{0, copAppend, 0, 2, 1, 2, 3, copAppend, 1, 1, 4, 5, copAppend, 2, 3, 6, 7, 8, 9,
		copGet, 2, 1, copPut, 5, 3, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF, 0x11, 0x22,
		copGet, 2, 0, copIndex, 1, 6, 0, copIndex, 0, 3, 0, copBuffers},
	// A large piece among small ones, Discard through them, Consolidate.
	{0, copAppend, 0, 3, 'a', 'b', 'a', 'b', copAppendLarge, 1, 7, 3, copAppend, 2, 1, 'A', 'B',
		copSkip, 5, copDiscard, 0, copNext, 200, copDiscard, 130, copConsolidate, copReadUint, 2,
		copDiscard, 255, copDiscard, 0},
	// A component limit: Append consolidates.
	{0x83, copAppend, 0, 1, 1, 2, copAppend, 1, 1, 3, 4, copAppend, 2, 1, 5, 6, copAppend, 0, 1, 7, 8,
		copReadUint, 1, copAppendAll, 3, 0, 2, 'a', 'b', 'a', 1, 0, 'b', 2, 4, 1, 2, 3, 4, 5,
		copNext, 5, copAppend, 1, 0, 9},
	// Insert at the front, inside a component and at the end; Slice across.
	{0, copAppend, 0, 8, '0', '1', '2', '3', '4', '5', '6', '7', '8', copSkip, 2,
		copInsert, 0, 1, 0, 2, 'a', 'b', 'A', copInsert, 5, 2, 1, 1, 'x', 'y', 2, 0, 'z',
		copInsert, 255, 1, 0, 3, 'B', 'B', 'b', 'a', copSlice, 1, 9, 2, copIndexMany, 5, 2, 3, 4, 0, 0, 2, 0},
	// Next across seams, then searches that must leave its bytes alone.
	{0, copAppend, 0, 2, 'a', 'b', 'A', copAppend, 1, 2, 'B', '0', 'a', copAppend, 2, 2, 'b', 'a', 'b',
		copNext, 5, copIndex, 0, 3, 0, copIndexMany, 1, 1, 0, 2, 0, copSlice, 0, 3, 1, copNext, 2},
	// Empty buffers, Discard(Len), reuse.
	{0, copAppendEmpty, 0, copAppendEmpty, 2, copAppend, 0, 0, 'a', copDiscardAll, copAppendEmpty, 1,
		copAppend, 1, 4, 'a', 'b', 'a', 'b', 'A', copReadUint, 4, copConsolidate, copConsolidate,
		copDiscardAll, copConsolidate, copRead, 3},
}

func FuzzComposite(f *testing.F) {
	buftest.CheckLeaks(f)
	for _, s := range compFuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(runCompFuzz)
}

// TestCompositeRandomOps runs FuzzComposite's body on pseudo-random inputs
// under the leak checker, so plain test runs go beyond the seeds.
func TestCompositeRandomOps(t *testing.T) {
	buftest.CheckLeaks(t)
	n := 400
	if testing.Short() {
		n = 50
	}
	r := rand.New(rand.NewPCG(3, 4))
	for i := range n {
		data := make([]byte, 100+r.IntN(700))
		for j := range data {
			data[j] = byte(r.Uint32())
		}
		if i%2 == 0 {
			data[0] &^= 0x80 // half without a component limit
		}
		t.Run("", func(t *testing.T) { runCompFuzz(t, data) })
		require.False(t, t.Failed(), "input %d: %x", i, data)
	}
}

// runCompFuzz is FuzzComposite's body: it runs the operations of data on a
// composite and on its model, compares them after each, and at the end
// makes sure every buffer of the execution has been released.
func runCompFuzz(t *testing.T, data []byte) {
	in := &opInput{data}
	opt := in.byte()
	limit := 0
	if opt&0x80 != 0 {
		limit = int(opt)%8 + 1
	}
	h := &compHarness{t: t, limit: limit,
		c: buf.NewComposite(buf.WithMaxComponents(limit), buf.WithAllocator(compFuzzAlloc))}
	for step := 0; len(in.p) > 0 && step < maxFuzzOps; step++ {
		h.step = step
		h.do(in)
		h.compare()
	}
	h.finish()
	inUse := compFuzzAlloc.Stats().Total().InUse
	require.Equal(t, int64(0), inUse, "%d bytes still in use after the composite was released", inUse)
}

// compHarness applies operations to a composite and its model.
type compHarness struct {
	t     *testing.T
	c     *buf.Composite
	m     compModel
	limit int // the composite's component limit, 0 for none
	step  int
	op    int

	next, nextWant []byte // the last Next's slice and its bytes, while valid

	kept []keptFrame // buffers from NextRetained, which outlive everything
}

// A keptFrame is a buffer NextRetained returned and the bytes it must
// hold until it is released, whatever the composite does meanwhile.
type keptFrame struct {
	b    *buf.Buffer
	want []byte
}

func (h *compHarness) fatalf(format string, args ...any) {
	h.t.Helper()
	h.t.Fatalf("step %d (op %d): "+format, append([]any{h.step, h.op}, args...)...)
}

// flat returns the composite's readable bytes as Buffers gives them,
// failing on an empty view.
func (h *compHarness) flat(c *buf.Composite) []byte {
	h.t.Helper()
	var p []byte
	for i, v := range c.Buffers() {
		if len(v) == 0 {
			h.fatalf("Buffers()[%d] is empty", i)
		}
		p = append(p, v...)
	}
	return p
}

// compare checks the state every operation must leave behind.
func (h *compHarness) compare() {
	h.t.Helper()
	c := h.c
	if got := h.flat(c); c.Len() != h.m.Len() || !bytes.Equal(got, h.m.data) {
		h.fatalf("Len %d bytes %x, model Len %d bytes %x", c.Len(), trim(got), h.m.Len(), trim(h.m.data))
	}
	if views := len(c.Buffers()); c.NumComponents() < views {
		h.fatalf("NumComponents %d < %d views", c.NumComponents(), views)
	}
	if h.next != nil && !bytes.Equal(h.next, h.nextWant) {
		h.fatalf("a Next slice changed to %x from %x without a read, Discard or Release", h.next, h.nextWant)
	}
	var spans []byte
	for off := 0; off < c.Len(); {
		s := c.Span(off)
		if len(s) == 0 {
			h.fatalf("Span(%d) is empty with %d readable bytes", off, c.Len())
		}
		spans = append(spans, s...)
		off += len(s)
	}
	if !bytes.Equal(spans, h.m.data) {
		h.fatalf("spans %x, model %x", trim(spans), trim(h.m.data))
	}
	for _, k := range h.kept {
		if !bytes.Equal(k.b.Bytes(), k.want) {
			h.fatalf("a NextRetained buffer changed to %x from %x before its Release", k.b.Bytes(), k.want)
		}
	}
}

// checkRead compares a read's results.
func (h *compHarness) checkRead(name string, got []byte, err error, want []byte, wantErr error) {
	h.t.Helper()
	if err != wantErr || err == nil && !bytes.Equal(got, want) {
		h.fatalf("%s = %x, %v; model %x, %v", name, got, err, want, wantErr)
	}
}

// count decodes a byte count: mostly small (seams are a few bytes apart),
// sometimes up to about a kilobyte (across large components).
func compCount(in *opInput) int {
	b := int(in.byte())
	if b < 0x80 {
		return b % 24
	}
	return (b - 0x80) * 9
}

// buffer returns a buffer from compFuzzAlloc whose readable bytes are p:
// plain, with consumed bytes before them, or a view of a larger buffer.
func compFuzzBuffer(kind byte, p []byte) *buf.Buffer {
	a := compFuzzAlloc
	switch kind % 3 {
	case 1:
		b := a.Get(len(p) + 3)
		b.Write([]byte{0xEE, 0xEE, 0xEE})
		b.Skip(3)
		b.Write(p)
		return b
	case 2:
		root := a.Get(len(p) + 6)
		root.Write([]byte{0xEE, 0xEE, 0xEE})
		root.Write(p)
		root.Write([]byte{0xEE, 0xEE, 0xEE})
		return root.Slice(3, len(p)) // shares root's one reference
	}
	b := a.Get(len(p))
	b.Write(p)
	return b
}

// small decodes a buffer of 1–9 (or, with empty, 0–9) bytes of the
// alphabet and the matching model bytes.
func compSmall(in *opInput, empty bool) (*buf.Buffer, []byte) {
	kind, n := in.byte(), int(in.byte())
	if empty {
		n %= 10
	} else {
		n = n%9 + 1
	}
	p := make([]byte, n)
	for i := range p {
		p[i] = compAlphabet[int(in.byte())%len(compAlphabet)]
	}
	return compFuzzBuffer(kind, p), p
}

// needle decodes a needle taken from the model: an offset, a length (0 to
// 13 bytes, 1 to 13 with nonEmpty) and whether to spoil its last byte so
// that it is probably absent.
func (h *compHarness) needle(in *opInput, nonEmpty bool) []byte {
	off, n, mutate := int(in.byte()), int(in.byte())%14, in.byte()
	if nonEmpty {
		n = max(n, 1)
	}
	var p []byte
	if h.m.Len() > 0 {
		off %= h.m.Len()
		p = append(p, h.m.data[off:min(off+n, h.m.Len())]...)
	}
	if nonEmpty && len(p) == 0 {
		p = append(p, compAlphabet[off%len(compAlphabet)])
	}
	if mutate%4 == 0 && len(p) > 0 {
		p[len(p)-1] = 'z'
	}
	return p
}

func (h *compHarness) do(in *opInput) {
	h.t.Helper()
	c, m := h.c, &h.m
	h.op = int(in.byte()) % numCompOps
	switch h.op {
	case copAppend:
		b, p := compSmall(in, false)
		h.append(b, p)
	case copAppendLarge:
		kind, seed, n := in.byte(), in.byte(), 500+int(in.byte())%25
		p := made(seed, n)
		h.append(compFuzzBuffer(kind, p), p)
	case copAppendAll:
		k := int(in.byte())%4 + 1
		bs := make([]*buf.Buffer, k)
		for i := range bs {
			var p []byte
			bs[i], p = compSmall(in, true)
			m.Append(p)
		}
		c.AppendAll(bs...)
		h.appended()
	case copAppendEmpty:
		h.append(compFuzzBuffer(in.byte(), nil), nil)
	case copReadUint:
		cc := compCodecs[int(in.byte())%len(compCodecs)]
		v, err := cc.read(c)
		want, wantErr := m.Next(cc.enc.size)
		if err != nil && v != 0 {
			h.fatalf("Read%s returned %#x with error %v", cc.enc.name, v, err)
		}
		h.checkRead("Read"+cc.enc.name, cc.enc.encode(nil, v), err, want, wantErr)
		h.next = nil
	case copGet, copPut:
		cc, off := compCodecs[int(in.byte())%len(compCodecs)], int(in.byte())
		v := uint64(0)
		if h.op == copPut {
			v = in.uint64()
		}
		if c.Len() < cc.enc.size {
			return
		}
		off %= c.Len() - cc.enc.size + 1
		if h.op == copPut {
			cc.put(c, off, v)
			m.Put(off, cc.enc.encode(nil, v))
			return
		}
		if got, want := cc.get(c, off), cc.enc.decode(m.Get(off, cc.enc.size)); got != want {
			h.fatalf("Get%s(%d) = %#x, model %#x", cc.enc.name, off, got, want)
		}
	case copRead:
		n := compCount(in)
		p, q := make([]byte, n), make([]byte, n)
		got, err := c.Read(p)
		want, wantErr := m.Read(q)
		if got != want {
			h.fatalf("Read(%d bytes) = %d, model %d", n, got, want)
		}
		h.checkRead("Read", p[:got], err, q[:want], wantErr)
		h.next = nil
	case copReadByte:
		v, err := c.ReadByte()
		want, wantErr := m.Next(1)
		h.checkRead("ReadByte", []byte{v}, err, want, wantErr)
		h.next = nil
	case copNext:
		n := compCount(in)
		got, err := c.Next(n)
		want, wantErr := m.Next(n)
		h.checkRead("Next", got, err, want, wantErr)
		if len(got) != cap(got) {
			h.fatalf("Next(%d) returned len %d cap %d", n, len(got), cap(got))
		}
		h.next, h.nextWant = nil, nil
		if err == nil && n > 0 {
			h.next, h.nextWant = got, want
		}
	case copSkip:
		n := compCount(in)
		err := c.Skip(n)
		_, wantErr := m.Next(n)
		h.checkRead("Skip", nil, err, nil, wantErr)
		h.next = nil
	case copDiscard:
		n := compCount(in)
		if in.byte()%2 == 0 {
			n = 0 // Discard(0): release what reads consumed
		}
		err := c.Discard(n)
		_, wantErr := m.Next(n)
		h.checkRead("Discard", nil, err, nil, wantErr)
		h.next = nil
		if got, want := c.NumComponents(), len(c.Buffers()); got != want {
			h.fatalf("after Discard: %d components for %d views: consumed ones kept", got, want)
		}
	case copIndex:
		needle := h.needle(in, false)
		want := m.Index(needle)
		if got := c.Index(needle); got != want {
			h.fatalf("Index(%x) = %d, model %d", needle, got, want)
		}
	case copIndexMany:
		// Several needles searched in turn: the window area grows and
		// shrinks between calls.
		for range int(in.byte())%3 + 1 {
			needle := h.needle(in, true)
			want := m.Index(needle)
			if got := c.Index(needle); got != want {
				h.fatalf("Index(%q) = %d, model %d", needle, got, want)
			}
		}
	case copSlice:
		off := int(in.byte()) % (c.Len() + 1)
		n := int(in.byte()) % (c.Len() - off + 1)
		cc := compCodecs[int(in.byte())%len(compCodecs)]
		s, ms := c.RetainedSlice(off, n), m.Slice(off, n)
		if got := h.flat(s); s.Len() != n || !bytes.Equal(got, ms.data) {
			h.fatalf("RetainedSlice(%d, %d) = %x, model %x", off, n, got, ms.data)
		}
		v, err := cc.read(s)
		want, wantErr := ms.Next(cc.enc.size)
		h.checkRead("slice Read"+cc.enc.name, cc.enc.encode(nil, v), err, want, wantErr)
		if got := h.flat(s); !bytes.Equal(got, ms.data) {
			h.fatalf("Slice after a read = %x, model %x", got, ms.data)
		}
		s.Release()
	case copConsolidate:
		b := c.Consolidate()
		h.next = nil
		if m.Len() == 0 {
			if b != nil {
				h.fatalf("Consolidate of an empty composite = %x, want nil", b.Bytes())
			}
			if c.NumComponents() != 0 {
				h.fatalf("Consolidate of an empty composite left %d components", c.NumComponents())
			}
			return
		}
		if b == nil || !bytes.Equal(b.Bytes(), m.data) || c.NumComponents() != 1 {
			var got []byte
			if b != nil {
				got = b.Bytes()
			}
			h.fatalf("Consolidate = %x (%d components), model %x", trim(got), c.NumComponents(), trim(m.data))
		}
		b.Release() // the caller's reference; the composite keeps its own
	case copInsert:
		off := int(in.byte()) % (c.Len() + 1)
		k := int(in.byte())%2 + 1
		bs := make([]*buf.Buffer, k)
		var ins []byte
		for i := range bs {
			var p []byte
			bs[i], p = compSmall(in, true)
			ins = append(ins, p...)
		}
		c.Insert(off, bs...)
		m.Insert(off, ins)
		h.appended()
	case copBuffers:
		// compare checks the views; taking them twice must give the same.
		first := len(c.Buffers())
		if second := len(c.Buffers()); first != second {
			h.fatalf("Buffers twice: %d then %d views", first, second)
		}
	case copDiscardAll:
		if err := c.Discard(c.Len()); err != nil {
			h.fatalf("Discard(Len) = %v", err)
		}
		m.Reset()
		h.next = nil
		if c.NumComponents() != 0 {
			h.fatalf("Discard(Len) left %d components", c.NumComponents())
		}
	case copNextRetained:
		n := compCount(in)
		got, err := c.NextRetained(n)
		want, wantErr := m.Next(n)
		var p []byte
		if got != nil {
			p = got.Bytes()
		}
		h.checkRead("NextRetained", p, err, want, wantErr)
		h.next = nil
		if err != nil {
			return
		}
		if len(h.kept) == 4 {
			h.kept[0].b.Release()
			h.kept = h.kept[1:]
		}
		h.kept = append(h.kept, keptFrame{got, bytes.Clone(want)})
	case copMove:
		limit := int(in.byte()) % 4 // 0: none
		side := buf.NewComposite(buf.WithMaxComponents(limit), buf.WithAllocator(compFuzzAlloc))
		pb, prefix := compSmall(in, false)
		side.Append(pb)
		want := m.Len()
		if n := c.MoveTo(side); n != want {
			h.fatalf("MoveTo moved %d bytes, want %d", n, want)
		}
		if c.Len() != 0 || c.NumComponents() != 0 {
			h.fatalf("MoveTo left %d bytes in %d components", c.Len(), c.NumComponents())
		}
		if got := h.flat(side); !bytes.Equal(got, append(bytes.Clone(prefix), m.data...)) {
			h.fatalf("after MoveTo the destination holds %x, want %x then %x", trim(got), trim(prefix), trim(m.data))
		}
		if err := side.Skip(len(prefix)); err != nil {
			h.fatalf("Skip(%d) of the destination: %v", len(prefix), err)
		}
		side.MoveTo(c)
		side.Release()
		h.next = nil
		h.appended()
	}
}

// append appends b, whose readable bytes are p, to the composite and the
// model.
func (h *compHarness) append(b *buf.Buffer, p []byte) {
	h.c.Append(b)
	h.m.Append(p)
	h.appended()
}

// appended checks the component limit after an append.
func (h *compHarness) appended() {
	if h.limit > 0 {
		h.next = nil // consolidation drops the consumed bytes
		if n := h.c.NumComponents(); n > h.limit {
			h.fatalf("%d components with a limit of %d", n, h.limit)
		}
	}
}

// finish checks that a slice of the composite outlives it, then releases
// both.
func (h *compHarness) finish() {
	c := h.c
	s := c.RetainedSlice(0, c.Len())
	c.Release()
	if got := h.flat(s); !bytes.Equal(got, h.m.data) {
		h.fatalf("a slice after its parent's Release = %x, model %x", trim(got), trim(h.m.data))
	}
	s.Release()
	for _, k := range h.kept { // they outlive the composite
		if !bytes.Equal(k.b.Bytes(), k.want) {
			h.fatalf("a NextRetained buffer changed to %x from %x after the composite's Release", k.b.Bytes(), k.want)
		}
		k.b.Release()
	}
	h.kept = nil
}
