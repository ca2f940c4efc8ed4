package buf

import (
	"bytes"

	"github.com/netkit/netkit/internal/rt/pairscan"
)

// This file holds the in-component search of Composite.Index: a
// rare-byte prefilter in front of bytes.Index, so that Index scans at
// bytes.IndexByte's speed where the needle has a byte that the haystack
// seldom holds, without a prepared searcher and without keeping state
// between calls.

// A rareFinder searches for a needle of at least 2 bytes by its rarest
// bytes (by pairscan.ByteRank). Where the vector kernels run, the
// packed-pair prefilter of internal/rt/pairscan compares them a vector of
// start positions at a time; elsewhere b1 at offset o1 is scanned for
// with bytes.IndexByte, b2 at offset o2 (o2 ≠ o1) is checked at each hit,
// and a hit passing both is verified against the whole needle. It lives
// on the stack of one Index call.
type rareFinder struct {
	needle []byte
	o1, o2 int
	b1, b2 byte

	pr pairscan.Needle

	// fellBack records that index gave up on the prefilter, for tests.
	fellBack bool
}

// newRareFinder prepares needle, of at least 2 bytes, by its rare bytes
// (pairscan.Rank): the vector prefilter uses them where its kernels run,
// the IndexByte loop elsewhere.
func newRareFinder(needle []byte) rareFinder {
	pr := pairscan.Rank(needle)
	return rareFinder{needle: needle, o1: pr.I1, o2: pr.I2, b1: pr.B1, b2: pr.B2, pr: pr}
}

// index returns the offset of the first instance of f's needle in h, or
// -1, as bytes.Index(h, f.needle) does.
//
// Each hit of b1 that fails the b2 check or the full compare is a false
// candidate, and each costs a bytes.IndexByte call that scanned little.
// When they exceed 8 plus one per 8 bytes scanned (the rate at which
// bytes.Index itself gives up on its first-byte scan), the rest of h is
// searched with bytes.Index, so the worst case stays bytes.Index's plus
// that bounded overrun.
func (f *rareFinder) index(h []byte) int {
	m := len(f.needle)
	last := len(h) - m // the last offset where a match can start
	if pairscan.Built && pairscan.Best != pairscan.None && last+1 >= pairscan.MinStarts {
		k, resume := f.pr.Index(h, pairscan.Best)
		if resume < 0 {
			return k
		}
		f.fellBack = true
		if i := bytes.Index(h[resume:], f.needle); i >= 0 {
			return resume + i
		}
		return -1
	}
	return f.scalar(h)
}

// scalar is index without the vector kernels: the IndexByte loop.
func (f *rareFinder) scalar(h []byte) int {
	m := len(f.needle)
	last := len(h) - m
	fails := 0
	for s := 0; s <= last; {
		j := bytes.IndexByte(h[s+f.o1:last+f.o1+1], f.b1)
		if j < 0 {
			return -1
		}
		s += j
		if h[s+f.o2] == f.b2 && bytes.Equal(h[s:s+m], f.needle) {
			return s
		}
		s++
		fails++
		if fails > 8+s>>3 {
			f.fellBack = true
			if i := bytes.Index(h[s:], f.needle); i >= 0 {
				return s + i
			}
			return -1
		}
	}
	return -1
}
