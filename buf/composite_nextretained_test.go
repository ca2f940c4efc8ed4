package buf_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/internal/invariants"
	"github.com/netkit/netkit/internal/testenv"
)

func composite(a *buf.Allocator, parts ...string) *buf.Composite {
	c := buf.NewComposite(buf.WithAllocator(a))
	for _, p := range parts {
		b := a.Get(len(p))
		b.WriteString(p)
		c.Append(b)
	}
	return c
}

// TestNextRetainedView: bytes within one component come back as a view of
// its memory that outlives the composite and keeps the component's buffer
// from being recycled until the view is released.
func TestNextRetainedView(t *testing.T) {
	a := buf.NewAllocator()
	parent := a.Get(16)
	parent.WriteString("hello, world")
	c := buf.NewComposite(buf.WithAllocator(a))
	c.Append(parent.Retain()) // keep a reference to watch the count

	c.Skip(7)
	v, err := c.NextRetained(5)
	require.NoError(t, err)
	got := string(v.Bytes())
	require.Equal(t, "world", got, "view reads")
	assert.Same(t, &parent.Bytes()[7], &v.Bytes()[0], "the view copied bytes that lie in one component")
	assert.Zero(t, c.Len(), "Len after NextRetained")
	assert.Equal(t, 12, c.ReaderIndex(), "ReaderIndex after NextRetained")
	assert.Equal(t, 3, parent.RefCount(), "parent RefCount with the composite, the view and the test holding it")
	c.Release()
	assert.Equal(t, 2, parent.RefCount(), "parent RefCount after the composite's release")
	assert.Equal(t, "world", string(v.Bytes()), "the view after the composite's release")
	// The view counts its own references.
	v.Retain()
	assert.Equal(t, 2, v.RefCount(), "view RefCount after v.Retain")
	assert.Equal(t, 2, parent.RefCount(), "parent RefCount after v.Retain")
	assert.False(t, v.Release(), "first Release of a view with two references freed it")
	assert.True(t, v.Release(), "last Release of the view did not free it")
	assert.Equal(t, 1, parent.RefCount(), "parent RefCount after the view's release")
	assert.True(t, parent.Release(), "the test's reference was not the last")
	in := a.Stats().Total().InUse
	assert.Equal(t, int64(0), in, "InUse %d after every release, want 0", in)
}

// TestNextRetainedStraddles: bytes across components are copied into a
// buffer of the composite's allocator; n of 0 gives an empty buffer; too
// few bytes consume nothing.
func TestNextRetainedStraddles(t *testing.T) {
	a := buf.NewAllocator()
	c := composite(a, "ab", "cde", "f", "ghij")
	b, err := c.NextRetained(7)
	require.NoError(t, err)
	got := string(b.Bytes())
	require.Equal(t, "abcdefg", got, "straddling read")
	c.Discard(0)
	b.Write([]byte("!")) // a copy is an ordinary buffer: it can grow
	assert.Equal(t, "abcdefg!", string(b.Bytes()), "after a write")
	b.Release()

	e, err := c.NextRetained(0)
	require.NoError(t, err, "NextRetained(0)")
	require.Zero(t, e.Len(), "NextRetained(0)")
	e.Release()

	_, err = c.NextRetained(4)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "NextRetained past the end")
	assert.Equal(t, 3, c.Len(), "a failed NextRetained consumed bytes: Len %d, want 3", c.Len())
	rest, _ := c.NextRetained(3)
	assert.Equal(t, "hij", string(rest.Bytes()), "rest %q", rest.Bytes())
	rest.Release()
	_, err = c.NextRetained(1)
	assert.ErrorIs(t, err, io.EOF, "NextRetained on an empty composite")
	c.Release()
	in := a.Stats().Total().InUse
	assert.Equal(t, int64(0), in, "InUse %d after every release, want 0", in)
}

// TestNextRetainedViewIsFixed: a view cannot grow into its parent's memory.
func TestNextRetainedViewIsFixed(t *testing.T) {
	a := buf.NewAllocator()
	c := composite(a, "abcdef")
	v, _ := c.NextRetained(3)
	defer c.Release()
	defer v.Release()
	n, err := v.WriteString("X")
	assert.False(t, n != 0 || !errors.Is(err, buf.ErrFixed), "writing past a view: %d, %v; want 0, ErrFixed", n, err)
	got, _ := c.Next(3)
	assert.Equal(t, "def", string(got), "the parent's next bytes are %q after a write to the view, want def", got)
}

// TestNextRetainedUseAfterRelease: in the invariants build view headers
// are never recycled, so a released view panics on use.
func TestNextRetainedUseAfterRelease(t *testing.T) {
	if !invariants.Enabled {
		t.Skip("the default build recycles view headers, as it does buffers")
	}
	c := composite(buf.Default, "abcdef")
	defer c.Release()
	v, _ := c.NextRetained(3)
	v.Release()
	defer func() {
		r := recover()
		assert.False(t, r == nil || !errors.Is(r.(error), buf.ErrReleased), "reading a released view: recovered %v, want ErrReleased", r)
	}()
	v.Bytes()
}

// TestNextRetainedAllocs: handing out and releasing views and copies
// allocates nothing once the pools are warm.
func TestNextRetainedAllocs(t *testing.T) {
	testenv.SkipRace(t, "sync.Pool drops items under -race; the invariants build never recycles")
	testenv.SkipInvariants(t, "sync.Pool drops items under -race; the invariants build never recycles")
	a := buf.NewAllocator(buf.WithLeakLevel(buf.LeakOff))
	c := buf.NewComposite(buf.WithAllocator(a))
	msg := strings.Repeat("x", 100)
	allocs := testing.AllocsPerRun(1000, func() {
		for range 2 {
			b := a.Get(len(msg))
			b.WriteString(msg)
			c.Append(b)
		}
		v, _ := c.NextRetained(60) // a view
		s, _ := c.NextRetained(80) // straddles: a copy
		c.Discard(0)
		v.Release()
		s.Release()
		rest, _ := c.NextRetained(c.Len())
		rest.Release()
		c.Discard(0)
	})
	assert.Equal(t, float64(0), allocs, "%v allocations per round, want 0", allocs)
}

//go:noinline
func leakView(c *buf.Composite) {
	v, _ := c.NextRetained(4)
	v.Touch("kept by a frame handler")
}

// TestNextRetainedLeak: a view dropped without Release is reported and
// counted as a leaked buffer is, and gives back its reference to the
// parent, which is then freed rather than reported too.
func TestNextRetainedLeak(t *testing.T) {
	leaks := captureLeaks(t)
	a := buf.NewAllocator(buf.WithLeakLevel(buf.LeakAll))
	c := composite(a, "leak-me")
	leakView(c)
	c.Release()
	got := leaks(a, 1)
	require.Len(t, got, 1, "%d reports, want 1", len(got))
	r := got[0].String()
	assert.Contains(t, r, "buf_test.leakView", "report does not name leakView and its Touch:\n%s", r)
	assert.Contains(t, r, "kept by a frame handler", "report does not name leakView and its Touch:\n%s", r)
	s := a.Stats()
	assert.EqualValues(t, 1, s.Leaks, "Leaks")
	assert.Zero(t, s.Total().InUse, "InUse: the parent is freed by the leaked view's cleanup")
}

// TestNextRetainedMatchesNext: over random component layouts the bytes
// NextRetained returns are those Next returns.
func TestNextRetainedMatchesNext(t *testing.T) {
	a := buf.NewAllocator()
	data := []byte(strings.Repeat("0123456789abcdefghijklmnopqrstuvwxyz", 30))
	for seed := range 50 {
		cuts := []int{}
		for i := 1; i < len(data); i += 1 + (seed*7+i*13)%97 {
			cuts = append(cuts, i)
		}
		c1 := buf.NewComposite(buf.WithAllocator(a))
		c2 := buf.NewComposite(buf.WithAllocator(a))
		prev := 0
		for _, cut := range append(cuts, len(data)) {
			for _, c := range []*buf.Composite{c1, c2} {
				b := a.Get(cut - prev)
				b.Write(data[prev:cut])
				c.Append(b)
			}
			prev = cut
		}
		for n := 0; c1.Len() > 0; n = (n*5 + seed + 3) % 150 {
			n = min(n, c1.Len())
			want, _ := c2.Next(n)
			got, err := c1.NextRetained(n)
			require.NoError(t, err)
			require.Equal(t, want, got.Bytes(), "seed %d: NextRetained(%d) = %q, Next gives %q", seed, n, got.Bytes(), want)
			c1.Discard(0)
			got.Release()
		}
		c1.Release()
		c2.Release()
	}
	in := a.Stats().Total().InUse
	assert.Equal(t, int64(0), in, "InUse %d after every release, want 0", in)
}

// TestSpan: spans walk the readable bytes component by component from any
// offset, after reads and discards.
func TestSpan(t *testing.T) {
	a := buf.NewAllocator()
	c := composite(a, "ab", "cde", "f", "ghij")
	defer c.Release()
	c.Skip(1)
	c.Discard(0)
	want := "bcdefghij"
	for off := 0; off <= len(want); off++ {
		var got []byte
		spans := 0
		for o := off; o < c.Len(); spans++ {
			s := c.Span(o)
			require.NotEmpty(t, s, "Span(%d) = %q (cap %d)", o, s, cap(s))
			require.Len(t, s, cap(s), "Span(%d) = %q (cap %d)", o, s, cap(s))
			got = append(got, s...)
			o += len(s)
		}
		assert.Equal(t, want[off:], string(got), "spans from %d", off)
		// Components end after b, e, f and j.
		wantSpans := map[int]int{0: 4, 1: 3, 2: 3, 3: 3, 4: 2, 5: 1, 8: 1, 9: 0}[off]
		if off != 6 && off != 7 {
			assert.Equal(t, wantSpans, spans, "spans from %d", off)
		}
	}
	s := c.Span(c.Len())
	assert.Nil(t, s, "Span(Len) = %q, want nil", s)
	for _, off := range []int{-1, c.Len() + 1} {
		assert.Panics(t, func() { c.Span(off) }, "Span(%d)", off)
	}
}

// RetainedAt: the bytes at an offset, without consuming them — a view
// holding the component's buffer when they lie in one component (at the
// reader or past it), a copy when they straddle; out of range panics.
func TestRetainedAt(t *testing.T) {
	a := buf.NewAllocator(buf.WithLeakLevel(buf.LeakAll))
	c := composite(a, "hello ", "wor", "ld!")
	_, err := c.Next(2) // the reader inside the first component
	require.NoError(t, err)
	for _, tc := range []struct {
		off, n int
		want   string
	}{
		{0, 4, "llo "}, {1, 2, "lo"}, {4, 3, "wor"}, {5, 2, "or"}, {2, 5, "o wor"}, {0, 10, "llo world!"}, {10, 0, ""}, {3, 0, ""},
	} {
		b := c.RetainedAt(tc.off, tc.n)
		require.Equal(t, tc.want, string(b.Bytes()), "RetainedAt(%d, %d)", tc.off, tc.n)
		require.Equal(t, 10, c.Len(), "RetainedAt consumed")
		defer b.Release()
	}
	kept := c.RetainedAt(4, 3)
	require.NoError(t, c.Discard(c.Len()))
	require.Equal(t, "wor", string(kept.Bytes()), "a view outlives the composite's discard")
	kept.Release()
	c2 := composite(a, "abc")
	defer c2.Release()
	require.Panics(t, func() { c2.RetainedAt(2, 2) })
	require.Panics(t, func() { c2.RetainedAt(-1, 1) })
	require.Panics(t, func() { c2.RetainedAt(0, -1) })
	c.Release()
}
