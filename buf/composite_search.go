package buf

import "bytes"

// Index returns the readable offset of the first instance of needle in c,
// or -1; an empty needle is found at 0: the answer of bytes.Index on the
// readable bytes laid end to end. Matches may straddle any number of
// components.
//
// Each component is searched in place, by the needle's rarest bytes
// (guessed from a fixed byte-frequency ranking): on amd64 the haystack
// bytes at their offsets are compared with them a vector of start
// positions at a time (the packed-pair prefilter that search.Pattern uses
// too), elsewhere the rarest is scanned for with bytes.IndexByte and the
// other checked at each hit; every candidate is compared with the whole
// needle. Where the guess is poor (the false candidates cost more than
// the bytes they let the scan skip) the rest of the component is searched
// with bytes.Index, so the worst case is bytes.Index's. A match across a
// seam is looked for in a window of the m−1 bytes before and after the
// seam (m the
// needle's length), copied into a window area of the composite: at most
// 2(m−1) bytes copied per seam, and O(m) work per seam. It keeps nothing
// between calls but that area, and allocates only to grow it. It does not
// disturb slices returned by Next. Package bufsearch searches composites
// with a prepared search.Pattern or a search.Set, and is the better
// choice for a needle searched repeatedly in large composites (it ranks
// the needle once, and falls back to Two-Way rather than bytes.Index).
func (c *Composite) Index(needle []byte) int {
	c.check()
	m := len(needle)
	if m == 0 {
		return 0
	}
	if m > c.w-c.r {
		return -1
	}
	if len(c.rp) == 0 {
		c.advance()
	}
	var f rareFinder
	if m > 1 {
		f = newRareFinder(needle)
	}
	from := c.r
	for j := c.cur; j < len(c.comps); j++ {
		p := c.comps[j].p
		st, end := c.start(j), c.ends[j]
		if from > st {
			p = p[from-st:]
			st = from
		}
		var i int
		if m == 1 {
			i = bytes.IndexByte(p, needle[0])
		} else {
			i = f.index(p)
		}
		if i >= 0 {
			return st + i - c.r
		}
		if m > 1 && end < c.w {
			// No match lies inside the component: the first that starts
			// before its end crosses the seam.
			lo := max(st, end-(m-1))
			hi := min(c.w, end+m-1)
			if cap(c.window) < 2*(m-1) {
				c.window = make([]byte, 2*(m-1))
			}
			win := c.window[:hi-lo]
			c.peek(win, lo)
			if i := bytes.Index(win, needle); i >= 0 && lo+i < end {
				return lo + i - c.r
			}
		}
		from = end
	}
	return -1
}
