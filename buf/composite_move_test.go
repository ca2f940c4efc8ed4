package buf_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/internal/testenv"
)

// TestMoveTo: the unread components change composite with the reference
// the source held (same memory, same count); a component read in part
// moves with its unread bytes; consumed components are released; the
// source is empty and usable afterwards.
func TestMoveTo(t *testing.T) {
	a := buf.NewAllocator()
	src := buf.NewComposite(buf.WithAllocator(a))
	parts := []*buf.Buffer{a.Get(8), a.Get(8), a.Get(8)}
	for i, b := range parts {
		b.WriteString(strings.Repeat(string(rune('a'+i)), 8))
		src.Append(b.Retain()) // the test keeps a reference to watch the counts
	}
	_, err := src.Next(11) // all of a, three bytes of b
	require.NoError(t, err)
	dst := buf.NewComposite(buf.WithAllocator(a))
	head := a.Get(4)
	head.WriteString("head")
	dst.Append(head)

	n := src.MoveTo(dst)
	assert.Equal(t, 13, n, "bytes moved")
	assert.Zero(t, src.Len(), "source Len after MoveTo")
	assert.Zero(t, src.NumComponents(), "source components after MoveTo")
	assert.Equal(t, 3, dst.NumComponents(), "destination components: head, the rest of b, c")
	bufs := dst.Buffers()
	assert.Same(t, &parts[1].Bytes()[3], &bufs[1][0], "the part-read component was copied, not moved")
	assert.Same(t, &parts[2].Bytes()[0], &bufs[2][0], "the component was copied, not moved")
	got := make([]byte, dst.Len())
	_, err = dst.Read(got)
	require.NoError(t, err)
	assert.Equal(t, "headbbbbbcccccccc", string(got))
	assert.Equal(t, 1, parts[0].RefCount(), "the consumed component was not released")
	assert.Equal(t, 2, parts[1].RefCount(), "the moved part-read component's count changed")
	assert.Equal(t, 2, parts[2].RefCount(), "the moved component's count changed")

	// The source goes on as new, and MoveTo of an empty one moves nothing.
	assert.Zero(t, src.MoveTo(dst))
	more := a.Get(3)
	more.WriteString("xyz")
	src.Append(more)
	assert.Equal(t, 3, src.MoveTo(dst))

	dst.Release()
	src.Release()
	for _, b := range parts {
		assert.Equal(t, 1, b.RefCount(), "a component's reference was lost or kept")
		b.Release()
	}
	in := a.Stats().Total().InUse
	assert.Equal(t, int64(0), in, "InUse %d after every release, want 0", in)
}

// TestMoveToLimit: a destination with a component limit takes what is past
// it as Append does, consolidating, and loses no byte.
func TestMoveToLimit(t *testing.T) {
	a := buf.NewAllocator()
	src := composite(a, "one", "two", "three", "four")
	src.Skip(1)
	dst := buf.NewComposite(buf.WithAllocator(a), buf.WithMaxComponents(2))
	assert.Equal(t, 14, src.MoveTo(dst))
	assert.LessOrEqual(t, dst.NumComponents(), 2)
	got := make([]byte, dst.Len())
	dst.Read(got)
	assert.Equal(t, "netwothreefour", string(got))
	dst.Release()
	src.Release()
	in := a.Stats().Total().InUse
	assert.Equal(t, int64(0), in, "InUse %d after every release, want 0", in)
}

func TestMoveToMisuse(t *testing.T) {
	a := buf.NewAllocator()
	c := composite(a, "x")
	assert.PanicsWithValue(t, "buf: Composite.MoveTo to itself", func() { c.MoveTo(c) })
	d := buf.NewComposite(buf.WithAllocator(a))
	d.Release()
	assert.Panics(t, func() { c.MoveTo(d) }, "MoveTo a released composite")
	assert.Panics(t, func() { d.MoveTo(c) }, "MoveTo from a released composite")
	assert.Equal(t, 1, c.Len(), "a refused MoveTo changed the source")
	c.Release()
}

// TestMoveToAllocs: echoing read buffers from one composite to another
// allocates nothing once the arrays have grown.
func TestMoveToAllocs(t *testing.T) {
	testenv.SkipRace(t, "sync.Pool drops items under -race; the invariants build never recycles")
	testenv.SkipInvariants(t, "sync.Pool drops items under -race; the invariants build never recycles")
	a := buf.NewAllocator(buf.WithLeakLevel(buf.LeakOff))
	in := buf.NewComposite(buf.WithAllocator(a))
	out := buf.NewComposite(buf.WithAllocator(a))
	msg := strings.Repeat("x", 64)
	allocs := testing.AllocsPerRun(1000, func() {
		for range 3 {
			b := a.Get(len(msg))
			b.WriteString(msg)
			in.Append(b)
		}
		in.Skip(10)
		in.MoveTo(out)
		out.Discard(out.Len())
	})
	assert.Equal(t, float64(0), allocs, "%v allocations per round, want 0", allocs)
}

// Moving what was read to the outbound queue: an echo without a copy.
func ExampleComposite_MoveTo() {
	in, out := buf.NewComposite(), buf.NewComposite()
	for _, s := range []string{"ping ", "pong"} {
		b := buf.Get(len(s))
		b.WriteString(s)
		in.Append(b)
	}
	in.Skip(5) // a handler consumed the first message
	n := in.MoveTo(out)
	fmt.Println(n, in.Len(), out.Len(), out.NumComponents())
	out.Release()
	in.Release()
	// Output: 4 0 4 1
}
