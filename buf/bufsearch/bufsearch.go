// Package bufsearch searches the readable bytes of a buf.Composite with a
// prepared search.Pattern or a search.Set, finding matches that straddle
// component seams without copying the components together.
//
// It is a package of its own so that buf knows nothing of search: buf's
// own Composite.Index takes a plain needle. A Searcher keeps the one piece
// of state a search needs, a scratch window for the bytes around a seam,
// so that a caller who searches again and again (a decoder looking for a
// delimiter) allocates nothing; the package-level Index and IndexSet use a
// fresh Searcher per call.
//
// Offsets are relative to the composite's reader, as Composite.Index's
// are. The search consumes nothing and does not disturb slices returned by
// Composite.Next.
package bufsearch

import (
	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/search"
)

// A Searcher searches composites across seams. The zero value is ready to
// use. It holds a scratch window that grows to 2(m−1) bytes for the
// longest pattern m searched; the patterns and composites are the
// caller's, passed to each call. A Searcher is not safe for concurrent
// use; keep one per goroutine (per connection, say).
type Searcher struct {
	window []byte
}

// Index returns the readable offset of the first instance of p's needle
// in c, or -1; an empty needle is found at 0. The answer is p.Index's (and
// bytes.Index's) on the readable bytes laid end to end. Each component is
// searched in place with p.Index; a match across a seam is looked for in a
// window of the m−1 bytes before and after the seam (m the needle's
// length): at most 2(m−1) bytes copied per seam. It allocates only to grow
// s's window.
func (s *Searcher) Index(c *buf.Composite, p *search.Pattern) int {
	if p.Len() == 0 {
		c.Len() // a released composite panics, as with any needle
		return 0
	}
	m, ok := indexAcross(s, c, patternFinder{p})
	if !ok {
		return -1
	}
	return int(m.Start)
}

// IndexSet returns the first match of set in the readable bytes of c, as
// set.Find would return it on the bytes laid end to end, with offsets
// relative to the reader; ok is false when there is none. Matches may
// straddle components; seams are handled as by Index, with m the length of
// the longest pattern. It allocates only to grow s's window.
func (s *Searcher) IndexSet(c *buf.Composite, set *search.Set) (m search.Match, ok bool) {
	return indexAcross(s, c, setFinder{set})
}

// Index is a fresh Searcher's Index: it allocates the seam window when a
// search crosses a seam. Keep a Searcher to search again without
// allocating.
func Index(c *buf.Composite, p *search.Pattern) int {
	var s Searcher
	return s.Index(c, p)
}

// IndexSet is a fresh Searcher's IndexSet: it allocates the seam window
// when a search crosses a seam. Keep a Searcher to search again without
// allocating.
func IndexSet(c *buf.Composite, set *search.Set) (search.Match, bool) {
	var s Searcher
	return s.IndexSet(c, set)
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

// indexAcross finds the first match of f in the readable bytes of c, with
// offsets relative to the reader. It walks the components with
// Composite.Span.
//
// A span (the rest of one component) is searched in place. A match found
// there whose start lies at least L bytes (L = f.maxLen()) before the seam
// is the answer: nothing that crosses the seam starts before it, and every
// pattern that could start where it does ends inside the component, so a
// leftmost-first or leftmost-longest choice there is the same as on the
// whole stream; for Overlapping (first by end) any match inside the
// component ends before one that crosses. Otherwise the window
// [seam−(L−1), seam+L−1) holds every match that crosses the seam together
// with whatever the span search found near its end, and the window's first
// match is the answer if it starts before the seam. If it starts after, the
// search goes on from the next component.
func indexAcross[F finder](s *Searcher, c *buf.Composite, f F) (search.Match, bool) {
	n := c.Len()
	L := f.maxLen()
	if L == 0 || n == 0 {
		return search.Match{}, false
	}
	for off := 0; off < n; {
		p := c.Span(off)
		end := off + len(p)
		m, ok := f.find(p)
		if ok && (off+int(m.Start)+L <= end || end == n) {
			return shift(m, off), true
		}
		if L > 1 && end < n {
			lo := max(off, end-(L-1))
			hi := min(n, end+L-1)
			if cap(s.window) < 2*(L-1) {
				s.window = make([]byte, 2*(L-1))
			}
			win := s.window[:hi-lo]
			peek(c, win, lo)
			if m, ok := f.find(win); ok && lo+int(m.Start) < end {
				return shift(m, lo), true
			}
		}
		if ok {
			return shift(m, off), true // not reached: the window holds m
		}
		off = end
	}
	return search.Match{}, false
}

// peek copies the readable bytes of c at offset off on into dst, which
// they must fill.
func peek(c *buf.Composite, dst []byte, off int) {
	for len(dst) > 0 {
		k := copy(dst, c.Span(off))
		dst, off = dst[k:], off+k
	}
}

func shift(m search.Match, d int) search.Match {
	m.Start += int64(d)
	m.End += int64(d)
	return m
}
