package buf_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
		assert.GreaterOrEqual(t, b.Cap(), n, "Get(%d): Cap", n)
		assert.Equal(t, [3]int{0, 1, 0}, [3]int{b.Len(), b.RefCount(), b.ReaderIndex()}, "Get(%d): Len, RefCount, ReaderIndex", n)
		b.Release()
	}
	mustPanic(t, "buf: Get(-1): negative size", func() { a.Get(-1) })
}

func TestBufferTouch(t *testing.T) {
	buftest.CheckLeaks(t) // LeakAll: every buffer is tracked and records the touch
	for _, b := range []*buf.Buffer{buf.Get(16), buf.Get(buf.Default.MaxSize() + 1), buf.Wrap(nil)} {
		require.Same(t, b, b.Touch("here"), "Touch did not return its buffer")
		b.Release()
	}
}

func TestWrap(t *testing.T) {
	buftest.CheckLeaks(t)
	p := make([]byte, 5, 8)
	copy(p, "hello")
	b := buf.Wrap(p)
	checkBytes(t, b, p)
	require.Equal(t, 8, b.Cap(), "Wrap: Cap")
	require.Same(t, &p[0], &b.Bytes()[0], "Wrap: Bytes not aliasing p")
	b.WriteString("!!!") // fits p's spare capacity
	require.Equal(t, "hello!!!", string(p[:8]), "write did not land in p's array")
	b.WriteByte('?') // grows: p is left alone from now on
	b.PutUint16(0, 0x4a4a)
	checkBytes(t, b, []byte("JJllo!!!?"))
	require.Equal(t, "hello!!!", string(p[:8]), "p changed after growth")
	require.True(t, b.Release(), "Wrap: Release did not drop the only reference")
	require.Equal(t, 0, b.RefCount(), "Wrap: Release did not drop the only reference")
	n := buf.Wrap(nil)
	n.Write(pattern(1000))
	checkBytes(t, n, pattern(1000))
	n.Release()
}
