package buf_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/buf/buftest"
)

func TestBufferSlice(t *testing.T) {
	buftest.CheckLeaks(t)
	b := prepared(buf.NewAllocator(), 2, "0123456789")
	v := b.Slice(3, 5)
	checkBytes(t, v, []byte("34567"))
	checkBytes(t, b, []byte("0123456789")) // Slice consumes nothing
	require.Equal(t, 5, v.Cap(), "view Cap %d, want 5", v.Cap())
	v.Bytes()[0] = 'x' // shared memory, both ways
	b.PutUint16(4, 0x7979)
	checkBytes(t, v, []byte("xyy67"))
	checkBytes(t, b, []byte("012xyy6789"))
	vv := v.Slice(1, 3)
	checkBytes(t, vv, []byte("yy6"))
	c, _ := v.ReadByte()
	require.Equal(t, byte('x'), c, "reading a view moved another buffer's index")
	require.Equal(t, 10, b.Len(), "reading a view moved another buffer's index")
	require.Equal(t, 3, vv.Len(), "reading a view moved another buffer's index")
	for _, r := range []struct{ off, n int }{{-1, 1}, {0, -1}, {0, 11}, {10, 1}, {11, 0}, {5, 6}} {
		mustPanic(t, fmt.Sprintf("buf: Slice(%d, %d) out of range with 10 readable bytes", r.off, r.n), func() { b.Slice(r.off, r.n) })
	}
	require.Equal(t, 0, (b.Slice(10, 0)).Len(), "empty view at the end not empty")
	// One reference count for all: the view's last Release frees the root.
	vv.Retain()
	require.Equal(t, [3]int{2, 2, 2}, [3]int{b.RefCount(), v.RefCount(), vv.RefCount()}, "RefCounts of the root and two views")
	require.False(t, b.Release(), "root Release returned true with the view's reference left")
	checkBytes(t, vv, []byte("yy6"))
	require.True(t, vv.Release(), "view's last Release returned false")
	require.Equal(t, 0, b.RefCount(), "root not released by its view's last Release")
	require.Equal(t, 0, v.RefCount(), "root not released by its view's last Release")
}
