package search

import "bytes"

// KMP searches for one needle with the Knuth–Morris–Pratt algorithm: a
// failure table of len(needle) entries, then one left-to-right pass over the
// haystack that never moves backwards. Index runs in O(len(haystack)) time
// whatever the input, and uses bytes.IndexByte to skip ahead while no prefix
// of the needle is matched.
//
// A KMP is immutable once built and safe for concurrent use.
type KMP struct {
	needle []byte
	// fail[i] is the length of the longest proper border (a prefix that is
	// also a suffix) of needle[:i+1].
	fail []int32
}

// NewKMP returns a KMP searcher for needle. It keeps its own copy of
// needle, so the caller may modify needle afterwards.
func NewKMP(needle []byte) *KMP { return newKMP(bytes.Clone(needle)) }

// newKMP is NewKMP without the copy: the KMP keeps needle.
func newKMP(needle []byte) *KMP {
	k := &KMP{needle: needle, fail: make([]int32, len(needle))}
	n := needle
	b := 0
	for i := 1; i < len(n); i++ {
		for b > 0 && n[i] != n[b] {
			b = int(k.fail[b-1])
		}
		if n[i] == n[b] {
			b++
		}
		k.fail[i] = int32(b)
	}
	return k
}

// Len returns the length of the needle.
func (k *KMP) Len() int { return len(k.needle) }

// step advances the KMP state st (the length of the needle prefix matched
// so far, st < len(needle)) over h[i:], stopping after the byte that
// completes a match. It returns the index just past that byte, or len(h) if
// the chunk ends first, and the new state.
func (k *KMP) step(h []byte, i, st int) (int, int) {
	n := k.needle
	for i < len(h) {
		if st == 0 {
			j := bytes.IndexByte(h[i:], n[0])
			if j < 0 {
				return len(h), 0
			}
			i += j + 1
			st = 1
		} else {
			c := h[i]
			i++
			for st > 0 && n[st] != c {
				st = int(k.fail[st-1])
			}
			if n[st] == c {
				st++
			}
		}
		if st == len(n) {
			return i, st
		}
	}
	return i, st
}

// Index returns the index of the first instance of the needle in haystack,
// or -1 if it is not present; an empty needle is found at 0, as with
// bytes.Index.
func (k *KMP) Index(haystack []byte) int {
	if len(k.needle) == 0 {
		return 0
	}
	i, st := k.step(haystack, 0, 0)
	if st == len(k.needle) {
		return i - st
	}
	return -1
}

// Matcher returns a Matcher that reports every occurrence of the needle in
// a stream, overlapping ones included, at absolute stream offsets. An empty
// needle matches nothing in a stream.
//
// The only state carried from one chunk to the next is the KMP state — the
// length of the longest needle prefix that is a suffix of the stream so far
// — and the stream offset, so a match straddling any number of chunks is
// found without buffering or copying earlier chunks. Feed and Next do not
// allocate. The matcher keeps a reference to the chunk until Next has
// reported false for it.
func (k *KMP) Matcher() Matcher { return &kmpMatcher{k: k} }

type kmpMatcher struct {
	stream
	k     *KMP
	state int // needle prefix length matched so far
}

func (m *kmpMatcher) Next() (Match, bool) {
	n := len(m.k.needle)
	if n > 0 {
		i, st := m.k.step(m.chunk, m.pos, m.state)
		if st == n {
			m.pos, m.state = i, int(m.k.fail[n-1])
			end := m.base + int64(i)
			return Match{Start: end - int64(n), End: end}, true
		}
		m.state = st
	}
	m.drained()
	return Match{}, false
}

func (m *kmpMatcher) Reset() { *m = kmpMatcher{k: m.k} }
