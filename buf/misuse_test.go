package buf_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/buf/buftest"
)

// mustPanic calls f and fails t unless f panics with the value want names:
// an error wrapping want when want is an error, or a message (a string, or
// an error's text) that begins with want when want is a string. A runtime
// error (index out of range, nil dereference, …) never matches: those are
// bugs, not the documented panics.
func mustPanic(t testing.TB, want any, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Errorf("no panic, want one carrying %v", want)
			return
		}
		if re, ok := r.(runtime.Error); ok {
			t.Errorf("runtime error %v, want a panic carrying %v", re, want)
			return
		}
		switch want := want.(type) {
		case error:
			err, ok := r.(error)
			assert.False(t, !ok || !errors.Is(err, want), "panic %v (%T), want an error wrapping %v", r, r, want)
		case string:
			msg, ok := r.(string)
			if err, isErr := r.(error); isErr {
				msg, ok = err.Error(), true
			}
			assert.True(t, ok, "panic %v (%T), want a message beginning %q", r, r, want)
			assert.True(t, strings.HasPrefix(msg, want), "panic %v (%T), want a message beginning %q", r, r, want)
		default:
			t.Fatalf("mustPanic: want %v (%T) is neither an error nor a message", want, want)
		}
	}()
	f()
}

// errorRecorder records Errorf calls instead of failing the test.
type errorRecorder struct {
	testing.TB
	errs []string
}

func (r *errorRecorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestMustPanicNamesThePanic: mustPanic accepts only the panic it names.
func TestMustPanicNamesThePanic(t *testing.T) {
	var nilBuffer *buf.Buffer
	for _, tc := range []struct {
		name string
		want any
		f    func()
		ok   bool
	}{
		{"sentinel", buf.ErrFixed, func() { panic(fmt.Errorf("wrapped: %w", buf.ErrFixed)) }, true},
		{"message", "buf: Next with", func() { panic("buf: Next with negative count") }, true},
		{"error text", "buf: buffer", func() { panic(buf.ErrTooLarge) }, true},
		{"no panic", buf.ErrFixed, func() {}, false},
		{"other sentinel", buf.ErrFixed, func() { panic(buf.ErrTooLarge) }, false},
		{"other message", "buf: Skip", func() { panic("buf: Next with negative count") }, false},
		{"index out of range", "runtime error", func() { _ = []int{}[len(t.Name())] }, false},
		{"nil dereference", "runtime error", func() { nilBuffer.Bytes() }, false},
	} {
		r := &errorRecorder{TB: t}
		mustPanic(r, tc.want, tc.f)
		assert.Equal(t, tc.ok, len(r.errs) == 0, "%s: mustPanic accepted (errors %q)", tc.name, r.errs)
	}
}

// bufferMethods calls every method of *Buffer but RefCount, with arguments
// that would be valid on a live buffer holding at least 16 readable bytes.
var bufferMethods = []struct {
	name string
	call func(b *buf.Buffer)
}{
	{"Len", func(b *buf.Buffer) { b.Len() }},
	{"Cap", func(b *buf.Buffer) { b.Cap() }},
	{"Bytes", func(b *buf.Buffer) { b.Bytes() }},
	{"AvailableBuffer", func(b *buf.Buffer) { b.AvailableBuffer() }},
	{"Reset", func(b *buf.Buffer) { b.Reset() }},
	{"Grow(0)", func(b *buf.Buffer) { b.Grow(0) }},
	{"Grow(4096)", func(b *buf.Buffer) { b.Grow(4096) }},
	{"ReaderIndex", func(b *buf.Buffer) { b.ReaderIndex() }},
	{"SetReaderIndex", func(b *buf.Buffer) { b.SetReaderIndex(0) }},
	{"Read", func(b *buf.Buffer) { b.Read(make([]byte, 4)) }},
	{"Read(empty)", func(b *buf.Buffer) { b.Read(nil) }},
	{"ReadByte", func(b *buf.Buffer) { b.ReadByte() }},
	{"Next", func(b *buf.Buffer) { b.Next(1) }},
	{"Next(0)", func(b *buf.Buffer) { b.Next(0) }},
	{"Skip", func(b *buf.Buffer) { b.Skip(1) }},
	{"ReadUint16", func(b *buf.Buffer) { b.ReadUint16() }},
	{"ReadUint32", func(b *buf.Buffer) { b.ReadUint32() }},
	{"ReadUint64", func(b *buf.Buffer) { b.ReadUint64() }},
	{"ReadUint16LE", func(b *buf.Buffer) { b.ReadUint16LE() }},
	{"ReadUint32LE", func(b *buf.Buffer) { b.ReadUint32LE() }},
	{"ReadUint64LE", func(b *buf.Buffer) { b.ReadUint64LE() }},
	{"Write", func(b *buf.Buffer) { b.Write([]byte("x")) }},
	{"Write(empty)", func(b *buf.Buffer) { b.Write(nil) }},
	{"WriteString", func(b *buf.Buffer) { b.WriteString("x") }},
	{"WriteByte", func(b *buf.Buffer) { b.WriteByte('x') }},
	{"WriteUint16", func(b *buf.Buffer) { b.WriteUint16(1) }},
	{"WriteUint32", func(b *buf.Buffer) { b.WriteUint32(1) }},
	{"WriteUint64", func(b *buf.Buffer) { b.WriteUint64(1) }},
	{"WriteUint16LE", func(b *buf.Buffer) { b.WriteUint16LE(1) }},
	{"WriteUint32LE", func(b *buf.Buffer) { b.WriteUint32LE(1) }},
	{"WriteUint64LE", func(b *buf.Buffer) { b.WriteUint64LE(1) }},
	{"GetUint16", func(b *buf.Buffer) { b.GetUint16(0) }},
	{"GetUint32", func(b *buf.Buffer) { b.GetUint32(0) }},
	{"GetUint64", func(b *buf.Buffer) { b.GetUint64(0) }},
	{"GetUint16LE", func(b *buf.Buffer) { b.GetUint16LE(0) }},
	{"GetUint32LE", func(b *buf.Buffer) { b.GetUint32LE(0) }},
	{"GetUint64LE", func(b *buf.Buffer) { b.GetUint64LE(0) }},
	{"PutUint16", func(b *buf.Buffer) { b.PutUint16(0, 1) }},
	{"PutUint32", func(b *buf.Buffer) { b.PutUint32(0, 1) }},
	{"PutUint64", func(b *buf.Buffer) { b.PutUint64(0, 1) }},
	{"PutUint16LE", func(b *buf.Buffer) { b.PutUint16LE(0, 1) }},
	{"PutUint32LE", func(b *buf.Buffer) { b.PutUint32LE(0, 1) }},
	{"PutUint64LE", func(b *buf.Buffer) { b.PutUint64LE(0, 1) }},
	{"ReadFrom", func(b *buf.Buffer) { b.ReadFrom(strings.NewReader("x")) }},
	{"WriteTo", func(b *buf.Buffer) { b.WriteTo(io.Discard) }},
	{"Index", func(b *buf.Buffer) { b.Index([]byte("x")) }},
	{"Slice", func(b *buf.Buffer) { b.Slice(0, 1) }},
	{"Retain", func(b *buf.Buffer) { b.Retain() }},
	{"Release", func(b *buf.Buffer) { b.Release() }},
	{"Touch", func(b *buf.Buffer) { b.Touch("x") }},
}

// releasedKinds make buffers, fill them with 32 bytes and release them in
// the ways a buffer can end up released. Each returns the released buffers
// a caller might still hold.
var releasedKinds = []struct {
	name string
	make func(a *buf.Allocator) []*buf.Buffer
}{
	{"pooled", func(a *buf.Allocator) []*buf.Buffer {
		b := filled(a.Get(64), 32)
		b.Release()
		return []*buf.Buffer{b}
	}},
	{"grown", func(a *buf.Allocator) []*buf.Buffer {
		b := filled(a.Get(16), 1000)
		b.Release()
		return []*buf.Buffer{b}
	}},
	{"large", func(a *buf.Allocator) []*buf.Buffer {
		b := filled(a.Get(a.MaxSize()+1), 32)
		b.Release()
		return []*buf.Buffer{b}
	}},
	{"wrapped", func(*buf.Allocator) []*buf.Buffer {
		b := filled(buf.Wrap(make([]byte, 0, 64)), 32)
		b.Release()
		return []*buf.Buffer{b}
	}},
	{"retained", func(a *buf.Allocator) []*buf.Buffer {
		b := filled(a.Get(64), 32).Retain()
		b.Release()
		b.Release()
		return []*buf.Buffer{b}
	}},
	{"view of released root", func(a *buf.Allocator) []*buf.Buffer {
		b := filled(a.Get(64), 32)
		v := b.Slice(0, 20)
		vv := v.Slice(2, 17)
		b.Release()
		return []*buf.Buffer{v, vv}
	}},
	{"root released through view", func(a *buf.Allocator) []*buf.Buffer {
		b := filled(a.Get(64), 32)
		v := b.Slice(4, 20)
		v.Release()
		return []*buf.Buffer{b, v}
	}},
}

// filled writes n bytes 0, 1, 2, … to b and returns it.
func filled(b *buf.Buffer, n int) *buf.Buffer {
	for i := range n {
		b.WriteByte(byte(i))
	}
	return b
}

func TestMisuseReleased(t *testing.T) {
	buftest.CheckLeaks(t)
	for _, k := range releasedKinds {
		t.Run(k.name, func(t *testing.T) {
			for _, m := range bufferMethods {
				// A private allocator: nothing else can get the released
				// header again, so the misuse stays detectable in every build.
				for i, b := range k.make(buf.NewAllocator()) {
					mustPanic(t, buf.ErrReleased, func() { m.call(b) })
					require.False(t, t.Failed(), "%s on released buffer #%d", m.name, i)
				}
			}
			for i, b := range k.make(buf.NewAllocator()) {
				n := b.RefCount()
				assert.Equal(t, 0, n, "buffer #%d: RefCount = %d after release, want 0", i, n)
			}
		})
	}
}

func TestBufferRefCount(t *testing.T) {
	buftest.CheckLeaks(t)
	for _, retains := range []int{0, 1, 2, 10} {
		b := buf.Get(16)
		for i := range retains {
			require.Same(t, b, b.Retain(), "Retain #%d", i+1)
			require.Equal(t, i+2, b.RefCount(), "RefCount after Retain #%d", i+1)
		}
		for i := retains; i >= 0; i-- {
			last := b.Release()
			require.Equal(t, i == 0, last, "Release with %d references left returned %v", i+1, last)
			require.Equal(t, i, b.RefCount(), "RefCount")
		}
	}
	// Retain and Release from many goroutines that each hold a reference.
	b := buf.Get(16)
	var wg sync.WaitGroup
	for range 8 {
		b.Retain()
		wg.Go(func() {
			for range 1000 {
				b.Retain().Release()
			}
			b.Release()
		})
	}
	wg.Wait()
	require.Equal(t, 1, b.RefCount(), "concurrent Retain/Release lost a reference")
	require.True(t, b.Release(), "concurrent Retain/Release lost a reference")
}

func TestMisuseDoubleRelease(t *testing.T) {
	buftest.CheckLeaks(t)
	b := buf.Get(16).Retain()
	require.False(t, b.Release(), "Release of one of two references returned true")
	require.True(t, b.Release(), "Release of the last reference returned false")
	mustPanic(t, buf.ErrReleased, func() { b.Release() })
	mustPanic(t, buf.ErrReleased, func() { b.Retain() })
	n := b.RefCount()
	require.Equal(t, 0, n, "RefCount = %d after release", n)
}

func TestMisuseStaleViewAfterReuse(t *testing.T) {
	buftest.CheckLeaks(t)
	a := buf.NewAllocator()
	root := filled(a.Get(64), 32)
	v := root.Slice(2, 8)
	root.Release()
	// Get from the same class until the released header comes back (in the
	// default build without -race it does at once; the invariants build
	// never recycles it). The view must panic either way.
	var held []*buf.Buffer
	reused := false
	for range 64 {
		b := filled(a.Get(64), 16)
		held = append(held, b)
		if b == root {
			reused = true
			break
		}
	}
	t.Logf("header reused: %v", reused)
	for _, m := range bufferMethods {
		mustPanic(t, buf.ErrReleased, func() { m.call(v) })
		require.False(t, t.Failed(), "stale view: %s did not panic with ErrReleased", m.name)
	}
	n := v.RefCount()
	assert.Equal(t, 0, n, "stale view RefCount = %d, want 0", n)
	for _, b := range held {
		// The new owner is unaffected by the stale view's attempts.
		n := b.RefCount()
		assert.Equal(t, 1, n, "new owner's RefCount = %d, want 1", n)
		want := filled(buf.Wrap(nil), 16).Bytes()
		assert.Equal(t, want, b.Bytes(), "new owner's bytes")
		b.Release()
	}
}

func TestMisuseLiveAfterPartialRelease(t *testing.T) {
	buftest.CheckLeaks(t)
	b := filled(buf.Get(64), 8)
	v := b.Slice(0, 8).Retain()
	require.False(t, b.Release(), "Release returned true with a view's reference outstanding")
	// b's owner gave up its reference, but the memory is live: b and v work.
	require.Equal(t, [4]int{8, 8, 1, 1}, [4]int{b.Len(), v.Len(), b.RefCount(), v.RefCount()}, "after partial release: Len of b and v, RefCount of b and v")
	require.True(t, v.Release(), "last Release through the view returned false")
	mustPanic(t, buf.ErrReleased, func() { b.Len() })
	mustPanic(t, buf.ErrReleased, func() { v.Len() })
}

// TestMisuseFullView writes past a view's capacity: the methods that
// return an error return ErrFixed, the others panic with it, and nothing
// is written.
func TestMisuseFullView(t *testing.T) {
	buftest.CheckLeaks(t)
	b := prepared(buf.NewAllocator(), 0, "0123456789")
	defer b.Release()
	v := b.Slice(2, 6)
	v.Skip(2) // consumed room is still no room: a view never slides
	for _, w := range writers {
		n, err := w.write(v, []byte("x"))
		assert.Zero(t, n, "%s on a full view", w.name)
		assert.Equal(t, buf.ErrFixed, err, "%s on a full view", w.name)
	}
	for _, c := range codecs {
		mustPanic(t, buf.ErrFixed, func() { c.write(v, 1) })
	}
	mustPanic(t, buf.ErrFixed, func() { v.Grow(1) })
	v.Grow(0)
	checkBytes(t, v, []byte("4567"))
	checkBytes(t, b, []byte("0123456789"))
	// Within its capacity a view writes into the root's memory.
	v.Reset()
	n, err := v.ReadFrom(strings.NewReader("abcdefgh"))
	require.Equal(t, buf.ErrFixed, err, "ReadFrom past a view's capacity")
	require.EqualValues(t, 6, n, "ReadFrom past a view's capacity")
	checkBytes(t, b, []byte("01abcdef89"))
	v.Reset()
	n, err = v.ReadFrom(strings.NewReader("ABC"))
	require.NoError(t, err, "ReadFrom within a view's capacity")
	require.EqualValues(t, 3, n, "ReadFrom within a view's capacity")
	m, err := v.Write([]byte("DEFG"))
	require.Equal(t, buf.ErrFixed, err, "Write past a view's capacity")
	require.Zero(t, m, "Write past a view's capacity")
	v.WriteUint16(0x4445)
	checkBytes(t, v, []byte("ABCDE"))
	checkBytes(t, b, []byte("01ABCDEf89"))
}

// TestMisuseHugeSizes asks for sizes no buffer can have: each panics with
// an error wrapping ErrTooLarge (ErrFixed on a view, which never grows),
// never with the runtime's makeslice error, and leaves the buffer as it
// was.
func TestMisuseHugeSizes(t *testing.T) {
	buftest.CheckLeaks(t)
	a := buf.NewAllocator()
	small := buf.NewAllocator(buf.WithMaxSize(64))
	for _, n := range []int{math.MaxInt, math.MaxInt - 1, math.MaxInt/2 + 1} {
		mustPanic(t, buf.ErrTooLarge, func() { a.Get(n) })
		mustPanic(t, buf.ErrTooLarge, func() { buf.Get(n) })
		for name, b := range map[string]*buf.Buffer{
			"empty":        a.Get(0),
			"pooled":       prepared(a, 3, "abc"),
			"past MaxSize": prepared(small, 3, strings.Repeat("abc", 40)),
			"wrapped":      buf.Wrap([]byte("abc")),
			"wrapped nil":  buf.Wrap(nil),
		} {
			want := bytes.Clone(b.Bytes())
			mustPanic(t, buf.ErrTooLarge, func() { b.Grow(n) })
			mustPanic(t, buf.ErrTooLarge, func() { b.Grow(n - b.Len()) }) // Len+n exactly MaxInt
			checkBytes(t, b, want)
			b.WriteString("d") // still usable
			checkBytes(t, b, append(want, 'd'))
			require.False(t, t.Failed(), "%s buffer, n = %d", name, n)
			b.Release()
		}
	}
	b := prepared(a, 0, "0123456789")
	defer b.Release()
	v := b.Slice(2, 4)
	mustPanic(t, buf.ErrFixed, func() { v.Grow(math.MaxInt) })
	checkBytes(t, v, []byte("2345"))
}
