package buf

import "math/bits"

// pageMinComponents is the fewest held components for which random access
// builds a page index; below it a binary search takes a few steps at most.
const pageMinComponents = 16

// A pageIndex maps stream offsets to components in O(1) for random access
// (GetUint64 and friends at scattered offsets). It cuts the bytes held when
// it was built into pages of a power-of-two size no larger than the average
// component and records, per page, the component holding the page's first
// byte. The component holding an offset is then the page's component or
// one of the few that start inside the page: with components of similar
// size, one comparison decides.
//
// Appends leave the index valid for the bytes it covers (offsets past them
// take a binary search); discarding from the front leaves it valid too, as
// component positions do not move. Insert, consolidation and the compaction
// of the arrays invalidate it. It is rebuilt after as many binary searches
// as there are components, which spreads the O(n) build over the lookups
// that pay for it.
type pageIndex struct {
	pg     []int32 // pg[k]: component holding stream offset base + k<<shift
	base   int     // stream offset of page 0
	end    int     // stream offset one past the bytes covered
	shift  uint
	valid  bool
	misses int // binary searches since the index was last valid
}

func (x *pageIndex) build(c *Composite) {
	n := len(c.comps) - c.h
	lo := c.start(c.h)
	span := c.w - lo
	shift := uint(bits.Len(uint(max(span/n, 1)))) - 1
	pages := (span-1)>>shift + 1
	if cap(x.pg) < pages {
		x.pg = make([]int32, pages)
	}
	x.pg = x.pg[:pages]
	j := c.h
	for k := range x.pg {
		off := lo + k<<shift
		for c.ends[j] <= off {
			j++
		}
		x.pg[k] = int32(j)
	}
	x.base, x.end, x.shift, x.valid, x.misses = lo, c.w, shift, true, 0
}

// find returns the component holding pos, which must lie in [c.r, c.w).
func (x *pageIndex) find(c *Composite, pos int) int {
	if pos >= x.end {
		return c.search(int(x.pg[len(x.pg)-1]), len(c.ends), pos)
	}
	k := (pos - x.base) >> x.shift
	j := int(x.pg[k])
	hi := len(c.ends)
	if k+1 < len(x.pg) {
		hi = int(x.pg[k+1]) + 1
	}
	if hi-j <= 2 {
		// Branch-free: the answer is j or j+1.
		return j + int(uint(c.ends[j]-1-pos)>>(bits.UintSize-1))
	}
	return c.search(j, hi, pos)
}
