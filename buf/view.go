package buf

// Slice returns a view of n readable bytes starting off bytes after the
// reader index. The view shares b's memory and b's reference count: it does
// not add a reference, so it is valid only while b's owner holds its
// reference, and the view must not be released on its own account (use
// RetainedSlice for a view that holds a reference of its own). Releasing
// the view drops one of b's references. The view's readable bytes
// are exactly those n bytes; it cannot grow, so writes beyond its capacity
// fail with ErrFixed. While views exist b never slides its bytes under them
// (growth moves to a fresh block instead), but writes after b.Reset reuse
// the memory and change what views read. Slice panics if the range is
// outside the readable bytes. It allocates the view's header.
func (b *Buffer) Slice(off, n int) *Buffer {
	b.check()
	if off < 0 || n < 0 || off > b.w-b.r-n {
		panic("buf: Slice(" + itoa(off) + ", " + itoa(n) + ") out of range with " + itoa(b.w-b.r) + " readable bytes")
	}
	root := b.root
	if root == nil {
		root = b
		b.sliced = true
	}
	// A view of a view needs no mark: the root was marked when the first
	// view was made, and if it has grown since, the block both views read
	// is no longer the root's. Not writing the root keeps views usable on
	// other goroutines while the root's owner writes.
	start := b.r + off
	if tr := b.m.tr.Load(); tr != nil {
		tr.record("Slice", "")
	}
	return &Buffer{
		b:     b.b[start : start+n : start+n],
		w:     n,
		m:     b.m,
		root:  root,
		gen:   b.gen,
		fixed: true,
	}
}

// RetainedSlice returns the view Slice(off, n) returns, holding a
// reference of its own: it stays valid after b's owner releases b, and the
// caller must Release it. It is Slice followed by Retain on the view, with
// their panics. It allocates the view's header.
func (b *Buffer) RetainedSlice(off, n int) *Buffer {
	return b.Slice(off, n).Retain()
}
