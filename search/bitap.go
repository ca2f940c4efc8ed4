package search

import "errors"

// ErrTooLong is returned by NewBitap for a needle longer than 64 bytes.
var ErrTooLong = errors.New("search: needle longer than 64 bytes")

// Bitap searches for one needle of at most 64 bytes with the shift-and
// algorithm: bit i of the state word is set when needle[:i+1] is a suffix of
// the text read so far, and each byte costs one shift, one OR and one AND
// with that byte's mask. Index runs in O(len(haystack)) time with no
// branches that depend on the needle.
//
// A Bitap is immutable once built and safe for concurrent use.
type Bitap struct {
	masks [256]uint64 // bit i of masks[c] is set when needle[i] == c
	final uint64      // bit len(needle)-1: a complete match
	n     int
}

// NewBitap returns a Bitap searcher for needle, or ErrTooLong if needle is
// longer than 64 bytes. An empty needle is accepted: Index returns 0 and the
// Matcher reports nothing, as for the other searchers.
func NewBitap(needle []byte) (*Bitap, error) {
	if len(needle) > 64 {
		return nil, ErrTooLong
	}
	b := &Bitap{n: len(needle)}
	for i, c := range needle {
		b.masks[c] |= 1 << uint(i)
	}
	if b.n > 0 {
		b.final = 1 << uint(b.n-1)
	}
	return b, nil
}

// Len returns the length of the needle.
func (b *Bitap) Len() int { return b.n }

// Index returns the index of the first instance of the needle in haystack,
// or -1 if it is not present; an empty needle is found at 0, as with
// bytes.Index.
func (b *Bitap) Index(haystack []byte) int {
	if b.n == 0 {
		return 0
	}
	var d uint64
	for i, c := range haystack {
		d = (d<<1 | 1) & b.masks[c]
		if d&b.final != 0 {
			return i + 1 - b.n
		}
	}
	return -1
}

// Matcher returns a Matcher that reports every occurrence of the needle in
// a stream, overlapping ones included, at absolute stream offsets. An empty
// needle matches nothing in a stream.
//
// The only state carried from one chunk to the next is the 64-bit state
// word (which needle prefixes end at the last byte fed) and the stream
// offset. Feed and Next do not allocate. The matcher keeps a reference to
// the chunk until Next has reported false for it.
func (b *Bitap) Matcher() Matcher { return &bitapMatcher{b: b} }

type bitapMatcher struct {
	stream
	b *Bitap
	d uint64 // shift-and state word
}

func (m *bitapMatcher) Next() (Match, bool) {
	b := m.b
	if b.n > 0 {
		d := m.d
		h := m.chunk
		for i := m.pos; i < len(h); i++ {
			d = (d<<1 | 1) & b.masks[h[i]]
			if d&b.final != 0 {
				m.d, m.pos = d, i+1
				end := m.base + int64(i+1)
				return Match{Start: end - int64(b.n), End: end}, true
			}
		}
		m.d = d
	}
	m.drained()
	return Match{}, false
}

func (m *bitapMatcher) Reset() { *m = bitapMatcher{b: m.b} }
