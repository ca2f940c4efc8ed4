package buf_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/buf/buftest"
)

// Both types release through one interface.
var (
	_ interface{ Release() bool } = (*buf.Buffer)(nil)
	_ interface{ Release() bool } = (*buf.Composite)(nil)
)

// TestOwnershipRules checks, name by name, the table in the package doc
// ("Names and ownership"): the reference counts before and after, what
// Release reports, that Reset releases nothing, and that what Consolidate
// returns is the caller's.
func TestOwnershipRules(t *testing.T) {
	buftest.CheckLeaks(t)
	// two returns a composite of "hello" and "world" and its two buffers,
	// each with this test's reference and the composite's.
	two := func() (*buf.Composite, [2]*buf.Buffer) {
		bs := [2]*buf.Buffer{buf.Get(8), buf.Get(8)}
		bs[0].WriteString("hello")
		bs[1].WriteString("world")
		c := buf.NewComposite()
		c.Append(bs[0].Retain())
		c.Append(bs[1].Retain())
		return c, bs
	}
	refs := func(t *testing.T, what string, bs [2]*buf.Buffer, want0, want1 int) {
		t.Helper()
		a, b := bs[0].RefCount(), bs[1].RefCount()
		require.Equal(t, want0, a, "%s: references %d, %d; want %d, %d", what, a, b, want0, want1)
		require.Equal(t, want1, b, "%s: references %d, %d; want %d, %d", what, a, b, want0, want1)
	}
	for _, tc := range []struct {
		name string
		run  func(t *testing.T)
	}{
		{"Buffer.Slice shares the reference", func(t *testing.T) {
			b := buf.Get(16)
			b.WriteString("HDR:payload")
			v := b.Slice(4, 7)
			require.Equal(t, 1, b.RefCount(), "RefCount after Slice (shared)")
			require.Equal(t, 1, v.RefCount(), "view RefCount after Slice (shared)")
			require.True(t, b.Release(), "the owner's Release did not free a buffer with a Slice view")
			require.Equal(t, 0, v.RefCount(), "view RefCount %d after the owner's Release, want 0", v.RefCount())
		}},
		{"Buffer.RetainedSlice holds its own reference", func(t *testing.T) {
			b := buf.Get(16)
			b.WriteString("HDR:payload")
			v := b.RetainedSlice(4, 7)
			require.Equal(t, 2, b.RefCount(), "after RetainedSlice: RefCount %d, want 2", b.RefCount())
			require.False(t, b.Release(), "the owner's Release freed a buffer whose RetainedSlice is live")
			require.Equal(t, "payload", string(v.Bytes()), "view reads %q after the owner's Release", v.Bytes())
			require.True(t, v.Release(), "the view's Release did not free the buffer")
		}},
		{"Composite.RetainedSlice holds its own references", func(t *testing.T) {
			c, bs := two()
			s := c.RetainedSlice(3, 4) // "lowo"
			refs(t, "after RetainedSlice", bs, 3, 3)
			require.True(t, c.Release(), "Composite.Release returned false")
			refs(t, "after the parent's Release", bs, 2, 2)
			p, err := s.Next(4)
			require.NoError(t, err, "slice reads %q, %v after the parent's Release", p, err)
			require.Equal(t, "lowo", string(p), "slice reads %q, %v after the parent's Release", p, err)
			require.True(t, s.Release(), "Composite.Release of a slice returned false")
			refs(t, "after the slice's Release", bs, 1, 1)
			bs[0].Release()
			bs[1].Release()
		}},
		{"Buffer.Retain adds a reference and returns b", func(t *testing.T) {
			b := buf.Get(16)
			require.Same(t, b, b.Retain(), "Retain's result")
			require.Equal(t, 2, b.RefCount(), "RefCount after Retain")
			require.False(t, b.Release(), "Release results for two references are not false, true")
			require.True(t, b.Release(), "Release results for two references are not false, true")
		}},
		{"Composite.Release frees and reports true", func(t *testing.T) {
			c, bs := two()
			require.True(t, c.Release(), "Composite.Release returned false")
			refs(t, "after Release", bs, 1, 1)
			err := recoverErr(func() { c.Release() })
			require.ErrorIs(t, err, buf.ErrReleased, "second Composite.Release: panic %v, want ErrReleased", err)
			bs[0].Release()
			bs[1].Release()
		}},
		{"Buffer.Reset releases nothing and keeps memory", func(t *testing.T) {
			b := buf.Get(16)
			b.WriteString("abc")
			b.Skip(1)
			capBefore := b.Cap()
			b.Reset()
			require.Equal(t, [4]int{1, 0, capBefore, 0}, [4]int{b.RefCount(), b.Len(), b.Cap(), b.ReaderIndex()},
				"RefCount, Len, Cap, ReaderIndex after Reset")
			require.True(t, b.Release(), "Release after Reset did not free the buffer")
		}},
		{"Composite.Discard(Len) empties and releases everything", func(t *testing.T) {
			c, bs := two()
			c.Skip(2)
			require.NoError(t, c.Discard(c.Len()), "Discard(Len)")
			refs(t, "after Discard(Len)", bs, 1, 1)
			require.Zero(t, c.Len(), "Len after Discard(Len)")
			require.Zero(t, c.NumComponents(), "components after Discard(Len)")
			c.Release()
			bs[0].Release()
			bs[1].Release()
		}},
		{"Composite.Consolidate hands out a reference", func(t *testing.T) {
			c, bs := two()
			b := c.Consolidate() // copies: two components
			require.NotNil(t, b, "Consolidate")
			require.Equal(t, 2, b.RefCount(), "references to Consolidate's buffer (caller and composite)")
			refs(t, "after Consolidate", bs, 1, 1) // the components it replaced
			require.NoError(t, c.Discard(c.Len()), "Discard(Len)")
			require.Equal(t, 1, b.RefCount(), "references after Discard(Len)")
			require.Equal(t, "helloworld", string(b.Bytes()), "bytes after Discard(Len)")
			c.Release()
			require.True(t, b.Release(), "the caller's Release did not free Consolidate's buffer")
			bs[0].Release()
			bs[1].Release()
		}},
		{"Composite.Consolidate of one component retains it", func(t *testing.T) {
			c, bs := two()
			c.Skip(5)
			b := c.Consolidate() // "world" is already one buffer
			require.Same(t, bs[1], b, "Consolidate copied: got %p, want the component %p", b, bs[1])
			refs(t, "after Consolidate", bs, 1, 3)
			c.Discard(c.Len())
			refs(t, "after Discard(Len)", bs, 1, 2)
			require.Equal(t, []byte("world"), b.Bytes(), "Consolidate's buffer reads %q after Discard(Len)", b.Bytes())
			b.Release()
			c.Release()
			bs[0].Release()
			bs[1].Release()
		}},
	} {
		t.Run(tc.name, tc.run)
	}
}

// recoverErr runs f and returns the error it panicked with (nil when it
// did not panic or panicked with something else).
func recoverErr(f func()) (err error) {
	defer func() { err, _ = recover().(error) }()
	f()
	return nil
}
