package buf

import "math/bits"

// pageMinComponents is the fewest held components for which random access
// builds a page index; below it a binary search takes a few steps at most.
const pageMinComponents = 16

// A pageIndex maps stream offsets to components in O(1) for random access
// (GetUint64 and friends at scattered offsets). It cuts the bytes held when
// it was built into pages of a power-of-two size no larger than the
// smallest component (but at most 4 pages per component: 32 bytes) and
// records, per page, the component holding the page's first byte and where
// in the page that component ends. A lookup reads one entry, picks that
// component or the next without a branch, and checks the pick; only when
// tiny components put several seams in one page does a binary search
// follow. The chain of dependent loads is entry, component, data.
//
// Appends leave the index valid for the bytes it covers (offsets past them
// take a binary search); discarding from the front leaves it valid too, as
// component positions do not move. Insert, consolidation and the compaction
// of the arrays invalidate it. It is rebuilt after as many binary searches
// as there are components, which spreads the O(n) build over the lookups
// that pay for it.
type pageIndex struct {
	// pg[k] describes the page at stream offset base + k<<shift: the
	// component j holding its first byte in the high 32 bits, and in the
	// low 32 the offset in the page where j ends (capped at the page size).
	pg     []uint64
	base   int // stream offset of page 0
	end    int // stream offset one past the bytes covered
	shift  uint
	valid  bool
	misses int // binary searches since the index was last valid
}

// maxPageShift keeps pages, and so the offsets in pg entries, below 2 GiB.
const maxPageShift = 31

func (x *pageIndex) build(c *Composite) {
	n := len(c.comps) - c.h
	lo := c.start(c.h)
	span := c.w - lo
	// Pages no larger than the smallest component hold at most one seam.
	minLen := span
	for j := c.h; j < len(c.comps); j++ {
		minLen = min(minLen, len(c.comps[j].p))
	}
	shift := uint(bits.Len(uint(minLen))) - 1
	for span>>shift > 4*n {
		shift++
	}
	shift = min(shift, maxPageShift)
	pages := (span-1)>>shift + 1
	if cap(x.pg) < pages {
		x.pg = make([]uint64, pages)
	}
	x.pg = x.pg[:pages]
	size := 1 << shift
	j := c.h
	for k := range x.pg {
		off := lo + k<<shift
		for c.ends[j] <= off {
			j++
		}
		x.pg[k] = uint64(j)<<32 | uint64(min(c.ends[j]-off, size))
	}
	x.base, x.end, x.shift, x.valid, x.misses = lo, c.w, shift, true, 0
}

// lookup returns the component holding pos, which must lie in [c.r, c.w),
// when the index covers pos and the page has at most one seam before pos;
// ok is false otherwise.
func (x *pageIndex) lookup(c *Composite, pos int) (j int, ok bool) {
	if !x.valid || pos >= x.end {
		return 0, false
	}
	rel := uint64(pos - x.base)
	e := x.pg[rel>>x.shift]
	in := rel & (1<<x.shift - 1)
	// j, or j+1 when pos lies at or past j's end in the page.
	j = int(e>>32) + int((uint64(uint32(e))-in-1)>>63)
	return j, j < len(c.ends) && pos < c.ends[j]
}

// find returns the component holding pos, which must lie in [c.r, c.w),
// when lookup cannot: a binary search between the page's components.
func (x *pageIndex) find(c *Composite, pos int) int {
	if pos >= x.end {
		return c.search(int(x.pg[len(x.pg)-1]>>32), len(c.ends), pos)
	}
	k := (pos - x.base) >> x.shift
	j := int(x.pg[k] >> 32)
	hi := len(c.ends)
	if k+1 < len(x.pg) {
		hi = int(x.pg[k+1]>>32) + 1
	}
	return c.search(j, hi, pos)
}
