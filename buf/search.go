package buf

import "github.com/netkit/netkit/search"

// Index returns the offset of the first instance of needle in the readable
// bytes, relative to the reader index, or -1; an empty needle is found at 0.
// The answer is that of bytes.Index. It searches with search.Index, which
// prepares the needle on every call (O(len(needle)), no allocation): a
// Buffer header has no room to keep a prepared needle between calls, so a
// needle searched again and again is better built once as a search.Pattern
// for IndexPattern.
func (b *Buffer) Index(needle []byte) int {
	b.check()
	return search.Index(b.b[b.r:b.w], needle)
}

// IndexPattern returns the offset of the first instance of p's needle in
// the readable bytes, relative to the reader index, or -1; an empty needle
// is found at 0. It allocates nothing and runs in
// O(Len()+len(needle)) time.
func (b *Buffer) IndexPattern(p *search.Pattern) int {
	b.check()
	return p.Index(b.b[b.r:b.w])
}

// IndexSet returns the first match of s in the readable bytes, as s.Find
// reports it, with offsets relative to the reader index; ok is false when
// there is none. It allocates nothing.
func (b *Buffer) IndexSet(s *search.Set) (m search.Match, ok bool) {
	b.check()
	return s.Find(b.b[b.r:b.w])
}
