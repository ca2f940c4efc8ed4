// Package search finds substrings: one pattern (Pattern, and the explicit
// algorithms KMP, Bitap and TwoWay) or many at once (Set, AhoCorasick), in
// a byte slice or in a stream fed chunk by chunk (Matcher), where a match
// may straddle chunks.
//
// The types of this package are immutable once built and safe for
// concurrent use; a Matcher holds the state of one stream and is not.
package search

// A Match is one occurrence of a pattern: bytes [Start, End) of the
// haystack, or of the stream for a Matcher. Pattern is the index of the
// pattern in the slice given to the constructor (0 for single-pattern
// searchers).
type Match struct {
	Start, End int64
	Pattern    int
}

// A Matcher searches a stream fed chunk by chunk and reports matches at
// absolute stream offsets (the first byte ever fed is offset 0), including
// matches that straddle chunks. It is pull-based so that it allocates
// nothing per chunk:
//
//	m := p.Matcher()
//	for chunk := range chunks {
//		m.Feed(chunk)
//		for match, ok := m.Next(); ok; match, ok = m.Next() {
//			use(match)
//		}
//	}
//
// Feed must only be called once Next has reported false for the previous
// chunk; the chunk must not be modified until then. What state crosses a
// chunk boundary is documented by each implementation.
type Matcher interface {
	// Feed gives the matcher the next chunk of the stream.
	Feed(chunk []byte)
	// Next returns the next match ending in the chunk fed last, in order of
	// end offset, or false when there is none left.
	Next() (Match, bool)
	// Reset forgets the stream: the next Feed starts at offset 0.
	Reset()
}

// stream is the chunk bookkeeping the single-pattern matchers share: the
// chunk being scanned, the next position in it, and the stream offset of
// its first byte. Its Feed is their Feed.
type stream struct {
	chunk []byte // chunk being scanned
	pos   int    // next byte of chunk to scan
	base  int64  // stream offset of chunk[0]
}

// Feed implements Matcher.Feed: the next chunk starts where the previous
// one ended (all of it counts, even if Next was not drained).
func (s *stream) Feed(chunk []byte) {
	s.base += int64(len(s.chunk))
	s.chunk, s.pos = chunk, 0
}

// drained records that the current chunk has been scanned to its end.
func (s *stream) drained() {
	s.base += int64(len(s.chunk))
	s.chunk, s.pos = nil, 0
}
