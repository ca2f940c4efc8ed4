package buf_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/buf/buftest"
	"github.com/netkit/netkit/internal/testenv"
)

// compCodec is a fixed-width encoding (see codec) with Composite's read,
// Get and Put methods for it.
type compCodec struct {
	enc  codec
	read func(c *buf.Composite) (uint64, error)
	get  func(c *buf.Composite, i int) uint64
	put  func(c *buf.Composite, i int, v uint64)
}

// compCodecs are in the order of codecs.
var compCodecs = []compCodec{
	{codecs[0],
		func(c *buf.Composite) (uint64, error) { v, err := c.ReadUint16(); return uint64(v), err },
		func(c *buf.Composite, i int) uint64 { return uint64(c.GetUint16(i)) },
		func(c *buf.Composite, i int, v uint64) { c.PutUint16(i, uint16(v)) }},
	{codecs[1],
		func(c *buf.Composite) (uint64, error) { v, err := c.ReadUint32(); return uint64(v), err },
		func(c *buf.Composite, i int) uint64 { return uint64(c.GetUint32(i)) },
		func(c *buf.Composite, i int, v uint64) { c.PutUint32(i, uint32(v)) }},
	{codecs[2],
		func(c *buf.Composite) (uint64, error) { return c.ReadUint64() },
		func(c *buf.Composite, i int) uint64 { return c.GetUint64(i) },
		func(c *buf.Composite, i int, v uint64) { c.PutUint64(i, v) }},
	{codecs[3],
		func(c *buf.Composite) (uint64, error) { v, err := c.ReadUint16LE(); return uint64(v), err },
		func(c *buf.Composite, i int) uint64 { return uint64(c.GetUint16LE(i)) },
		func(c *buf.Composite, i int, v uint64) { c.PutUint16LE(i, uint16(v)) }},
	{codecs[4],
		func(c *buf.Composite) (uint64, error) { v, err := c.ReadUint32LE(); return uint64(v), err },
		func(c *buf.Composite, i int) uint64 { return uint64(c.GetUint32LE(i)) },
		func(c *buf.Composite, i int, v uint64) { c.PutUint32LE(i, uint32(v)) }},
	{codecs[5],
		func(c *buf.Composite) (uint64, error) { return c.ReadUint64LE() },
		func(c *buf.Composite, i int) uint64 { return c.GetUint64LE(i) },
		func(c *buf.Composite, i int, v uint64) { c.PutUint64LE(i, v) }},
}

// compLayouts are component sizes, cycled to cut a composite's bytes: 1–9
// bytes each, so that values of 2, 4 and 8 bytes straddle two, three and
// more components at some offsets and lie inside one at others.
var compLayouts = [][]int{
	{9}, {1}, {2}, {3}, {5, 1, 1}, {7, 1, 8}, {4, 1, 1, 1, 1, 9}, {1, 2, 3, 4, 5, 6, 7, 8, 9},
}

// compBuffer returns a pooled buffer whose readable bytes are p, with two
// consumed bytes before them, so the composite must take Bytes and not the
// buffer's memory from its start.
func compBuffer(p []byte) *buf.Buffer {
	b := buf.Get(len(p) + 2)
	b.Write([]byte{0xEE, 0xEE})
	b.Skip(2)
	b.Write(p)
	return b
}

// compPieces cuts data into buffers of the sizes of layout (cycled).
func compPieces(data []byte, layout []int) []*buf.Buffer {
	var bs []*buf.Buffer
	for i, k := 0, 0; i < len(data); k++ {
		n := min(layout[k%len(layout)], len(data)-i)
		bs = append(bs, compBuffer(data[i:i+n]))
		i += n
	}
	return bs
}

// compFrom returns a composite of data cut as compPieces does, and its
// buffers, each retained once more so the caller can watch the composite
// release them (and must release them itself).
func compFrom(data []byte, layout []int, opts ...buf.CompositeOption) (*buf.Composite, []*buf.Buffer) {
	c := buf.NewComposite(opts...)
	bs := compPieces(data, layout)
	for _, b := range bs {
		c.Append(b.Retain())
	}
	return c, bs
}

// compNew is compFrom for callers that do not watch the buffers.
func compNew(data []byte, layout []int, opts ...buf.CompositeOption) *buf.Composite {
	c := buf.NewComposite(opts...)
	for _, b := range compPieces(data, layout) {
		c.Append(b)
	}
	return c
}

// releaseAll releases one reference to each of bs.
func releaseAll(bs []*buf.Buffer) {
	for _, b := range bs {
		b.Release()
	}
}

// compFlat returns the readable bytes of c as Buffers gives them.
func compFlat(c *buf.Composite) []byte {
	var p []byte
	for _, v := range c.Buffers() {
		p = append(p, v...)
	}
	return p
}

// checkComp fails t unless c's readable bytes are want, through Len and
// Buffers, whose views must all be non-empty.
func checkComp(t *testing.T, c *buf.Composite, want []byte) {
	t.Helper()
	for i, v := range c.Buffers() {
		require.NotEmpty(t, v, "Buffers()[%d] is empty", i)
	}
	require.Equal(t, len(want), c.Len(), "Len")
	if got := compFlat(c); !bytes.Equal(got, want) {
		require.Equal(t, trim(want), trim(got), "readable bytes")
	}
	n, views := c.NumComponents(), len(c.Buffers())
	require.GreaterOrEqual(t, n, views, "NumComponents %d < %d views", n, views)
}

// checkRefs fails t unless the buffers' reference counts are want, in order.
func checkRefs(t *testing.T, bs []*buf.Buffer, want ...int) {
	t.Helper()
	got := make([]int, len(bs))
	for i, b := range bs {
		got[i] = b.RefCount()
	}
	require.Equal(t, want, got, "RefCounts")
}

// repeat returns n copies of v.
func repeat(v, n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = v
	}
	return p
}

// compReads are the reads that consume a fixed number of bytes, each
// returning the bytes it consumed as it saw them (nil for Skip and
// Discard, which return none).
var compReads = func() []struct {
	name string
	n    int
	read func(c *buf.Composite) ([]byte, error)
} {
	type read = struct {
		name string
		n    int
		read func(c *buf.Composite) ([]byte, error)
	}
	rs := []read{
		{"ReadByte", 1, func(c *buf.Composite) ([]byte, error) { v, err := c.ReadByte(); return []byte{v}, err }},
	}
	for _, n := range []int{1, 3, 5, 13} {
		rs = append(rs,
			read{fmt.Sprintf("Next(%d)", n), n, func(c *buf.Composite) ([]byte, error) { return c.Next(n) }},
			read{fmt.Sprintf("Skip(%d)", n), n, func(c *buf.Composite) ([]byte, error) { return nil, c.Skip(n) }},
			read{fmt.Sprintf("Discard(%d)", n), n, func(c *buf.Composite) ([]byte, error) { return nil, c.Discard(n) }})
	}
	for _, cc := range compCodecs {
		rs = append(rs, read{"Read" + cc.enc.name, cc.enc.size, func(c *buf.Composite) ([]byte, error) {
			v, err := cc.read(c)
			if err != nil && v != 0 {
				return nil, fmt.Errorf("value %#x with error %w", v, err)
			}
			return cc.enc.encode(nil, v), err
		}})
	}
	return rs
}()

// TestCompositeReads reads from every offset of composites cut in every
// layout, so each read runs inside one component, across two and across
// three or more; then reads the same way to the end, where the last read
// falls short.
func TestCompositeReads(t *testing.T) {
	buftest.CheckLeaks(t)
	data := pattern(40)
	for _, layout := range compLayouts {
		for _, rd := range compReads {
			for start := 0; start+rd.n <= len(data); start++ {
				c := compNew(data, layout)
				if start%2 == 0 {
					c.Discard(start)
				} else {
					c.Skip(start)
				}
				got, err := rd.read(c)
				require.NoError(t, err, "layout %v, %s at %d", layout, rd.name, start)
				if got != nil {
					require.Equal(t, data[start:start+rd.n], got, "layout %v, %s at %d", layout, rd.name, start)
				}
				checkComp(t, c, data[start+rd.n:])
				c.Release()
			}
			// Consecutive reads to the end.
			c, m := compNew(data, layout), &compModel{data: bytes.Clone(data)}
			for {
				got, err := rd.read(c)
				want, wantErr := m.Next(rd.n)
				require.Equal(t, wantErr, err, "layout %v, %s with %d left", layout, rd.name, m.Len()+len(want))
				if err == nil && got != nil {
					require.Equal(t, want, got, "layout %v, %s with %d left", layout, rd.name, m.Len()+len(want))
				}
				checkComp(t, c, m.data)
				if err != nil {
					break
				}
			}
			c.Release()
		}
	}
}

// TestCompositeShortReads checks that a read of more than Len bytes returns
// io.EOF on an empty composite and io.ErrUnexpectedEOF otherwise, and
// consumes nothing, whatever the reader's position among the components.
func TestCompositeShortReads(t *testing.T) {
	buftest.CheckLeaks(t)
	data := pattern(16)
	for _, rd := range compReads {
		for have := range rd.n {
			for _, skip := range []int{0, 1, 3, 4} {
				// skip bytes read before the have bytes: the reader sits at
				// a seam, inside a component or after all of them.
				c := compNew(data[:skip+have], []int{2, 1})
				c.Skip(skip)
				got, err := rd.read(c)
				wantErr := io.ErrUnexpectedEOF
				if have == 0 {
					wantErr = io.EOF
				}
				require.Equal(t, wantErr, err, "%s with %d readable (%d skipped) = %x", rd.name, have, skip, got)
				checkComp(t, c, data[skip:skip+have])
				c.Release()
			}
		}
	}
}

func TestCompositeRead(t *testing.T) {
	buftest.CheckLeaks(t)
	data := pattern(50)
	for _, layout := range compLayouts {
		for _, n := range []int{1, 2, 3, 5, 8, 13, 64} {
			c, m := compNew(data, layout), &compModel{data: bytes.Clone(data)}
			for {
				p, q := make([]byte, n), make([]byte, n)
				got, err := c.Read(p)
				want, wantErr := m.Read(q)
				require.Equal(t, wantErr, err, "layout %v: Read(%d bytes)", layout, n)
				require.Equal(t, want, got, "layout %v: Read(%d bytes)", layout, n)
				require.Equal(t, q[:want], p[:got], "layout %v: Read(%d bytes)", layout, n)
				checkComp(t, c, m.data)
				if err != nil {
					break
				}
				n, err := c.Read(nil)
				require.NoError(t, err, "Read(nil)")
				require.Zero(t, n, "Read(nil)")
			}
			n, err := c.Read(nil)
			require.Equal(t, 0, n, "Read(nil) when empty = %d, %v, want 0, nil", n, err)
			require.NoError(t, err, "Read(nil) when empty = %d, %v, want 0, nil", n, err)
			c.Release()
		}
	}
	// io.ReadAll through the io.Reader and io.ByteReader interfaces.
	var r io.Reader = compNew(data, []int{3, 1})
	got, err := io.ReadAll(r)
	require.NoError(t, err, "io.ReadAll = %x", got)
	require.Equal(t, data, got, "io.ReadAll = %x, %v", got, err)
	r.(*buf.Composite).Release()
}

func TestCompositeReadByte(t *testing.T) {
	buftest.CheckLeaks(t)
	data := pattern(30)
	for _, layout := range compLayouts {
		c := compNew(data, layout)
		for i := range data {
			v, err := c.ReadByte()
			require.NoError(t, err, "layout %v: ReadByte #%d", layout, i)
			require.Equal(t, data[i], v, "layout %v: ReadByte #%d", layout, i)
		}
		v, err := c.ReadByte()
		require.Equal(t, io.EOF, err, "ReadByte at the end")
		require.Zero(t, v, "ReadByte at the end")
		c.Release()
	}
}

// TestCompositeNext checks where Next's slices point: into the component
// when the bytes lie in one, into a copy when they straddle.
func TestCompositeNext(t *testing.T) {
	buftest.CheckLeaks(t)
	c, bs := compFrom([]byte("abcdefgh"), []int{4, 4})
	defer releaseAll(bs)
	defer c.Release()
	p0, err := c.Next(0)
	require.NoError(t, err, "Next(0)")
	require.Empty(t, p0, "Next(0)")
	p, err := c.Next(3)
	require.Equal(t, "abc", string(p), "Next(3) = %q, %v (cap %d): want a view of the first buffer", p, err, cap(p))
	require.NoError(t, err, "Next(3) = %q, %v (cap %d): want a view of the first buffer", p, err, cap(p))
	require.Same(t, &bs[0].Bytes()[0], &p[0], "Next(3) = %q, %v (cap %d): want a view of the first buffer", p, err, cap(p))
	require.Equal(t, 3, cap(p), "Next(3) = %q, %v (cap %d): want a view of the first buffer", p, err, cap(p))
	p, err = c.Next(2)
	require.Equal(t, "de", string(p), "Next(2) across the seam = %q, %v (cap %d)", p, err, cap(p))
	require.NoError(t, err, "Next(2) across the seam = %q, %v (cap %d)", p, err, cap(p))
	require.Equal(t, 2, cap(p), "Next(2) across the seam = %q, %v (cap %d)", p, err, cap(p))
	p, err = c.Next(3)
	require.Equal(t, "fgh", string(p), "Next(3) = %q, %v: want a view of the second buffer", p, err)
	require.NoError(t, err, "Next(3) = %q, %v: want a view of the second buffer", p, err)
	require.Same(t, &bs[1].Bytes()[1], &p[0], "Next(3) = %q, %v: want a view of the second buffer", p, err)
	p0, err = c.Next(0)
	require.NoError(t, err, "Next(0) at the end")
	require.Empty(t, p0, "Next(0) at the end")
	p0, err = c.Next(1)
	require.Equal(t, io.EOF, err, "Next(1) at the end")
	require.Nil(t, p0, "Next(1) at the end")
}

// TestCompositeNextSurvivesSearch checks that a straddling Next's bytes,
// which live in a scratch area, stay valid through searches, which also
// copy bytes across seams: they are neither reads nor Discard nor Release.
func TestCompositeNextSurvivesSearch(t *testing.T) {
	buftest.CheckLeaks(t)
	c := compNew([]byte("abcdefghijklmnopqrstuvwxyz"), []int{3})
	defer c.Release()
	p, err := c.Next(5)
	require.Equal(t, "abcde", string(p), "Next(5) = %q, %v", p, err)
	require.NoError(t, err, "Next(5) = %q", p)
	i := c.Index([]byte("ijklmnopq"))
	require.Equal(t, 3, i, "Index = %d, want 3", i)
	require.Equal(t, 18, c.Index([]byte("xyz")), "Index")
	c.GetUint64(1)
	c.PutUint32(2, c.GetUint32(2))
	s := c.RetainedSlice(1, 10)
	s.Release()
	c.Buffers()
	require.Equal(t, "abcde", string(p), "Next's slice changed to %q without a read, Discard or Release", p)
}

func TestCompositeGetPut(t *testing.T) {
	buftest.CheckLeaks(t)
	data := pattern(30)
	vals := testValues()
	for _, layout := range compLayouts {
		for _, cc := range compCodecs {
			for _, skip := range []int{0, 3} {
				c, bs := compFrom(data, layout)
				c.Skip(skip) // offsets count from the reader
				m := &compModel{data: bytes.Clone(data[skip:])}
				for i := 0; i+cc.enc.size <= m.Len(); i++ {
					got, want := cc.get(c, i), cc.enc.decode(m.data[i:])
					require.Equal(t, want, got, "layout %v, skip %d: Get%s(%d)", layout, skip, cc.enc.name, i)
				}
				for k, v := range vals {
					i := k % (m.Len() - cc.enc.size + 1)
					cc.put(c, i, v)
					m.Put(i, cc.enc.encode(nil, v))
					got := cc.get(c, i)
					require.Equal(t, v&cc.enc.mask(), got, "layout %v: Get%s(%d) after Put(%#x) = %#x", layout, cc.enc.name, i, v, got)
				}
				checkComp(t, c, m.data)
				// Put wrote into the buffers' memory, which their other
				// holder (this test) sees.
				var held []byte
				for _, b := range bs {
					held = append(held, b.Bytes()...)
				}
				require.Equal(t, m.data, held[skip:], "layout %v: buffers after Puts", layout)
				c.Release()
				releaseAll(bs)
			}
		}
	}
}

// TestCompositePanics checks the documented panics: out-of-range Get, Put,
// Slice and Insert and negative counts. None changes anything.
func TestCompositePanics(t *testing.T) {
	buftest.CheckLeaks(t)
	data := pattern(12)
	c := compNew(data, []int{5})
	defer c.Release()
	c.Skip(2) // 10 readable
	n := c.Len()
	for _, cc := range compCodecs {
		for _, i := range []int{-1, n - cc.enc.size + 1, n, 1 << 30} {
			want := fmt.Sprintf("buf: Composite index %d, width %d out of range with %d readable bytes", i, cc.enc.size, n)
			mustPanic(t, want, func() { cc.get(c, i) })
			mustPanic(t, want, func() { cc.put(c, i, 0) })
		}
	}
	for _, r := range [][2]int{{-1, 0}, {0, -1}, {0, n + 1}, {n, 1}, {1, n}, {n + 1, 0}, {-5, 6}} {
		mustPanic(t, fmt.Sprintf("buf: Composite.RetainedSlice(%d, %d) out of range with %d readable bytes", r[0], r[1], n), func() { c.RetainedSlice(r[0], r[1]).Release() })
	}
	for _, off := range []int{-1, n + 1} {
		b := compBuffer([]byte("x"))
		mustPanic(t, fmt.Sprintf("buf: Composite.Insert at %d out of range with %d readable bytes", off, n), func() { c.Insert(off, b) })
		require.Equal(t, 1, b.RefCount(), "Insert(%d) panicked but took the buffer (RefCount %d)", off, b.RefCount())
		b.Release()
	}
	mustPanic(t, "buf: Composite.Next with negative count", func() { c.Next(-1) })
	mustPanic(t, "buf: Composite.Skip with negative count", func() { c.Skip(-1) })
	mustPanic(t, "buf: Composite.Discard with negative count", func() { c.Discard(-1) })
	checkComp(t, c, data[2:])
	if t.Failed() {
		t.FailNow()
	}
	// The edges are in range.
	for _, cc := range compCodecs {
		cc.put(c, n-cc.enc.size, cc.get(c, n-cc.enc.size))
		cc.put(c, 0, cc.get(c, 0))
	}
	for _, r := range [][2]int{{0, 0}, {n, 0}, {0, n}, {n - 1, 1}} {
		s := c.RetainedSlice(r[0], r[1])
		checkComp(t, s, data[2+r[0]:2+r[0]+r[1]])
		s.Release()
	}
	checkComp(t, c, data[2:])
}

func TestCompositeAppendEmpty(t *testing.T) {
	buftest.CheckLeaks(t)
	c := compNew([]byte("abc"), []int{3})
	defer c.Release()
	read := buf.Get(8)
	read.WriteString("xy")
	read.Next(2)
	for _, b := range []*buf.Buffer{buf.Get(8), buf.Wrap(nil), read} {
		b.Retain()
		c.Append(b)
		require.Equal(t, 1, b.RefCount(), "Append of an empty buffer kept it: RefCount %d, want 1", b.RefCount())
		b.Release()
		require.Equal(t, 1, c.NumComponents(), "Append of an empty buffer: %d components, want 1", c.NumComponents())
		checkComp(t, c, []byte("abc"))
	}
	// A released buffer is refused before anything changes.
	a := buf.NewAllocator()
	dead := a.Get(8)
	dead.WriteString("x")
	dead.Release()
	mustPanic(t, buf.ErrReleased, func() { c.Append(dead) })
	checkComp(t, c, []byte("abc"))
}

func TestCompositeAppendAll(t *testing.T) {
	buftest.CheckLeaks(t)
	c := buf.NewComposite()
	defer c.Release()
	m := &compModel{}
	var all []*buf.Buffer
	for round := range 20 {
		// Two to six buffers, one of them empty, into a composite whose
		// front has been partly read, so the arrays grow and compact.
		bs := compPieces(pattern(round%5+4), []int{round%3 + 1, 2})
		bs = append(bs, buf.Get(4))
		for _, b := range bs {
			m.Append(b.Bytes())
			all = append(all, b.Retain())
		}
		c.AppendAll(bs...)
		checkComp(t, c, m.data)
		if round == 0 {
			require.Equal(t, len(bs)-1, c.NumComponents(), "components after AppendAll of %d buffers, one empty", len(bs))
		}
		require.Equal(t, 1, all[len(all)-1].RefCount(), "AppendAll kept an empty buffer")
		k := m.Len() / 2
		c.Discard(k)
		m.Next(k)
		checkComp(t, c, m.data)
	}
	c.AppendAll()
	checkComp(t, c, m.data)
	c.Discard(c.Len())
	checkRefs(t, all, repeat(1, len(all))...)
	releaseAll(all)
}

func TestCompositeInsert(t *testing.T) {
	buftest.CheckLeaks(t)
	data := []byte("0123456789")
	for _, tc := range []struct {
		name   string
		skip   int // bytes read before the Insert
		off    int
		ins    []string
		comps  int // components after the Insert
		splits int // index of the buffer Insert splits, or -1
	}{
		{"start", 0, 0, []string{"ab"}, 3, -1},
		{"middle of a component", 0, 2, []string{"ab"}, 4, 0},
		{"seam", 0, 4, []string{"ab"}, 3, -1},
		{"end", 0, 10, []string{"ab"}, 3, -1},
		{"several with an empty one", 0, 7, []string{"a", "", "bc", "d"}, 6, 1},
		{"only empty", 0, 3, []string{""}, 2, -1},
		{"start after reads", 3, 0, []string{"ab"}, 4, 0},
		{"reader's component after reads", 1, 2, []string{"ab"}, 4, 0},
		{"seam after reads", 3, 1, []string{"ab"}, 3, -1},
		{"end after reads", 3, 7, []string{"ab"}, 3, -1},
		{"at the end of all reads", 10, 0, []string{"ab"}, 3, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, bs := compFrom(data, []int{4, 6})
			c.Skip(tc.skip)
			m := &compModel{data: bytes.Clone(data[tc.skip:])}
			var ins []*buf.Buffer
			var insBytes []byte
			for _, s := range tc.ins {
				b := compBuffer([]byte(s))
				ins = append(ins, b.Retain())
				insBytes = append(insBytes, s...)
			}
			m.Insert(tc.off, insBytes)
			c.Insert(tc.off, ins...)
			checkComp(t, c, m.data)
			require.Equal(t, tc.comps, c.NumComponents(), "%d components after Insert, want %d", c.NumComponents(), tc.comps)
			want := []int{2, 2}
			if tc.splits >= 0 {
				want[tc.splits] = 3 // both halves hold a reference
			}
			checkRefs(t, bs, want...)
			for i, s := range tc.ins {
				want := min(len(s), 1) + 1
				require.Equal(t, want, ins[i].RefCount(), "inserted buffer %q: RefCount", s)
			}
			// Reads and random access go through the new layout.
			for i := 0; i+2 <= m.Len(); i++ {
				got, want := c.GetUint16(i), uint16(m.data[i])<<8|uint16(m.data[i+1])
				require.Equal(t, want, got, "GetUint16(%d)", i)
			}
			for m.Len() > 0 {
				want, _ := m.Next(1)
				got, err := c.ReadByte()
				require.Equal(t, want[0], got, "ReadByte = %q, %v, want %q", got, err, want)
				require.NoError(t, err, "ReadByte = %q, %v, want %q", got, err, want)
			}
			c.Discard(0)
			require.Equal(t, 0, c.NumComponents(), "%d components after reading and discarding everything", c.NumComponents())
			checkRefs(t, append(bs, ins...), repeat(1, len(bs)+len(ins))...)
			c.Release()
			releaseAll(bs)
			releaseAll(ins)
		})
	}
}

func TestCompositeDiscard(t *testing.T) {
	buftest.CheckLeaks(t)
	data := pattern(12)
	c, bs := compFrom(data, []int{3, 4, 5})
	checkRefs(t, bs, 2, 2, 2)

	c.ReadUint16()
	c.Discard(0)
	checkRefs(t, bs, 2, 2, 2) // the first is not read to its end
	c.ReadByte()
	checkRefs(t, bs, 2, 2, 2) // reads release nothing
	require.NoError(t, c.Discard(0), "Discard(0)")
	checkRefs(t, bs, 1, 2, 2)
	require.Equal(t, 2, c.NumComponents(), "%d components, want 2", c.NumComponents())

	require.NoError(t, c.Discard(2), "Discard(2)")
	checkRefs(t, bs, 1, 2, 2) // the remainder of the second is kept
	checkComp(t, c, data[5:])
	require.NoError(t, c.Discard(2), "Discard(2)")
	checkRefs(t, bs, 1, 1, 2)
	checkComp(t, c, data[7:])

	require.Equal(t, io.ErrUnexpectedEOF, c.Discard(6), "Discard(6) of 5")
	checkComp(t, c, data[7:])
	c.Skip(5)
	checkRefs(t, bs, 1, 1, 2)
	require.Equal(t, io.EOF, c.Discard(1), "Discard(1) when empty")
	checkRefs(t, bs, 1, 1, 1) // still released what was read
	require.Equal(t, 0, c.NumComponents(), "%d components, want 0", c.NumComponents())
	c.Release()
	releaseAll(bs)

	// Across several components at once, from inside one.
	c, bs = compFrom(data, []int{3, 4, 5})
	c.Skip(1)
	require.NoError(t, c.Discard(8), "Discard(8)")
	checkRefs(t, bs, 1, 1, 2)
	checkComp(t, c, data[9:])
	c.Discard(3)
	checkRefs(t, bs, 1, 1, 1)
	c.Append(compBuffer([]byte("more"))) // usable after everything went
	checkComp(t, c, []byte("more"))
	c.Release()
	releaseAll(bs)

	// Many components: Discard keeps the arrays small (it releases from
	// the front while Append adds at the back).
	c = buf.NewComposite()
	m := &compModel{}
	for i := range 2000 {
		p := pattern(i%9 + 1)
		c.Append(compBuffer(p))
		m.Append(p)
		n := max(m.Len()-4, 0)
		if i%3 == 0 {
			n = m.Len() / 2
		}
		c.Discard(n)
		m.Next(n)
		require.LessOrEqual(t, c.NumComponents(), 10, "components held for %d bytes", c.Len())
	}
	checkComp(t, c, m.data)
	c.Release()
}

func TestCompositeSlice(t *testing.T) {
	buftest.CheckLeaks(t)
	data := pattern(30)
	layout := []int{1, 2, 3, 4, 5, 6, 7, 8, 9} // 30 = 1+…+7 + 2
	c, bs := compFrom(data, layout)
	c.Skip(2) // in the second component
	s := c.RetainedSlice(5, 12)
	checkComp(t, s, data[7:19])
	// Readable offsets 5–16 are stream offsets 7–18: components 3 (6–9),
	// 4 (10–14) and 5 (15–20).
	checkRefs(t, bs, 2, 2, 2, 3, 3, 3, 2, 2)
	ss := s.RetainedSlice(3, 5) // a slice of a slice
	checkComp(t, ss, data[10:15])
	checkRefs(t, bs, 2, 2, 2, 3, 4, 3, 2, 2)

	c.Release()
	checkRefs(t, bs, 1, 1, 1, 2, 3, 2, 1, 1)
	// The slices outlive their parent and read like composites.
	checkComp(t, s, data[7:19])
	v, err := s.ReadUint64()
	require.NoError(t, err, "ReadUint64 from a slice = %#x", v)
	require.Equal(t, codecs[2].decode(data[7:]), v, "ReadUint64 from a slice = %#x, %v", v, err)
	require.Equal(t, codecs[4].decode(data[15:]), uint64(s.GetUint32LE(0)), "GetUint32LE from a slice")
	i := s.Index(data[16:18])
	require.Equal(t, 1, i, "Index in a slice = %d, want 1", i)
	s.Discard(4)
	checkComp(t, s, nil)
	s.Release()
	checkRefs(t, bs, 1, 1, 1, 1, 2, 1, 1, 1)
	checkComp(t, ss, data[10:15])
	ss.Release()
	checkRefs(t, bs, 1, 1, 1, 1, 1, 1, 1, 1)
	releaseAll(bs)

	// An empty slice holds nothing.
	c, bs = compFrom(data[:5], []int{5})
	for _, off := range []int{0, 3, 5} {
		e := c.RetainedSlice(off, 0)
		checkRefs(t, bs, 2)
		checkComp(t, e, nil)
		_, err := e.ReadByte()
		require.Equal(t, io.EOF, err, "ReadByte from an empty slice")
		e.Append(compBuffer([]byte("z")))
		checkComp(t, e, []byte("z"))
		e.Release()
	}
	c.Release()
	releaseAll(bs)
}

func TestCompositeConsolidate(t *testing.T) {
	buftest.CheckLeaks(t)
	data := pattern(12)

	t.Run("empty", func(t *testing.T) {
		c := buf.NewComposite()
		require.Nil(t, c.Consolidate(), "Consolidate of a new composite")
		c.Release()
		c, bs := compFrom(data[:7], []int{3, 4})
		c.Skip(7)
		require.Nil(t, c.Consolidate(), "Consolidate with everything read")
		checkRefs(t, bs, 1, 1) // and what was read is released
		require.Equal(t, 0, c.NumComponents(), "%d components, want 0", c.NumComponents())
		c.Release()
		releaseAll(bs)
	})

	// With one component holding exactly the readable bytes nothing is
	// copied: the component's buffer is returned.
	for _, tc := range []struct {
		name   string
		layout []int
		read   func(c *buf.Composite)
		want   int // index of the buffer returned
	}{
		{"one component", []int{5}, func(*buf.Composite) {}, 0},
		{"after Skip to a seam", []int{3, 5}, func(c *buf.Composite) { c.Skip(3) }, 1},
		{"after Discard to a seam", []int{3, 5}, func(c *buf.Composite) { c.Discard(3) }, 1},
		{"after reads to a seam", []int{2, 1, 5}, func(c *buf.Composite) { c.ReadUint16(); c.ReadByte() }, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			total := 0
			for _, n := range tc.layout {
				total += n
			}
			c, bs := compFrom(data[:total], tc.layout)
			tc.read(c)
			want := data[total-tc.layout[len(tc.layout)-1] : total]
			b := c.Consolidate()
			require.Same(t, bs[tc.want], b, "Consolidate copied (returned %p, want buffer %d %p)", b, tc.want, bs[tc.want])
			require.Equal(t, want, b.Bytes(), "Consolidate")
			require.Equal(t, 1, c.NumComponents(), "components after Consolidate")
			checkComp(t, c, want)
			// This test's, the composite's and the caller's reference.
			refs := repeat(1, len(bs))
			refs[tc.want] = 3
			checkRefs(t, bs, refs...)
			require.False(t, b.Release(), "Release of Consolidate's result freed the composite's component")
			checkComp(t, c, want)
			c.Release()
			releaseAll(bs)
		})
	}

	// Otherwise the readable bytes are copied into one new buffer, and
	// the buffer returned holds exactly them.
	for _, tc := range []struct {
		name  string
		make  func() (*buf.Composite, []*buf.Buffer, func())
		bytes []byte
	}{
		{"several", func() (*buf.Composite, []*buf.Buffer, func()) {
			c, bs := compFrom(data, []int{3, 4, 5})
			c.Skip(1)
			return c, bs, func() {}
		}, data[1:]},
		{"one component partly read", func() (*buf.Composite, []*buf.Buffer, func()) {
			c, bs := compFrom(data[:5], []int{5})
			c.Skip(2)
			return c, bs, func() {}
		}, data[2:5]},
		{"part of a component in a slice", func() (*buf.Composite, []*buf.Buffer, func()) {
			p, bs := compFrom(data[:6], []int{6})
			c := p.RetainedSlice(1, 3)
			return c, bs, func() { p.Release() }
		}, data[1:4]},
		{"half of a split component", func() (*buf.Composite, []*buf.Buffer, func()) {
			c, bs := compFrom(data[:6], []int{6})
			x := compBuffer([]byte("xy"))
			c.Insert(3, x)
			c.Discard(5) // "012" and "xy": the reader is at "345"
			return c, bs, func() {}
		}, data[3:6]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, bs, done := tc.make()
			b := c.Consolidate()
			require.NotNil(t, b, "Consolidate")
			require.Equal(t, tc.bytes, b.Bytes(), "Consolidate")
			require.Equal(t, 1, c.NumComponents(), "components after Consolidate")
			for _, x := range bs {
				require.NotSame(t, x, b, "Consolidate returned a component's buffer")
			}
			checkComp(t, c, tc.bytes)
			done()
			checkRefs(t, bs, repeat(1, len(bs))...) // the components are released
			n := b.RefCount()
			require.Equal(t, 2, n, "Consolidate's buffer has %d references, want 2 (the composite's and the caller's)", n)
			v, err := c.ReadByte()
			require.Equal(t, tc.bytes[0], v, "ReadByte after Consolidate = %#x, %v", v, err)
			require.NoError(t, err, "ReadByte after Consolidate = %#x", v)
			b2 := c.Consolidate()
			require.NotNil(t, b2, "second Consolidate")
			require.Equal(t, tc.bytes[1:], b2.Bytes(), "second Consolidate")
			checkComp(t, c, tc.bytes[1:])
			c.Release()
			require.Equal(t, 1, b.RefCount(), "references to Consolidate's buffer after the composite's Release")
			require.Equal(t, tc.bytes, b.Bytes(), "Consolidate's buffer after the composite's Release")
			b2.Release()
			require.True(t, b.Release(), "the caller's Release of Consolidate's buffer did not free it")
			releaseAll(bs)
		})
	}

	t.Run("WithAllocator", func(t *testing.T) {
		a := buf.NewAllocator()
		c := compNew(data, []int{5}, buf.WithAllocator(a))
		b := c.Consolidate()
		require.NotEqual(t, int64(0), a.Stats().Total().InUse, "Consolidate did not take its buffer from the composite's allocator")
		require.Equal(t, data, b.Bytes(), "Consolidate = %x", b.Bytes())
		b.Release()
		c.Release()
		got := a.Stats().Total().InUse
		require.Equal(t, int64(0), got, "%d bytes in use after Release", got)
	})
}

func TestCompositeMaxComponents(t *testing.T) {
	buftest.CheckLeaks(t)
	for _, limit := range []int{-1, 0, 1, 2, 3, 16} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			data := pattern(100)
			c := buf.NewComposite(buf.WithMaxComponents(limit))
			m := &compModel{}
			var bs []*buf.Buffer
			maxSeen := 0
			for i, b := range compPieces(data, []int{1, 2, 3, 4, 5, 6, 7, 8, 9}) {
				m.Append(b.Bytes())
				bs = append(bs, b)
				c.Append(b.Retain())
				maxSeen = max(maxSeen, c.NumComponents())
				if limit > 0 {
					require.LessOrEqual(t, c.NumComponents(), limit, "components after Append #%d", i)
				}
				checkComp(t, c, m.data)
				if i%3 == 2 {
					// Reads across seams in between; consumed bytes are
					// dropped by the next consolidation.
					got, err := c.Next(4)
					want, wantErr := m.Next(4)
					require.Equal(t, wantErr, err, "Next(4)")
					require.Equal(t, want, got, "Next(4)")
				}
			}
			require.False(t, limit <= 0 && maxSeen != len(bs), "no limit, but at most %d components for %d appends", maxSeen, len(bs))
			held := 0
			for _, b := range bs {
				if b.RefCount() == 2 {
					held++
				}
			}
			require.False(t, limit > 0 && held > limit, "%d appended buffers still held with a limit of %d", held, limit)
			checkComp(t, c, m.data)
			c.Release()
			checkRefs(t, bs, repeat(1, len(bs))...)
			releaseAll(bs)
		})
	}
	require.Zero(t, buf.DefaultMaxComponents, "DefaultMaxComponents: no limit")
}

// TestCompositeDiscardAll checks that Discard(Len), which replaced Reset,
// releases every component, including ones partly read, and leaves the
// composite empty and usable, reusing its arrays.
func TestCompositeDiscardAll(t *testing.T) {
	buftest.CheckLeaks(t)
	data := pattern(7)
	c, bs := compFrom(data, []int{3, 4})
	c.Skip(1)
	require.NoError(t, c.Discard(c.Len()), "Discard(Len)")
	checkRefs(t, bs, 1, 1)
	checkComp(t, c, nil)
	require.Equal(t, 0, c.NumComponents(), "%d components after Discard(Len)", c.NumComponents())
	_, err := c.ReadByte()
	require.Equal(t, io.EOF, err, "ReadByte after Discard(Len)")
	// Usable afterwards.
	for _, b := range compPieces(data, []int{2}) {
		c.Append(b)
	}
	checkComp(t, c, data)
	v, err := c.ReadUint32()
	require.NoError(t, err, "ReadUint32 after Discard(Len) and Append")
	require.Equal(t, codecs[1].decode(data), uint64(v), "ReadUint32 after Discard(Len) and Append")
	for range 2 {
		require.NoError(t, c.Discard(c.Len()), "Discard(Len)")
	}
	checkComp(t, c, nil)
	c.Release()
	releaseAll(bs)
}

// TestCompositeDiscardAllReusesArrays checks that emptying a composite with
// Discard(Len) keeps its arrays: appending as many components again
// allocates nothing.
func TestCompositeDiscardAllReusesArrays(t *testing.T) {
	c := buf.NewComposite()
	defer c.Release()
	bs := make([]*buf.Buffer, 8)
	for i := range bs {
		bs[i] = buf.Wrap([]byte("abc"))
	}
	fill := func() {
		for _, b := range bs {
			c.Append(b.Retain())
		}
		c.Skip(4) // partly read
		require.NoError(t, c.Discard(c.Len()), "Discard(Len)")
	}
	fill() // grows the arrays
	n := testing.AllocsPerRun(100, fill)
	require.Equal(t, float64(0), n, "%v allocations per refill after Discard(Len), want 0", n)
	for i, b := range bs {
		require.Equal(t, 1, b.RefCount(), "buffer %d has %d references after Discard(Len), want 1", i, b.RefCount())
		b.Release()
	}
}

// compMethods calls every method of *Composite with arguments valid on a
// live composite holding at least 16 readable bytes. b is a live buffer
// for the methods that take one; the caller releases it if it is left
// with a reference.
var compMethods = []struct {
	name string
	call func(c *buf.Composite, b *buf.Buffer)
}{
	{"Len", func(c *buf.Composite, _ *buf.Buffer) { c.Len() }},
	{"NumComponents", func(c *buf.Composite, _ *buf.Buffer) { c.NumComponents() }},
	{"Append", func(c *buf.Composite, b *buf.Buffer) { c.Append(b) }},
	{"AppendAll", func(c *buf.Composite, b *buf.Buffer) { c.AppendAll(b) }},
	{"AppendAll()", func(c *buf.Composite, _ *buf.Buffer) { c.AppendAll() }},
	{"Insert", func(c *buf.Composite, b *buf.Buffer) { c.Insert(0, b) }},
	{"Discard", func(c *buf.Composite, _ *buf.Buffer) { c.Discard(1) }},
	{"Discard(0)", func(c *buf.Composite, _ *buf.Buffer) { c.Discard(0) }},
	{"Release", func(c *buf.Composite, _ *buf.Buffer) { c.Release() }},
	{"Discard(Len)", func(c *buf.Composite, _ *buf.Buffer) { c.Discard(c.Len()) }},
	{"Consolidate", func(c *buf.Composite, _ *buf.Buffer) {
		if b := c.Consolidate(); b != nil {
			b.Release()
		}
	}},
	{"RetainedSlice", func(c *buf.Composite, _ *buf.Buffer) { c.RetainedSlice(0, 1).Release() }},
	{"RetainedSlice(0, 0)", func(c *buf.Composite, _ *buf.Buffer) { c.RetainedSlice(0, 0).Release() }},
	{"Read", func(c *buf.Composite, _ *buf.Buffer) { c.Read(make([]byte, 4)) }},
	{"Read(nil)", func(c *buf.Composite, _ *buf.Buffer) { c.Read(nil) }},
	{"ReadByte", func(c *buf.Composite, _ *buf.Buffer) { c.ReadByte() }},
	{"Next", func(c *buf.Composite, _ *buf.Buffer) { c.Next(1) }},
	{"Next(0)", func(c *buf.Composite, _ *buf.Buffer) { c.Next(0) }},
	{"Skip", func(c *buf.Composite, _ *buf.Buffer) { c.Skip(1) }},
	{"ReaderIndex", func(c *buf.Composite, _ *buf.Buffer) { c.ReaderIndex() }},
	{"SetReaderIndex", func(c *buf.Composite, _ *buf.Buffer) { c.SetReaderIndex(0) }},
	{"ReadUint16", func(c *buf.Composite, _ *buf.Buffer) { c.ReadUint16() }},
	{"ReadUint32", func(c *buf.Composite, _ *buf.Buffer) { c.ReadUint32() }},
	{"ReadUint64", func(c *buf.Composite, _ *buf.Buffer) { c.ReadUint64() }},
	{"ReadUint16LE", func(c *buf.Composite, _ *buf.Buffer) { c.ReadUint16LE() }},
	{"ReadUint32LE", func(c *buf.Composite, _ *buf.Buffer) { c.ReadUint32LE() }},
	{"ReadUint64LE", func(c *buf.Composite, _ *buf.Buffer) { c.ReadUint64LE() }},
	{"GetUint16", func(c *buf.Composite, _ *buf.Buffer) { c.GetUint16(0) }},
	{"GetUint32", func(c *buf.Composite, _ *buf.Buffer) { c.GetUint32(0) }},
	{"GetUint64", func(c *buf.Composite, _ *buf.Buffer) { c.GetUint64(0) }},
	{"GetUint16LE", func(c *buf.Composite, _ *buf.Buffer) { c.GetUint16LE(0) }},
	{"GetUint32LE", func(c *buf.Composite, _ *buf.Buffer) { c.GetUint32LE(0) }},
	{"GetUint64LE", func(c *buf.Composite, _ *buf.Buffer) { c.GetUint64LE(0) }},
	{"PutUint16", func(c *buf.Composite, _ *buf.Buffer) { c.PutUint16(0, 1) }},
	{"PutUint32", func(c *buf.Composite, _ *buf.Buffer) { c.PutUint32(0, 1) }},
	{"PutUint64", func(c *buf.Composite, _ *buf.Buffer) { c.PutUint64(0, 1) }},
	{"PutUint16LE", func(c *buf.Composite, _ *buf.Buffer) { c.PutUint16LE(0, 1) }},
	{"PutUint32LE", func(c *buf.Composite, _ *buf.Buffer) { c.PutUint32LE(0, 1) }},
	{"PutUint64LE", func(c *buf.Composite, _ *buf.Buffer) { c.PutUint64LE(0, 1) }},
	{"Index", func(c *buf.Composite, _ *buf.Buffer) { c.Index([]byte("x")) }},
	{"Index(empty)", func(c *buf.Composite, _ *buf.Buffer) { c.Index(nil) }},
	{"Buffers", func(c *buf.Composite, _ *buf.Buffer) { c.Buffers() }},
	{"WriteTo", func(c *buf.Composite, _ *buf.Buffer) { c.WriteTo(io.Discard) }},
}

func TestCompositeReleased(t *testing.T) {
	buftest.CheckLeaks(t)
	// The methods work on a live composite (so the panics below are due
	// to the release alone).
	for _, m := range compMethods {
		c := compNew(pattern(20), []int{3})
		b := compBuffer([]byte("live")).Retain() // the composite may take one
		m.call(c, b)
		if m.name != "Release" {
			c.Release()
		}
		want := 2 // methods that do not take b leave both references
		switch m.name {
		case "Append", "AppendAll", "Insert":
			want = 1
		}
		require.Equal(t, want, b.RefCount(), "%s: the buffer's RefCount is %d after the composite's Release, want %d", m.name, b.RefCount(), want)
		for range want {
			b.Release()
		}
	}
	for _, m := range compMethods {
		c, bs := compFrom(pattern(20), []int{3})
		c.Release()
		checkRefs(t, bs, repeat(1, len(bs))...)
		releaseAll(bs)
		b := compBuffer([]byte("live"))
		func() {
			defer func() {
				r := recover()
				err, ok := r.(error)
				assert.False(t, !ok || !errors.Is(err, buf.ErrReleased), "%s on a released composite: panic %v (%T), want an error wrapping ErrReleased", m.name, r, r)
			}()
			m.call(c, b)
		}()
		assert.Equal(t, 1, b.RefCount(), "%s on a released composite took the buffer (RefCount %d)", m.name, b.RefCount())
		b.Release()
	}
}

func TestCompositeBufferViews(t *testing.T) {
	buftest.CheckLeaks(t)
	data := pattern(30)
	for _, layout := range compLayouts {
		for skip := 0; skip <= len(data); skip++ {
			c, bs := compFrom(data, layout)
			c.Skip(skip)
			views := c.Buffers()
			checkComp(t, c, data[skip:])
			// One view per component holding readable bytes: a partly
			// read component's view starts at the reader.
			n, off := 0, 0
			for _, b := range bs {
				if off+b.Len() > skip {
					n++
				}
				off += b.Len()
			}
			require.Len(t, views, n, "layout %v, skip %d: %d views, want %d", layout, skip, len(views), n)
			if c.Len() > 0 {
				last := bs[len(bs)-1].Bytes()
				v := views[len(views)-1]
				require.Same(t, &last[len(last)-1], &v[len(v)-1], "the last view does not alias the last buffer")
			}
			c.Discard(0)
			require.Equal(t, len(views), c.NumComponents(), "layout %v, skip %d: %d components after Discard(0), %d views", layout, skip, c.NumComponents(), len(views))
			c.Release()
			releaseAll(bs)
		}
	}
	c := buf.NewComposite()
	v := c.Buffers()
	require.Empty(t, v, "Buffers of an empty composite = %q", v)
	c.Release()
}

func TestCompositeIndex(t *testing.T) {
	buftest.CheckLeaks(t)
	for _, tc := range testenv.IndexCases {
		c := compNew([]byte(tc.Content), tc.Layout)
		c.Skip(tc.Skip)
		needle := []byte(tc.Needle)
		for range 2 { // the second time with the window area grown
			got := c.Index(needle)
			assert.Equal(t, tc.Want, got, "Index(%q) in %q (layout %v, skip %d)", tc.Needle, tc.Content, tc.Layout, tc.Skip)
		}
		checkComp(t, c, []byte(tc.Content[tc.Skip:]))
		c.Release()
	}

	// Random contents of a small alphabet in tiny components, against
	// bytes.Index on the flat bytes.
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 2000 {
		data, layout := testenv.RandomLayout(r, "ab", 80)
		c := compNew(data, layout)
		skip := r.IntN(len(data) + 1)
		c.Skip(skip)
		flat := data[skip:]
		for range 4 {
			needle := testenv.Needle(r, flat, "ab", 16)
			if trial%5 == 0 {
				needle = testenv.Needle(r, flat, "ab", 40) // longer than every component
			}
			want := bytes.Index(flat, needle)
			got := c.Index(needle)
			require.Equal(t, want, got, "Index(%q) in %q (layout %v)", needle, flat, layout)
			require.Equal(t, want, c.Index(bytes.Clone(needle)), "Index(%q) again", needle)
		}
		checkComp(t, c, flat)
		c.Release()
	}
}

// TestCompositeAllocs checks that steady-state use allocates nothing.
func TestCompositeAllocs(t *testing.T) {
	buftest.CheckLeaks(t)
	testenv.SkipRace(t, "allocation counts differ under the race detector")
	// Buffers for the read tests are wrapped, so the reads and Discard
	// count no pool activity; the first subtest uses a pooled allocator
	// with leak tracking off.
	wrapped := func(data []byte, layout []int) *buf.Composite {
		c := buf.NewComposite()
		for i, k := 0, 0; i < len(data); k++ {
			n := min(layout[k%len(layout)], len(data)-i)
			c.Append(buf.Wrap(data[i : i+n : i+n]))
			i += n
		}
		return c
	}
	const runs = 200
	check := func(name string, f func()) {
		t.Helper()
		n := testing.AllocsPerRun(runs, f)
		assert.Equal(t, float64(0), n, "%s: %v allocs per run, want 0", name, n)
	}

	t.Run("Append+Discard", func(t *testing.T) {
		skipIfNoPooling(t)
		a := buf.NewAllocator(buf.WithLeakLevel(buf.LeakOff))
		payload := pattern(16)
		c := buf.NewComposite()
		defer c.Release()
		cycle := func() {
			b := a.Get(len(payload))
			b.Write(payload)
			c.Append(b)
			c.Skip(16)
			c.Discard(0)
		}
		// Everything released each time.
		for range 64 {
			cycle()
		}
		check("Append, Discard everything", cycle)
		// One component kept across the cycles: the arrays fill and compact.
		held := a.Get(8)
		held.Write(payload[:8])
		c.Append(held)
		roll := func() {
			b := a.Get(len(payload))
			b.Write(payload)
			c.Append(b)
			c.Skip(c.Len() - 16) // the older component is read to its end
			c.Discard(0)
		}
		for range 64 {
			roll()
		}
		check("Append, Discard the older", roll)
	})

	t.Run("ReadUint", func(t *testing.T) {
		c := wrapped(pattern(runs*13+100), []int{1, 2, 3, 5, 7, 9, 4})
		defer c.Release()
		check("ReadUint64+ReadUint32+ReadByte", func() {
			c.ReadUint64()
			c.ReadUint32()
			c.ReadByte()
		})
	})

	t.Run("GetUint64", func(t *testing.T) {
		c := wrapped(pattern(4096), []int{3, 5, 7, 9, 1, 2})
		defer c.Release()
		r := rand.New(rand.NewPCG(9, 10))
		offs := make([]int, 1024)
		for i := range offs {
			offs[i] = r.IntN(c.Len() - 8)
		}
		k := 0
		get := func() {
			for range 16 {
				o := offs[k%len(offs)]
				c.PutUint32(o, c.GetUint32(o))
				c.GetUint64(o)
				k++
			}
		}
		for range 2 * len(offs) / 16 {
			get() // the page index is built on demand
		}
		check("GetUint64, GetUint32, PutUint32 at random offsets", get)
	})

	t.Run("Next inside one component", func(t *testing.T) {
		c := wrapped(pattern(runs*8+100), []int{512})
		defer c.Release()
		check("Next(7)", func() {
			c.Next(7)
			c.Skip(1)
		})
	})

	t.Run("Next straddling", func(t *testing.T) {
		c := wrapped(pattern(runs*16+100), []int{3, 1, 5})
		defer c.Release()
		c.Next(16) // the scratch area grows
		check("Next(16) across seams", func() { c.Next(16) })
	})

	t.Run("search", func(t *testing.T) {
		data := bytes.Repeat([]byte("abcabd"), 100)
		data = append(data, "abcabcabe"...)
		c := wrapped(data, []int{1, 2, 3, 4, 5, 6, 7, 8, 9})
		defer c.Release()
		needle := []byte("cabcabe")
		c.Index(needle)
		// Plain ifs: testify's variadic arguments would allocate.
		check("Index, same needle", func() {
			if c.Index(needle) < 0 {
				t.Fatal("needle not found")
			}
		})
		long := []byte("abdabcabdabcabdabcabx") // a longer needle: a wider window
		check("Index, another needle", func() {
			if c.Index(long) >= 0 {
				t.Fatal("absent needle found")
			}
		})
	})

	t.Run("Discard", func(t *testing.T) {
		c := wrapped(pattern(runs*11+100), []int{1, 2, 3, 5, 7, 9, 4})
		defer c.Release()
		check("Discard(11)", func() { c.Discard(11) })
	})
}

// TestCompositeRandomAccess drives the accessors' lookups: the last
// component, the page index (built after enough scattered accesses),
// offsets appended past what the index covers, a reader moved past
// discarded components, and an Insert that invalidates the index. Every
// Get is checked against the flat model and every Put written to both.
func TestCompositeRandomAccess(t *testing.T) {
	buftest.CheckLeaks(t)
	for _, sizes := range []struct {
		name   string
		lo, hi int
	}{{"tiny", 1, 3}, {"small", 1, 9}, {"mixed", 1, 600}, {"large", 480, 544}, {"equal", 64, 64}} {
		t.Run(sizes.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(sizes.lo), uint64(sizes.hi)))
			c := buf.NewComposite()
			m := &compModel{}
			add := func(k int) {
				for range k {
					p := make([]byte, sizes.lo+r.IntN(sizes.hi-sizes.lo+1))
					for i := range p {
						p[i] = byte(r.Uint32())
					}
					c.Append(compBuffer(p))
					m.Append(p)
				}
			}
			access := func(k int) {
				t.Helper()
				for range k {
					cc := compCodecs[r.IntN(len(compCodecs))]
					if m.Len() < cc.enc.size {
						return
					}
					i := r.IntN(m.Len() - cc.enc.size + 1)
					if r.IntN(4) == 0 {
						v := r.Uint64()
						cc.put(c, i, v)
						m.Put(i, cc.enc.encode(nil, v))
					}
					got, want := cc.get(c, i), cc.enc.decode(m.Get(i, cc.enc.size))
					require.Equal(t, want, got, "Get%s(%d) = %#x, model %#x", cc.enc.name, i, got, want)
				}
			}
			add(200)
			access(2000) // builds the page index
			add(50)      // offsets past the index
			access(2000)
			n := m.Len() / 3
			require.NoError(t, c.Discard(n))
			m.Next(n)
			access(2000)
			x := []byte{1, 2, 3, 4, 5}
			c.Insert(m.Len()/2, compBuffer(x))
			m.Insert(m.Len()/2, x)
			access(2000)
			checkComp(t, c, m.data)
			c.Release()
		})
	}
}

// TestCompositeInsertAfterAppends inserts into a component after every
// count of appends up to 100, so that Insert meets the component arrays at
// every pair of capacities Append's growth leaves them with (they grow
// separately and their capacities differ).
func TestCompositeInsertAfterAppends(t *testing.T) {
	buftest.CheckLeaks(t)
	for k := 1; k <= 100; k++ {
		c, m := buf.NewComposite(), &compModel{}
		for i := range k {
			p := []byte{byte(i), byte(i)}
			c.Append(compBuffer(p))
			m.Append(p)
		}
		x := []byte("ins")
		off := 2*(k/2) + 1 // inside component k/2: it is split
		c.Insert(off, compBuffer(x))
		m.Insert(off, x)
		checkComp(t, c, m.data)
		c.Release()
	}
}
