package buf

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/netkit/netkit/internal/invariants"
	"github.com/netkit/netkit/internal/rt/relaxed"
)

// An Allocator hands out pooled Buffers. Requests are rounded up to a size
// class (16 bytes to the allocator's largest class, four classes per
// doubling); each class has a sync.Pool of buffers, the *Buffer header
// pooled together with its memory, so a steady-state Get and Release
// allocate nothing. On a miss, classes up to 4 KiB are carved from 64 KiB
// chunks (the partly carved chunk itself waits in a sync.Pool for the next
// miss) and larger classes get a block of their own. Requests above the
// largest class are allocated on each Get and dropped on Release.
//
// Pooled memory goes back to the GC by the rules of sync.Pool: what sits
// unused in a pool through two collections is freed. A chunk is freed when
// none of the blocks carved from it is in use or pooled.
//
// Every buffer header carries a runtime cleanup, attached once when the
// header is made, which counts the buffers the GC collects without their
// last Release (Stats.Leaks) and reports tracked ones (see LeakLevel).
//
// An Allocator is safe for concurrent use. The zero value is not usable:
// make one with NewAllocator.
type Allocator struct {
	pools   []sync.Pool // one per class, holding *Buffer released to it
	maxSize int
	chunks  sync.Pool     // *chunk: the partly carved chunk for small classes
	views   sync.Pool     // *Buffer headers of released views (derived.go)
	level   atomic.Int32  // leak level set by WithLeakLevel, or -1 to follow SetLeakLevel
	lvl     *atomic.Int32 // &level when WithLeakLevel set it, else &globalLevel
	reg     registry
}

// Default is the allocator behind Get: largest class DefaultMaxSize, leak
// level from SetLeakLevel.
var Default = NewAllocator()

// Get returns an empty pooled buffer from Default with Cap() >= n and a
// reference count of one. Release it when done.
func Get(n int) *Buffer { return Default.Get(n) }

// An Option configures NewAllocator.
type Option func(*Allocator)

// WithMaxSize sets the largest pooled size; it is rounded up to a class and
// must lie between 16 bytes and MaxPooledSize. Larger requests are unpooled.
func WithMaxSize(n int) Option {
	if n < minClassSize || n > MaxPooledSize {
		panic("buf: WithMaxSize(" + itoa(n) + ") outside [" + itoa(minClassSize) + ", " + itoa(MaxPooledSize) + "]")
	}
	return func(a *Allocator) { a.maxSize = classSize(classOf(n)) }
}

// WithLeakLevel fixes the allocator's leak detection level instead of
// following SetLeakLevel.
func WithLeakLevel(l LeakLevel) Option {
	return func(a *Allocator) { a.level.Store(int32(l)) }
}

// NewAllocator returns an allocator with the given options.
func NewAllocator(opts ...Option) *Allocator {
	a := &Allocator{maxSize: DefaultMaxSize}
	a.level.Store(-1)
	for _, o := range opts {
		o(a)
	}
	a.lvl = &globalLevel
	if a.level.Load() >= 0 {
		a.lvl = &a.level
	}
	n := classOf(a.maxSize) + 1
	a.pools = make([]sync.Pool, n)
	a.reg.classes = make([]classTotals, n)
	return a
}

// MaxSize returns the largest pooled size.
func (a *Allocator) MaxSize() int { return a.maxSize }

// Get returns an empty buffer with Cap() >= n and a reference count of one,
// pooled when n is at most MaxSize. It panics if n is negative, and with an
// error wrapping ErrTooLarge if n is more than the runtime can allocate
// (math.MaxInt, say). Amortized O(1); no allocation when the pool has a
// buffer of the class (at LeakSampled too, whose tracking records are
// reused; LeakAll may allocate one).
func (a *Allocator) Get(n int) *Buffer {
	if uint(n) > uint(a.maxSize) { // a negative n too
		return a.getLarge(n)
	}
	c := classOf(n)
	b, _ := a.pools[c].Get().(*Buffer)
	if b == nil {
		b = a.newBuffer(c)
	}
	// Hand the buffer out, written here rather than in a function of its
	// own (it does not inline): a new generation (which also counts the
	// get), reference count one, empty.
	m := b.m
	g := m.nextGen(b.gen, refOne)
	b.gen = g
	b.r, b.w, b.sliced = 0, 0, false
	// The generation starts at a random value and steps by one, so sampling
	// on its low bits picks one get in sampleRate both among reused headers
	// and among fresh ones (a steady leak keeps making fresh ones), with no
	// shared counter. The other 127 gets of 128 pay a test and a load here
	// (the level is read only when LeakAll could apply).
	if g%sampleRate == 0 || m.tr.Load() != nil || invariants.Enabled || a.leakLevel() == LeakAll {
		a.track(b, g)
	}
	return b
}

// track is the tracking part of a hand-out of b with generation g, off the
// fast path: it drops the previous generation's tracker and gives b a new
// one when the leak level says so.
func (a *Allocator) track(b *Buffer, g uint32) {
	m := b.m
	dropTracker(m)
	if lvl := a.leakLevel(); invariants.Enabled || lvl == LeakAll || lvl == LeakSampled && g%sampleRate == 0 {
		m.tr.Store(newTracker(b))
	}
}

// take returns a released buffer of class c, from the pool or new, bumping
// its generation (a get for Stats) without making it live.
func (a *Allocator) take(c int) *Buffer {
	b, _ := a.pools[c].Get().(*Buffer)
	if b == nil {
		b = a.newBuffer(c)
	}
	b.gen = b.m.nextGen(b.gen, released)
	return b
}

// nextGen moves m, which its caller holds exclusively, from generation cur
// to the next with reference word word, and returns the new generation.
// Every generation is one get for Stats; epochs counts the wraps.
//
// cur is the generation of the pooled header that owns m (Buffer.gen): a
// header and its meta stay together, and only the header's own hand-outs
// move the meta's generation, each storing the new one in the header too.
// Taking it from there, not from m's state, spares a Get a load that
// depends on the one of b.m (a fifth of Get's time).
func (m *meta) nextGen(cur uint32, word uint64) uint32 {
	if invariants.Enabled && uint32(m.load()>>32) != cur {
		panic("buf: a pooled header's generation disagrees with its meta's")
	}
	g := cur + 1
	if g == 0 {
		m.wrapped()
	}
	// The caller holds m alone (it came from a pool), and whoever gets the
	// buffer next does so through a hand-off that synchronises: the store
	// needs no fence, only to be whole for Stats and for a stale handle's
	// check (internal/rt/relaxed; a locked XCHG cost 2 of the 5 ns between a
	// Get and Release and a bare sync.Pool's).
	relaxed.Store64(&m.state, uint64(g)<<32|word)
	return g
}

// wrapped counts a wrap of m's generation, out of nextGen so that it
// inlines.
func (m *meta) wrapped() { m.epochs.Add(1) }

// newBuffer makes a header, its meta and its block for class c (a pool
// miss), registers the meta and attaches the collection cleanup. The buffer
// is returned released, as if it came from the pool.
func (a *Allocator) newBuffer(c int) *Buffer {
	size := classSize(c)
	m := &meta{a: a, class: int32(c), size: size}
	g := rand.Uint32()
	m.store(uint64(g)<<32 | released)
	b := &Buffer{b: a.block(size), m: m, gen: g}
	a.reg.add(m, uint64(g))
	runtime.AddCleanup(b, collected, m)
	return b
}

// getLarge serves a request above the largest class: never pooled.
func (a *Allocator) getLarge(n int) *Buffer {
	if n < 0 {
		panic("buf: Get(" + itoa(n) + "): negative size")
	}
	m := &meta{a: a, class: classLarge, size: n}
	m.store(1<<32 | refOne) // generation 1: one get
	b := &Buffer{b: makeBlock(n), m: m, gen: 1}
	a.reg.add(m, 0)
	runtime.AddCleanup(b, collected, m)
	if lvl := a.leakLevel(); invariants.Enabled || lvl != LeakOff {
		m.tr.Store(newTracker(b)) // large gets are slow anyway: always tracked
	}
	return b
}

// chunk is a block of memory that small classes are carved from.
type chunk struct {
	mem []byte
	off int
}

// block returns fresh memory for a block of the given class size.
func (a *Allocator) block(size int) []byte {
	if size > carveMax {
		return make([]byte, size)
	}
	ch, _ := a.chunks.Get().(*chunk)
	if ch == nil || len(ch.mem)-ch.off < size {
		ch = &chunk{mem: make([]byte, chunkSize)}
	}
	p := ch.mem[ch.off : ch.off+size : ch.off+size]
	ch.off += size
	if len(ch.mem)-ch.off >= minClassSize {
		a.chunks.Put(ch)
	}
	return p
}
