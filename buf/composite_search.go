package buf

import (
	"bytes"

	"github.com/netkit/netkit/search"
)

// Index returns the readable offset of the first instance of needle in c,
// or -1; an empty needle is found at 0. Matches may straddle any number of
// components. It searches with a search.Pattern that it builds on the
// first call and keeps for later calls with an equal needle, so a repeated
// search allocates nothing; IndexPattern takes a prepared Pattern.
func (c *Composite) Index(needle []byte) int {
	c.check()
	if c.pat == nil || !bytes.Equal(c.patNeedle, needle) {
		c.pat = search.NewPattern(needle)
		c.patNeedle = append(c.patNeedle[:0], needle...)
	}
	return c.IndexPattern(c.pat)
}

// IndexPattern returns the readable offset of the first instance of p's
// needle in c, or -1. Each component is searched in place with p.Index;
// a match across a seam is looked for in a window of the m−1 bytes before
// and after the seam (m the needle's length), copied into a window area
// of the composite: at most 2(m−1) bytes copied per seam. It allocates
// only to grow the window area. It does not disturb slices returned by
// Next.
func (c *Composite) IndexPattern(p *search.Pattern) int {
	c.check()
	if p.Len() == 0 {
		return 0
	}
	m, ok := indexAcross(c, patternFinder{p})
	if !ok {
		return -1
	}
	return int(m.Start)
}

// IndexSet returns the first match of s in the readable bytes of c, as
// s.Find would return it on the bytes laid end to end, with offsets
// relative to the reader; ok is false when there is none. Matches may
// straddle components; seams are handled as by IndexPattern, with m the
// length of the longest pattern.
func (c *Composite) IndexSet(s *search.Set) (m search.Match, ok bool) {
	c.check()
	return indexAcross(c, setFinder{s})
}

// A finder is a search run on each piece: the first match in p by the
// searcher's own rule, and the length of its longest pattern.
type finder interface {
	find(p []byte) (search.Match, bool)
	maxLen() int
}

type patternFinder struct{ p *search.Pattern }

func (f patternFinder) find(p []byte) (search.Match, bool) {
	i := f.p.Index(p)
	return search.Match{Start: int64(i), End: int64(i + f.p.Len())}, i >= 0
}

func (f patternFinder) maxLen() int { return f.p.Len() }

type setFinder struct{ s *search.Set }

func (f setFinder) find(p []byte) (search.Match, bool) { return f.s.Find(p) }
func (f setFinder) maxLen() int                        { return f.s.MaxLen() }

// indexAcross finds the first match of f in the readable bytes, with
// offsets relative to the reader.
//
// Component j is searched from the reader (or its start) to its end. A
// match found there whose start lies at least L bytes (L = f.maxLen())
// before the seam is the answer: nothing that crosses the seam starts
// before it, and every pattern that could start where it does ends inside
// the component, so a leftmost-first or leftmost-longest choice there is
// the same as on the whole stream; for Overlapping (first by end) any
// match inside the component ends before one that crosses. Otherwise the
// window [seam−(L−1), seam+L−1) holds every match that crosses the seam
// together with whatever the component search found near its end, and the
// window's first match is the answer if it starts before the seam. If it
// starts after, the search goes on from the next component.
func indexAcross[F finder](c *Composite, f F) (search.Match, bool) {
	L := f.maxLen()
	if L == 0 || c.r == c.w {
		return search.Match{}, false
	}
	if len(c.rp) == 0 {
		c.advance()
	}
	from := c.r
	for j := c.cur; j < len(c.comps); j++ {
		p := c.comps[j].p
		st, end := c.start(j), c.ends[j]
		if from > st {
			p = p[from-st:]
			st = from
		}
		m, ok := f.find(p)
		if ok && (st+int(m.Start)+L <= end || j+1 == len(c.comps)) {
			return shift(m, st-c.r), true
		}
		if L > 1 && j+1 < len(c.comps) {
			lo := max(st, end-(L-1))
			hi := min(c.w, end+L-1)
			if cap(c.window) < 2*(L-1) {
				c.window = make([]byte, 2*(L-1))
			}
			win := c.window[:hi-lo]
			c.peek(win, lo)
			if m, ok := f.find(win); ok && lo+int(m.Start) < end {
				return shift(m, lo-c.r), true
			}
		}
		if ok {
			return shift(m, st-c.r), true // not reached: the window holds m
		}
		from = end
	}
	return search.Match{}, false
}

func shift(m search.Match, d int) search.Match {
	m.Start += int64(d)
	m.End += int64(d)
	return m
}
