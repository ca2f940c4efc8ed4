package buf

import (
	"io"

	"github.com/netkit/netkit/internal/invariants"
)

// A Composite is a sequence of buffers read as one: the readable bytes of
// each appended Buffer, in order, without copying them together. It is the
// accumulator for reads that arrive in pieces and the gather list for
// writes that leave in pieces (Buffers, WriteTo).
//
// Reads consume from the front and may straddle components: ReadUint64 of
// a value whose bytes lie in three buffers works as on one. Absolute
// accessors (GetUint32, PutUint64, …) address the readable bytes by offset,
// as Buffer's do. Index searches across component seams, copying at most a
// seam window of 2(m−1) bytes for a needle of m bytes; package bufsearch
// does the same with a prepared search.Pattern or a search.Set.
//
// # Ownership
//
// Append takes over one reference to the buffer: the composite releases it
// when the buffer's bytes have been consumed and Discard (or WriteTo) drops
// them, or when the composite is released. The composite reads the bytes
// that were readable when the buffer was appended; the caller must not
// write to the buffer afterwards (it no longer holds a reference). Release
// releases every component; a released composite panics with ErrReleased on
// any use. Discard(c.Len()) empties a composite, releasing every component,
// and keeps it usable. The package doc's "Names and ownership" table lists
// what each name means on Composite and on Buffer. Slices returned by Next alias component memory (or, for bytes
// that straddle components, a scratch area of the composite); they are
// valid until the next read, Discard or Release, or an Append or Insert
// that consolidates (WithMaxComponents). With -tags invariants,
// released memory is poisoned with 0xDE, so a stale view reads garbage that
// tests notice.
//
// Reads do not release anything: bytes consumed by Read, Next, Skip and the
// fixed-width reads stay in memory, so that slices returned by Next stay
// valid, until Discard (Discard(0) releases just what reads consumed) or
// Release.
//
// # Costs
//
// Append is O(1) amortised and allocates nothing once the component arrays
// have grown; Insert and AppendAll are O(m+n) for m new and n held
// components. Sequential reads cost what Buffer's do, plus a component
// switch at each seam. Absolute accessors find their component through the
// last-found component, then an index of the offsets built on demand, then
// a binary search. Each component costs 40 bytes here besides its Buffer,
// and up to 32 more once random access has built the page index.
//
// The zero value is not usable; call NewComposite. A Composite is not safe
// for concurrent use.
type Composite struct {
	ends  []int       // ends[j]: stream offset one past component j's last byte
	comps []component // parallel to ends; comps[h:] are held
	h     int         // first held component
	r     int         // stream offset of the reader
	w     int         // stream offset one past the last byte
	cur   int         // component the reader is in; len(comps) when empty
	rp    []byte      // comps[cur]'s bytes from r on (empty at a seam or the end)
	last  int         // component found by the last lookup
	wp    []byte      // the accessors' last component, from its start…
	wlo   int         // …at this stream offset (wp nil: none)
	pages pageIndex   // offset → component, for random access

	max      int        // component limit; 0 for none
	alloc    *Allocator // for Consolidate
	scratch  []byte     // Next's copy of straddling bytes
	window   []byte     // Index's seam windows
	bufs     [][]byte   // Buffers' result, reused
	raw      *rawWriter // WriteTo's writev state, reused
	released bool
}

// A component is one appended buffer: the reference the composite holds
// and the bytes that were readable when it was appended.
type component struct {
	p []byte
	b *Buffer
}

// A CompositeOption configures NewComposite.
type CompositeOption func(*Composite)

// DefaultMaxComponents is the component limit of a Composite made without
// WithMaxComponents: none. Netty consolidates past 16 components because
// its component lookup is a linear scan; here lookups cost O(1) amortised
// or O(log n), and WriteTo hands the kernel 1024 components per writev, so
// a limit would only trade copying for memory. Set one when many tiny
// buffers (a few bytes each) are appended and kept: each costs a Buffer
// header besides its bytes.
const DefaultMaxComponents = 0

// WithMaxComponents makes Append consolidate all held components into one
// buffer (see Consolidate) whenever a new component would make more than n.
// n ≤ 0 means no limit.
func WithMaxComponents(n int) CompositeOption {
	return func(c *Composite) { c.max = max(n, 0) }
}

// WithAllocator sets the allocator that Consolidate and automatic
// consolidation take their buffer from (buf.Default otherwise).
func WithAllocator(a *Allocator) CompositeOption {
	return func(c *Composite) { c.alloc = a }
}

// NewComposite returns an empty composite.
func NewComposite(opts ...CompositeOption) *Composite {
	c := &Composite{max: DefaultMaxComponents, alloc: Default}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Allocator returns the allocator c takes buffers from (Consolidate, and
// the copies of NextRetained and RetainedAt): WithAllocator's, or Default.
// A decoder that copies a frame itself takes its buffer from here, so
// that the frame is counted where the composite's buffers are.
func (c *Composite) Allocator() *Allocator { return c.alloc }

// check panics once c has been released.
func (c *Composite) check() {
	if c.released {
		panicReleased()
	}
}

func panicReleased() { panic(&detailError{ErrReleased, " (composite)"}) }

// Len returns the number of readable bytes.
func (c *Composite) Len() int {
	c.check()
	return c.w - c.r
}

// NumComponents returns the number of buffers the composite holds,
// including ones whose bytes have all been read but not yet discarded.
func (c *Composite) NumComponents() int {
	c.check()
	return len(c.comps) - c.h
}

// start returns the stream offset of component j's first byte.
func (c *Composite) start(j int) int { return c.ends[j] - len(c.comps[j].p) }

// Append adds b's readable bytes at the end, taking over one reference to
// b (see the type's Ownership section). An empty b is released at once.
// Append allocates only when the component arrays grow, or when a
// component limit (WithMaxComponents) makes it consolidate; consolidation
// copies the readable bytes into a new buffer and releases the old
// components, so it invalidates slices returned by Next (and those
// returned by Buffers). It panics with ErrReleased if b is released.
func (c *Composite) Append(b *Buffer) {
	c.check()
	p := b.Bytes()
	if len(p) == 0 {
		b.Release()
		return
	}
	if c.max > 0 && len(c.comps)-c.h >= c.max {
		c.consolidate(b)
		return
	}
	c.push(p, b)
}

// push adds component (p, b) at the end: Append past its checks.
func (c *Composite) push(p []byte, b *Buffer) {
	if len(c.comps) == cap(c.comps) && c.h > 0 {
		c.compact()
	}
	atEnd := c.cur == len(c.comps)
	c.w += len(p)
	c.comps = append(c.comps, component{p: p, b: b})
	c.ends = append(c.ends, c.w)
	if atEnd {
		c.rp = p
	}
	if invariants.Enabled {
		c.verify()
	}
}

// MoveTo moves c's readable bytes to the end of dst without copying them
// and without touching a reference count: each component holding unread
// bytes leaves c with the reference c held, as if c had handed its buffer
// to dst.Append, and a component read in part moves with just its unread
// bytes. What reads consumed is released, as by Discard, and c is left
// empty and usable. It returns the number of bytes moved. A writer that
// echoes or forwards what it read (inbound to outbound composite) moves
// whole read buffers this way, with no view and no atomic operation per
// component. MoveTo allocates only when dst's component arrays grow; when
// dst has a component limit (WithMaxComponents), a component past it goes
// in as Append takes it, consolidating. Slices returned by c.Next, and
// reader indexes saved with c.ReaderIndex, are invalid afterwards. It
// panics if dst is c, or if either is released.
func (c *Composite) MoveTo(dst *Composite) int {
	c.check()
	dst.check()
	if c == dst {
		panic("buf: Composite.MoveTo to itself")
	}
	n := c.w - c.r
	first := c.cur
	if first < len(c.comps) && len(c.rp) == 0 {
		first++ // the reader's component is read to its end
	}
	for j := c.h; j < first; j++ {
		c.comps[j].b.Release()
	}
	for j := first; j < len(c.comps); j++ {
		cp := c.comps[j]
		if j == c.cur {
			cp.p = c.rp
		}
		if dst.max > 0 && len(dst.comps)-dst.h >= dst.max {
			dst.Append(dst.alloc.derive(cp.b, cp.p))
			cp.b.Release()
			continue
		}
		dst.push(cp.p, cp.b)
	}
	// Components before c.h were cleared when released; clearing the rest
	// one by one is cheaper than clear's bulk barrier for the one or two
	// an echo moves.
	for j := c.h; j < len(c.comps); j++ {
		c.comps[j] = component{}
	}
	c.comps, c.ends = c.comps[:0], c.ends[:0]
	c.h, c.cur, c.last, c.rp = 0, 0, 0, nil
	c.r, c.w = 0, 0
	c.pages.valid = false
	c.wp = nil
	if c.raw != nil {
		c.raw.forget()
	}
	if invariants.Enabled {
		poisonScratch(c.scratch)
		c.verify()
		dst.verify()
	}
	return n
}

// AppendAll appends each of bs in order, as Append, in O(len(bs)) time.
func (c *Composite) AppendAll(bs ...*Buffer) {
	c.check()
	if n := len(c.comps) + len(bs); n > cap(c.comps) {
		c.compact()
		c.reserve(len(bs))
	}
	for _, b := range bs {
		c.Append(b)
	}
}

// reserve makes room for n more components.
func (c *Composite) reserve(n int) {
	// Append grows the two arrays separately, so their capacities differ.
	if len(c.comps)+n <= cap(c.comps) && len(c.ends)+n <= cap(c.ends) {
		return
	}
	size := max(len(c.comps)+n, 2*cap(c.comps), 4)
	comps := make([]component, len(c.comps), size)
	copy(comps, c.comps)
	ends := make([]int, len(c.ends), size)
	copy(ends, c.ends)
	c.comps, c.ends = comps, ends
}

// compact moves the held components to the front of the arrays.
func (c *Composite) compact() {
	if c.h == 0 {
		return
	}
	n := copy(c.comps, c.comps[c.h:])
	clear(c.comps[n:])
	c.comps = c.comps[:n]
	c.ends = c.ends[:copy(c.ends, c.ends[c.h:])]
	c.cur -= c.h
	c.last = 0
	c.h = 0
	c.pages.valid = false
	c.wp = nil
}

// Insert inserts the readable bytes of bs, in order, at readable offset off
// (0 ≤ off ≤ Len), taking over one reference to each as Append does. A
// component that off falls inside is split in two, both halves sharing its
// buffer (which Insert retains once more). Insert takes O(m+n) time for m
// buffers inserted and n held; it panics if off is out of range. With a
// component limit (WithMaxComponents) that the new components exceed, it
// consolidates afterwards, which invalidates slices returned by Next.
func (c *Composite) Insert(off int, bs ...*Buffer) {
	c.check()
	if off < 0 || off > c.w-c.r {
		panic("buf: Composite.Insert at " + itoa(off) + " out of range with " + itoa(c.w-c.r) + " readable bytes")
	}
	add := make([]component, 0, len(bs)) // before any change: bs are checked first
	for _, b := range bs {
		if p := b.Bytes(); len(p) > 0 {
			add = append(add, component{p: p, b: b})
		} else {
			b.Release()
		}
	}
	if len(add) == 0 {
		return
	}
	pos := c.r + off
	j := len(c.comps)
	if pos < c.w {
		j = c.find(pos)
		if s := c.start(j); pos > s {
			// Split component j at pos: both halves hold a reference.
			cp := c.comps[j]
			cp.b.Retain()
			c.reserve(1)
			c.comps = append(c.comps, component{})
			c.ends = append(c.ends, 0)
			copy(c.comps[j+1:], c.comps[j:])
			copy(c.ends[j+1:], c.ends[j:])
			c.comps[j].p = cp.p[:pos-s]
			c.comps[j+1].p = cp.p[pos-s:]
			c.ends[j] = pos
			j++
		}
	}
	c.reserve(len(add))
	n := len(c.comps)
	c.comps = c.comps[:n+len(add)]
	c.ends = c.ends[:n+len(add)]
	copy(c.comps[j+len(add):], c.comps[j:n])
	copy(c.comps[j:], add)
	end := pos
	for k := j; k < len(c.comps); k++ {
		end += len(c.comps[k].p)
		c.ends[k] = end
	}
	c.w = end
	c.pages.valid = false
	c.last = c.h
	c.wp = nil
	c.seek()
	if c.max > 0 && len(c.comps)-c.h > c.max {
		c.consolidate(nil)
	}
	if invariants.Enabled {
		c.verify()
	}
}

// seek points the reader's component and slice at stream offset r.
func (c *Composite) seek() {
	if c.r == c.w {
		c.cur, c.rp = len(c.comps), nil
		return
	}
	j := c.find(c.r)
	c.cur, c.rp = j, c.comps[j].p[c.r-c.start(j):]
}

// Discard consumes n readable bytes and releases every component whose
// bytes have all been consumed, by Discard or by earlier reads: Discard(0)
// releases just what reads consumed, and Discard(c.Len()) empties c and
// releases everything it holds, leaving it usable (the component arrays are
// kept for reuse, and WriteTo forgets the connection it last wrote to).
// With fewer than n readable bytes it consumes nothing, still releases what
// was consumed, and returns io.EOF (nothing readable) or
// io.ErrUnexpectedEOF. Slices returned by Next, and reader indexes saved
// with ReaderIndex, are invalid afterwards. It panics if n is negative. It
// allocates nothing and takes O(1) time per released component plus
// O(log n) to find the new reader position.
func (c *Composite) Discard(n int) error {
	c.check()
	if n == 0 {
		if c.h == len(c.comps) {
			// Nothing held (releaseRead and MoveTo reset the offsets when
			// they let the last component go): an event loop empties its
			// composites this way after every read and write.
			if c.raw != nil {
				c.raw.forget()
			}
			if invariants.Enabled {
				poisonScratch(c.scratch)
				c.verify()
			}
			return nil
		}
		if c.h == c.cur && len(c.rp) > 0 {
			return nil // nothing consumed lies outside the reader's component
		}
	}
	if n < 0 {
		panic("buf: Composite.Discard with negative count")
	}
	err := c.discard(n)
	if c.r == c.w && c.raw != nil {
		c.raw.forget()
	}
	return err
}

// discard is Discard without its checks, for WriteTo, which keeps the
// connection it wrote to.
func (c *Composite) discard(n int) error {
	var err error
	switch {
	case n > c.w-c.r:
		err = c.short()
	case n == c.w-c.r:
		// Everything: no component to find (a flush that wrote all).
		c.r, c.cur, c.rp = c.w, len(c.comps), nil
	case n <= len(c.rp):
		c.r += n
		c.rp = c.rp[n:]
	default:
		c.r += n
		c.seek()
	}
	c.releaseRead()
	return err
}

// releaseRead releases the held components before the reader.
func (c *Composite) releaseRead() {
	k := c.cur
	if len(c.rp) == 0 && k < len(c.comps) {
		k++ // the reader's component is read to its end
	}
	for j := c.h; j < k; j++ {
		c.comps[j].b.Release()
		c.comps[j] = component{}
	}
	c.h = k
	if c.h == len(c.comps) {
		// Nothing held: start over at the front of the arrays, at stream
		// offset 0.
		c.comps, c.ends = c.comps[:0], c.ends[:0]
		c.h, c.cur, c.last, c.rp = 0, 0, 0, nil
		c.r, c.w = 0, 0
		c.pages.valid = false
	}
	c.last = max(c.last, c.h)
	c.wp = nil
	if invariants.Enabled {
		poisonScratch(c.scratch)
		c.verify()
	}
}

// Release releases every component and makes c unusable: any later use,
// and a second Release, panics with ErrReleased. Slices returned by Next
// are invalid afterwards. A Composite has no reference count: it has one
// owner, whose Release always frees it, so Release always returns true (the
// result says what Buffer.Release's does, so that both types satisfy
// interface{ Release() bool }). To empty a composite and keep using it,
// call c.Discard(c.Len()).
func (c *Composite) Release() bool {
	c.check()
	for j := c.h; j < len(c.comps); j++ {
		c.comps[j].b.Release()
	}
	if invariants.Enabled {
		poisonScratch(c.scratch)
	}
	*c = Composite{released: true}
	return true
}

func poisonScratch(p []byte) { fill(p[:cap(p)], poison) }

// Consolidate copies the readable bytes into one buffer from the
// composite's allocator, which replaces every component (consumed bytes are
// dropped and their components released), and returns that buffer with a
// reference for the caller, who must Release it; it returns nil when
// nothing is readable. The composite keeps its own reference, to its single
// component, until it discards or releases it; the caller's reference keeps
// the buffer valid after that. Do not write to the buffer while the
// composite holds it. When one component already holds exactly the
// readable bytes nothing is copied and that component's buffer is
// returned, retained. Slices returned by Next, and reader indexes saved with
// ReaderIndex, are invalid afterwards.
func (c *Composite) Consolidate() *Buffer {
	c.check()
	if c.r == c.w {
		c.releaseRead()
		return nil
	}
	c.releaseRead()
	if cp := c.comps[c.h]; len(c.comps)-c.h == 1 && c.start(c.h) == c.r && sameBytes(cp.p, cp.b.Bytes()) {
		return cp.b.Retain() // already one buffer holding exactly the readable bytes
	}
	c.consolidate(nil)
	return c.comps[0].b.Retain()
}

// sameBytes reports whether p and q are the same memory (both non-empty).
func sameBytes(p, q []byte) bool {
	return len(p) == len(q) && len(p) > 0 && &p[0] == &q[0]
}

// consolidate replaces the held components, and then extra if not nil, by
// one buffer holding the readable bytes.
func (c *Composite) consolidate(extra *Buffer) {
	n := c.w - c.r
	var xp []byte
	if extra != nil {
		xp = extra.Bytes()
	}
	nb := c.alloc.Get(n + len(xp))
	dst := nb.room(n + len(xp))
	c.peek(dst[:n], c.r)
	copy(dst[n:], xp)
	if extra != nil {
		extra.Release()
	}
	for j := c.h; j < len(c.comps); j++ {
		c.comps[j].b.Release()
	}
	clear(c.comps)
	if invariants.Enabled {
		poisonScratch(c.scratch)
	}
	p := nb.Bytes()
	c.comps = append(c.comps[:0], component{p: p, b: nb})
	c.ends = append(c.ends[:0], c.r+len(p))
	c.w = c.r + len(p)
	c.h, c.cur, c.last, c.rp = 0, 0, 0, p
	c.pages.valid = false
	c.wp = nil
	if invariants.Enabled {
		c.verify()
	}
}

// RetainedSlice returns a new composite of the n readable bytes starting
// off bytes after the reader index. It shares component memory but holds a
// reference of its own to every buffer it covers: it stays valid after c is
// released, and the caller must Release it. (A Composite has no reference
// count to share, so, unlike Buffer, it has no Slice.) It panics if the
// range is outside the readable bytes. It allocates the new composite and
// its arrays.
func (c *Composite) RetainedSlice(off, n int) *Composite {
	c.check()
	if off < 0 || n < 0 || off > c.w-c.r-n {
		panic("buf: Composite.RetainedSlice(" + itoa(off) + ", " + itoa(n) + ") out of range with " + itoa(c.w-c.r) + " readable bytes")
	}
	s := &Composite{max: c.max, alloc: c.alloc}
	if n == 0 {
		return s
	}
	pos, end := c.r+off, c.r+off+n
	first, lastc := c.find(pos), c.find(end-1)
	s.reserve(lastc - first + 1)
	for j := first; j <= lastc; j++ {
		p := c.comps[j].p
		st := c.start(j)
		lo, hi := max(pos, st)-st, min(end, c.ends[j])-st
		s.w += hi - lo
		s.comps = append(s.comps, component{p: p[lo:hi], b: c.comps[j].b.Retain()})
		s.ends = append(s.ends, s.w)
	}
	s.rp = s.comps[0].p
	return s
}

// find returns the component holding stream offset pos, which must lie in
// [c.r, c.w): the last component found when it holds pos, else the one
// after it (a walk from component to component, as with Span), else
// through the page index or a binary search.
func (c *Composite) find(pos int) int {
	if j := c.last; j < len(c.ends) && pos < c.ends[j] && pos >= c.start(j) {
		return j
	}
	j := c.findSlow(pos)
	c.last = j
	return j
}

func (c *Composite) findSlow(pos int) int {
	if j := c.last + 1; j < len(c.ends) && pos < c.ends[j] && pos >= c.ends[j-1] {
		return j
	}
	if j, ok := c.pages.lookup(c, pos); ok {
		return j
	}
	if !c.pages.valid {
		c.pages.misses++
		if c.pages.misses <= len(c.comps)-c.h || len(c.comps)-c.h < pageMinComponents {
			return c.search(c.h, len(c.ends), pos)
		}
		c.pages.build(c)
		if j, ok := c.pages.lookup(c, pos); ok {
			return j
		}
	}
	return c.pages.find(c, pos)
}

// search returns the first j in [lo, hi) with ends[j] > pos; there must be
// one. The loop compiles to conditional moves: no branch to mispredict.
func (c *Composite) search(lo, hi, pos int) int {
	ends := c.ends[lo:hi]
	base, n := 0, len(ends)
	for n > 1 {
		half := n >> 1
		if ends[base+half-1] <= pos {
			base += half
		}
		n -= half
	}
	return lo + base
}

// peek copies len(dst) bytes starting at stream offset pos, which must all
// be readable, into dst without consuming them.
func (c *Composite) peek(dst []byte, pos int) {
	if len(dst) == 0 {
		return
	}
	j := c.find(pos)
	for off := pos - c.start(j); len(dst) > 0; j, off = j+1, 0 {
		n := copy(dst, c.comps[j].p[off:])
		dst = dst[n:]
	}
}

// poke copies src into the readable bytes starting at stream offset pos.
func (c *Composite) poke(pos int, src []byte) {
	j := c.find(pos)
	for off := pos - c.start(j); len(src) > 0; j, off = j+1, 0 {
		n := copy(c.comps[j].p[off:], src)
		src = src[n:]
	}
}

// short returns the error of a read that wants more than Len bytes.
func (c *Composite) short() error {
	if c.r == c.w {
		return io.EOF
	}
	return io.ErrUnexpectedEOF
}

// verify checks the composite's structure (invariants build only).
func (c *Composite) verify() {
	if len(c.ends) != len(c.comps) || c.h > len(c.comps) {
		panic("buf: composite arrays out of step")
	}
	end := c.r
	if c.h < len(c.comps) {
		end = c.start(c.h)
	}
	for j := c.h; j < len(c.comps); j++ {
		if len(c.comps[j].p) == 0 || c.ends[j] != end+len(c.comps[j].p) {
			panic("buf: composite component " + itoa(j) + " ends at " + itoa(c.ends[j]) + ", want " + itoa(end+len(c.comps[j].p)))
		}
		end = c.ends[j]
	}
	if end != c.w || c.r > c.w {
		panic("buf: composite reader " + itoa(c.r) + ", end " + itoa(c.w) + ", components end at " + itoa(end))
	}
	if c.r < c.w {
		j := c.cur
		if len(c.rp) == 0 {
			j++
		}
		if j >= len(c.comps) || c.r < c.start(j) || c.r >= c.ends[j] {
			panic("buf: composite reader " + itoa(c.r) + " not in component " + itoa(j))
		}
	}
}
