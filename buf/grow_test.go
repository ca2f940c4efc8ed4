package buf_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/buf/buftest"
)

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
			free := c - b.ReaderIndex() - b.Len()
			require.GreaterOrEqual(t, free, tc.n, "free bytes after Grow(%d)", tc.n)
			require.Equal(t, free, cap(b.AvailableBuffer()), "AvailableBuffer cap after Grow(%d)", tc.n)
			b.Write(pattern(tc.n))
			require.Equal(t, c, b.Cap(), "writing the %d grown bytes moved Cap %d -> %d", tc.n, c, b.Cap())
			checkBytes(t, b, append(pattern(tc.write)[tc.skip:], pattern(tc.n)...))
		})
	}
	b := prepared(a, 0, "x")
	defer b.Release()
	mustPanic(t, "buf: Grow with negative count", func() { b.Grow(-1) })
	mustPanic(t, buf.ErrTooLarge, func() { b.Grow(math.MaxInt) })
	checkBytes(t, b, []byte("x"))
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
				require.GreaterOrEqual(t, b.Cap(), c, "Cap shrank %d -> %d", c, b.Cap())
				c = b.Cap()
				checkBytes(t, b, want[:i+1])
			}
		}
		checkBytes(t, b, want)
		require.False(t, b.Cap() <= a.MaxSize(), "Cap %d after %d bytes", b.Cap(), len(want))
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
				require.NoError(t, err)
				if !bytes.Equal(got, want) {
					require.Equal(t, trim(want), trim(got), "Next")
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
	require.LessOrEqual(t, b.Cap(), 4<<10, "Cap holding %d readable: capacity doubles on every refill once a view was taken", b.Len())
}
