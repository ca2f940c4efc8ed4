package buf

import (
	"math/rand/v2"
	"runtime"

	"github.com/netkit/netkit/internal/invariants"
)

// Derived views are what Netty calls pooled retained slices: a view of
// another buffer's memory with a reference count of its own, which holds
// one reference to the buffer it views and drops it when its own count
// reaches zero. Unlike a view made by Slice (which shares its root's
// count, so its header can never be known to be free), a derived view's
// header and meta are recycled through the allocator's views pool, so
// handing one out allocates nothing in steady state.
//
// As with pooled buffers, a stale pointer to a recycled view header looks
// live again in the default build; the invariants build never recycles
// them, so misuse there panics with ErrReleased.

// derive returns a view of p, which must lie in parent's readable memory,
// holding a reference to parent (taken here; it panics with ErrReleased
// when parent is released). The view has a reference count of one.
func (a *Allocator) derive(parent *Buffer, p []byte) *Buffer {
	parent.retainQuiet()
	if parent.root == nil {
		// As Slice does: while views exist the root never slides its
		// bytes under them.
		parent.sliced = true
	}
	b, _ := a.views.Get().(*Buffer)
	if b == nil {
		m := &meta{a: a, class: classView}
		g := rand.Uint32()
		m.store(uint64(g)<<32 | released)
		b = &Buffer{m: m, gen: g}
		runtime.AddCleanup(b, collectedView, m)
	}
	m := b.m
	b.b, b.r, b.w = p[:len(p):len(p)], 0, len(p)
	b.fixed, b.sliced, b.root = true, false, nil
	m.size = len(p)
	m.parent = parent
	if m.tr.Load() != nil {
		m.tr.Store(nil)
	}
	// The state store publishes the fields above to collectedView.
	g := m.nextGen(b.gen, refOne)
	b.gen = g
	// Views are tracked (with stacks) only at LeakAll and in the
	// invariants build: a decoder makes one per frame, thousands per read,
	// and even one in 128 sampled costs more than the frames themselves.
	// An untracked view that leaks is still counted in Stats.Leaks.
	if invariants.Enabled || a.leakLevel() == LeakAll {
		m.tr.Store(newTracker(b))
	}
	return b
}

// freeView runs when a derived view's count reaches zero: it drops the
// view's reference to its parent and recycles the header.
func (a *Allocator) freeView(b *Buffer) {
	parent := b.m.parent
	b.m.parent, b.b = nil, nil
	if !invariants.Enabled {
		a.views.Put(b)
	}
	parent.release(false)
}

// collectedView is the cleanup of a derived view's header. A view collected
// while live leaked: it is reported and counted as a buffer is, and its
// reference to the parent is dropped, so that the parent, which did nothing
// wrong, is neither reported nor kept forever.
func collectedView(m *meta) {
	if m.load()&1 != 0 {
		return
	}
	if tr := m.tr.Load(); tr != nil {
		reportLeak(m.size, tr)
	}
	r := &m.a.reg
	r.mu.Lock()
	r.leaks++
	r.mu.Unlock()
	if p := m.parent; p != nil {
		m.parent = nil
		p.Release()
	}
}
