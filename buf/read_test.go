package buf_test

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/buf/buftest"
)

func TestBufferBytesAliasing(t *testing.T) {
	buftest.CheckLeaks(t)
	b := buf.Get(64)
	defer b.Release()
	b.WriteString("xhello")
	b.Skip(1)
	p := b.Bytes()
	require.Equal(t, "hello", string(p), "Bytes = %q with cap %d", p, cap(p))
	require.Len(t, p, cap(p), "Bytes = %q with cap %d", p, cap(p))
	p[0] = 'j'          // aliases b's memory
	q := append(p, '?') // cap == len: must copy, not write into b
	b.WriteByte('!')
	checkBytes(t, b, []byte("jello!"))
	require.Equal(t, "jello?", string(q), "appended copy = %q", q)
	got, _ := b.Next(2)
	require.Equal(t, "je", string(got), "Next(2) = %q with cap %d", got, cap(got))
	require.Equal(t, 2, cap(got), "Next(2) = %q with cap %d", got, cap(got))
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
	require.Equal(t, end, b.ReaderIndex(), "ReaderIndex %d after failed SetReaderIndex, want %d", b.ReaderIndex(), end)
	c := b.Cap()
	b.Reset()
	require.Equal(t, [3]int{0, 0, c}, [3]int{b.Len(), b.ReaderIndex(), b.Cap()}, "Len, ReaderIndex, Cap after Reset")
	_, err := b.ReadByte()
	require.Equal(t, io.EOF, err, "ReadByte after Reset")
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
		assert.Equal(t, tc.n, n, "Read(%d) of %q", tc.p, tc.content)
		assert.Equal(t, tc.err, err, "Read(%d) of %q", tc.p, tc.content)
		assert.Equal(t, tc.content[:n], string(p[:n]), "Read(%d) of %q", tc.p, tc.content)
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
				assert.False(t, err != nil || got != nil && op.width > 0 && string(got) != content[:op.width], "%s with %d bytes = %x, %v", op.name, have, got, err)
				checkBytes(t, b, []byte(content[op.width:]))
			default:
				want := io.ErrUnexpectedEOF
				if have == 0 {
					want = io.EOF
				}
				assert.Equal(t, want, err, "%s with %d bytes", op.name, have)
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

func TestBufferGetPut(t *testing.T) {
	buftest.CheckLeaks(t)
	a := buf.NewAllocator()
	for _, c := range codecs {
		b := prepared(a, 3, string(pattern(20)))
		for i := 0; i+c.size <= b.Len(); i++ {
			require.Equal(t, c.decode(b.Bytes()[i:]), c.get(b, i), "Get%s(%d)", c.name, i)
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
