package buf

import "sync"

// Stats is a snapshot of an Allocator's counters.
type Stats struct {
	// Classes has one entry per size class, smallest first.
	Classes []ClassStats
	// Large counts requests above the largest class, which are never pooled
	// (every get is a miss and Pooled stays zero).
	Large ClassStats
	// Leaks counts buffers the GC collected without their last Release, all
	// of them, whatever the leak level (the level only decides which are
	// reported with stacks). A leak is counted after its report has been
	// delivered, so once Leaks reaches n the reports of n leaks are in.
	Leaks uint64
}

// ClassStats counts the activity of one size class.
type ClassStats struct {
	Size   int    // block size in bytes (0 for Stats.Large)
	Gets   uint64 // blocks handed out (by Get, and by growth into this class)
	Hits   uint64 // gets served from the pool
	Misses uint64 // gets that made a new buffer
	InUse  int64  // bytes in buffers not yet released
	Pooled int64  // bytes in released buffers that the pool still holds
}

// Total sums the classes and Large.
func (s Stats) Total() ClassStats {
	t := s.Large
	t.Size = 0
	for _, c := range s.Classes {
		t.Gets += c.Gets
		t.Hits += c.Hits
		t.Misses += c.Misses
		t.InUse += c.InUse
		t.Pooled += c.Pooled
	}
	return t
}

// Stats returns a snapshot of a's counters. It costs O(number of buffers the
// allocator has made that the GC has not collected) and allocates the
// snapshot; the counters themselves cost the hot path nothing (gets are
// read off each buffer's generation).
func (a *Allocator) Stats() Stats {
	s := Stats{Classes: make([]ClassStats, len(a.reg.classes))}
	for c := range s.Classes {
		s.Classes[c].Size = classSize(c)
	}
	r := &a.reg
	r.mu.Lock()
	defer r.mu.Unlock()
	for c, t := range r.classes {
		s.Classes[c].Gets = t.gets
		s.Classes[c].Misses = t.misses
	}
	s.Large.Gets, s.Large.Misses = r.large.gets, r.large.misses
	s.Leaks = r.leaks
	for _, m := range r.metas {
		st := m.load()
		cs := &s.Large
		if m.class >= 0 {
			cs = &s.Classes[m.class]
		}
		cs.Gets += m.gets(st) - m.base
		if st&1 == 0 {
			cs.InUse += int64(m.size)
		} else if m.class >= 0 {
			cs.Pooled += int64(m.size)
		}
	}
	for c := range s.Classes {
		s.Classes[c].Hits = s.Classes[c].Gets - s.Classes[c].Misses
	}
	s.Large.Hits = 0
	return s
}

// gets returns the number of generations m has gone through, given its
// state word st.
func (m *meta) gets(st uint64) uint64 {
	return uint64(m.epochs.Load())<<32 | st>>32
}

// registry knows every meta whose header the GC has not collected, so Stats
// can read their counters and cleanups can fold them in.
type registry struct {
	mu      sync.Mutex
	metas   []*meta
	classes []classTotals // counts folded in from collected or moved metas
	large   classTotals
	leaks   uint64
}

type classTotals struct {
	gets, misses uint64
}

func (r *registry) totals(class int32) *classTotals {
	if class >= 0 {
		return &r.classes[class]
	}
	return &r.large
}

// add registers a new meta whose gets start counting after base.
func (r *registry) add(m *meta, base uint64) {
	r.mu.Lock()
	m.base = base
	m.idx = len(r.metas)
	r.metas = append(r.metas, m)
	r.totals(m.class).misses++
	r.mu.Unlock()
}

// foldLocked credits m's gets so far to its current class.
func (r *registry) foldLocked(m *meta) {
	g := m.gets(m.load())
	r.totals(m.class).gets += g - m.base
	m.base = g
}

// reclass moves m to another class (growth).
func (r *registry) reclass(m *meta, class int32, size int) {
	r.mu.Lock()
	r.foldLocked(m)
	m.class, m.size = class, size
	r.mu.Unlock()
}

// swap exchanges the classes of two metas whose blocks were exchanged.
func (r *registry) swap(m1, m2 *meta) {
	r.mu.Lock()
	r.foldLocked(m1)
	r.foldLocked(m2)
	m1.class, m2.class = m2.class, m1.class
	m1.size, m2.size = m2.size, m1.size
	r.mu.Unlock()
}
