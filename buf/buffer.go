package buf

import (
	"sync/atomic"

	"github.com/netkit/netkit/internal/invariants"
	"github.com/netkit/netkit/internal/race"
	"github.com/netkit/netkit/internal/rt/relaxed"
)

// A Buffer is a byte buffer with separate reader and writer indexes and a
// reference count. Bytes are appended at the writer index and consumed from
// the reader index; the bytes between them are the readable bytes (Len).
//
// A Buffer comes from an Allocator (Get, usually the pooled buf.Get), from
// Wrap (unpooled), or from Slice (a view sharing another buffer's memory and
// reference count). It starts with a reference count of one. Retain adds a
// reference; Release drops one, and the call that drops the last returns the
// memory to its pool. After that, every method but RefCount panics with
// ErrReleased; with tracking on (LeakAll, sampled buffers, or the invariants
// build) the panic names where the buffer was allocated and released.
//
// Every access checks liveness with a single atomic load. A Buffer is not
// safe for concurrent use, except that Retain, Release and RefCount may be
// called from any goroutine that holds a reference.
//
// In the default build a pooled Buffer is recycled: a *Buffer kept after its
// last Release may later belong to someone else, and misuse through it is no
// longer detectable. Views made by Slice keep detecting it. The invariants
// build (-tags invariants) never recycles, so every stale use panics, and it
// overwrites released memory with 0xDE so stale slices returned by Bytes or
// Next read garbage that tests notice.
type Buffer struct {
	// The header is 64 bytes, one size class and one cache line, so headers
	// that different goroutines cycle through never share a line.
	b      []byte  // memory this buffer covers; len(b) == cap(b)
	r, w   int     // reader and writer index into b
	m      *meta   // shared state: reference count, generation, tracking
	root   *Buffer // for a view made by Slice: the buffer owning the memory
	gen    uint32  // m's generation this header belongs to
	fixed  bool    // a view: it cannot grow
	sliced bool    // a view of this buffer's memory exists
}

// meta is the part of a buffer's state that views share and that outlives
// the header: the allocator's registry holds metas, never headers, so a
// header that nobody references is collected and its cleanup can tell
// whether it was released (pooled memory dropped by the GC) or leaked.
//
// state packs the generation (high 32 bits) and the reference word (low 32
// bits). As in Netty, the reference word is twice the count while the buffer
// is live and odd once it is released, so a retain is an add that never has
// to look at a released buffer's count. The generation is bumped on every
// hand-out, which makes stale views detectable and counts gets for Stats.
type meta struct {
	// state is first, so that it is 64-bit aligned on 32-bit systems too
	// (the first word of an allocated struct is); it is read and written
	// through the methods below, all atomic but nextGen's store.
	state  uint64
	epochs atomic.Uint32 // times the generation wrapped (for Stats)
	class  int32         // size class or pseudo-class; changed under a.reg.mu
	idx    int           // position in a.reg.metas; guarded by a.reg.mu
	size   int           // block size in bytes; changed under a.reg.mu
	base   uint64        // gets already counted elsewhere; guarded by a.reg.mu
	a      *Allocator    // nil for Wrap
	tr     atomic.Pointer[tracker]
	parent *Buffer // classView: the reference the view holds; see derived.go
}

func (m *meta) load() uint64             { return atomic.LoadUint64(&m.state) }
func (m *meta) store(v uint64)           { atomic.StoreUint64(&m.state, v) }
func (m *meta) cas(old, new uint64) bool { return atomic.CompareAndSwapUint64(&m.state, old, new) }
func (m *meta) add(d uint64) uint64      { return atomic.AddUint64(&m.state, d) }

const (
	genMask  = 0xFFFFFFFF_00000000
	liveMask = genMask | 1 // bits of state that must match tag() for a live buffer
	refOne   = 2           // reference word step: one reference
	maxRef   = 0x7FFFFFFE  // largest reference word: 2^30-1 references
	released = 1           // reference word of a released buffer
	poison   = 0xDE        // fill of released memory in the invariants build
)

// Wrap returns an unpooled Buffer whose readable bytes are p and whose spare
// capacity is p[len(p):cap(p)]. The buffer writes into p's array until it
// needs to grow, then moves to memory of its own. Release drops the last
// reference but never returns p anywhere. Wrap allocates the header.
func Wrap(p []byte) *Buffer {
	m := &meta{class: classWrapped, size: cap(p)}
	m.store(refOne)
	return &Buffer{b: p[:cap(p)], w: len(p), m: m}
}

// check panics unless the buffer is live and of the generation it was made
// for: one atomic load. The panic value formats its message only when
// printed, which keeps check cheap enough to inline everywhere.
func (b *Buffer) check() {
	if (b.m.load()^uint64(b.gen)<<32)&liveMask != 0 {
		panic(&releasedError{b.m, b.gen, "use"})
	}
}

// tag is the state word of a live buffer of b's generation, less the count.
func (b *Buffer) tag() uint64 { return uint64(b.gen) << 32 }

func (b *Buffer) panicReleased(op string) {
	panic(&releasedError{b.m, b.gen, op})
}

// releasedError is the panic value of a misuse: it wraps ErrReleased and
// names the stacks of the buffer when they are known.
type releasedError struct {
	m   *meta
	gen uint32
	op  string
}

func (e *releasedError) Error() string {
	return ErrReleased.Error() + " (" + e.op + ")" + e.m.describe(e.gen)
}

func (e *releasedError) Unwrap() error { return ErrReleased }

// RefCount returns the number of references held, or 0 once the buffer (or,
// for a view, the buffer it views) has been released.
func (b *Buffer) RefCount() int {
	s := b.m.load()
	if (s^b.tag())&liveMask != 0 {
		return 0
	}
	return int(uint32(s)) / refOne
}

// Retain adds a reference and returns b. It panics with ErrReleased when b
// is released and with ErrRefCount when the count would overflow. Safe to
// call from any goroutine that holds a reference.
func (b *Buffer) Retain() *Buffer {
	m := b.m
	for {
		s := m.load()
		if (s^b.tag())&liveMask != 0 {
			b.panicReleased("retain")
		}
		if uint32(s) >= maxRef {
			panic(ErrRefCount)
		}
		if m.cas(s, s+refOne) {
			break
		}
	}
	if tr := m.tr.Load(); tr != nil {
		tr.record("Retain", "")
	}
	return b
}

// retainQuiet adds a reference to b, which its caller knows to be live
// (it holds a reference itself), without Retain's checks or leak record:
// derive's retain of a parent, on the path of every frame.
func (b *Buffer) retainQuiet() {
	if s := b.m.add(refOne); uint32(s) > maxRef || (s^b.tag())&liveMask != 0 {
		b.m.add(^uint64(refOne - 1)) // undo
		if uint32(s) > maxRef {
			panic(ErrRefCount)
		}
		b.panicReleased("retain")
	}
}

// Release drops a reference and reports whether this call dropped the last
// refOne, returning the memory to its pool. After the last Release every view
// of the buffer (Bytes, Next, Slice) is invalid. Release panics with
// ErrReleased when b is already released. Safe to call from any goroutine
// that holds a reference. (Two goroutines releasing the same last
// reference at the same instant is a data race in the caller: the race
// and invariants builds panic in one of them, the default build, which
// releases a sole owner's buffer with a plain store, may not notice.)
func (b *Buffer) Release() bool {
	// The common case in one function: the sole owner of an untracked
	// pooled buffer, not a view, gives it back. Everything else (more
	// references, views, tracking, wrapped and large buffers, the
	// invariants build, a misuse) takes release's path.
	m := b.m
	s := m.load()
	if s != b.tag()|refOne || b.root != nil || m.class < 0 || invariants.Enabled || m.tr.Load() != nil {
		return b.release(true)
	}
	// One reference, ours: no other goroutine may change the word now
	// (Retain and Release need a reference of their own; a view holds
	// one on its parent), so a plain store releases it, as nextGen's
	// does on the way out of the pool. A compare-and-swap here was a
	// third of the time of a Get, a write and a Release (the locked
	// instruction also waits for every store before it). What it
	// still caught is two goroutines releasing the one reference at
	// the same instant, a data race in the caller: the race build
	// keeps the compare-and-swap, so that its loser panics there.
	if race.Enabled {
		if !m.cas(s, s-refOne+released) {
			return b.release(true)
		}
	} else {
		relaxed.Store64(&m.state, s-refOne+released)
	}
	m.a.pools[m.class].Put(b)
	return true
}

// release is Release; record says whether a release that is not the last
// is recorded for a tracked buffer (a view's release of its parent is not:
// it happens once per frame and says nothing about the parent's owner).
func (b *Buffer) release(record bool) bool {
	m := b.m
	for {
		s := m.load()
		if (s^b.tag())&liveMask != 0 {
			b.panicReleased("release")
		}
		if uint32(s) == refOne {
			if m.cas(s, s-refOne+released) {
				break
			}
			continue
		}
		if m.cas(s, s-refOne) {
			if tr := m.tr.Load(); record && tr != nil {
				tr.record("Release", "")
			}
			return false
		}
	}
	root := b
	if b.root != nil {
		root = b.root
	}
	root.free()
	return true
}

// free returns the root buffer's memory after its last reference is gone.
func (b *Buffer) free() {
	m := b.m
	if tr := m.tr.Load(); tr != nil {
		tr.released()
	}
	a := m.a
	if a == nil {
		return // wrapped: the memory belongs to the caller
	}
	if m.class == classView {
		a.freeView(b)
		return
	}
	if invariants.Enabled {
		fill(b.b, poison)
		return // never recycled: a stale *Buffer stays released forever
	}
	if m.class == classLarge {
		b.b = nil // let the GC have it even if the header lingers
		return
	}
	a.pools[m.class].Put(b)
}

// Touch records hint as an access to b when b is tracked for leaks (LeakAll,
// a sampled buffer, or the invariants build), so a leak report shows the
// last places the buffer went through. It returns b. Untracked, it costs one
// load.
func (b *Buffer) Touch(hint string) *Buffer {
	b.check()
	if tr := b.m.tr.Load(); tr != nil {
		tr.record("Touch", hint)
	}
	return b
}

func fill(p []byte, v byte) {
	for i := range p {
		p[i] = v
	}
}
