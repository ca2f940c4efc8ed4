package search

import "slices"

// Naive references for Set: slow but obviously correct.

func setFoldByte(c byte, fold bool) byte {
	if fold && 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// setMatchAtSlow reports whether p occurs in h at offset i.
func setMatchAtSlow(h []byte, i int, p []byte, fold bool) bool {
	if i+len(p) > len(h) {
		return false
	}
	for j, c := range p {
		if setFoldByte(h[i+j], fold) != setFoldByte(c, fold) {
			return false
		}
	}
	return true
}

// setLeftmostSlow tries every start from at on, left to right; at the first
// start where some pattern matches it picks the lowest-index pattern
// (leftmost-first) or the longest, lowest-index among equal lengths
// (leftmost-longest).
func setLeftmostSlow(h []byte, pats [][]byte, kind matchKind, fold bool, at int) (Match, bool) {
	for i := at; i < len(h); i++ {
		best := -1
		for p, pat := range pats {
			if !setMatchAtSlow(h, i, pat, fold) {
				continue
			}
			if best < 0 || kind == leftmostLongest && len(pat) > len(pats[best]) {
				best = p
			}
			if kind == leftmostFirst {
				break
			}
		}
		if best >= 0 {
			return Match{Start: int64(i), End: int64(i + len(pats[best])), Pattern: best}, true
		}
	}
	return Match{}, false
}

// setOverlappingSlow returns every occurrence of every pattern, by end
// offset, then longest first, then lowest pattern index.
func setOverlappingSlow(h []byte, pats [][]byte, fold bool) []Match {
	var all []Match
	for i := range h {
		for p, pat := range pats {
			if setMatchAtSlow(h, i, pat, fold) {
				all = append(all, Match{Start: int64(i), End: int64(i + len(pat)), Pattern: p})
			}
		}
	}
	slices.SortFunc(all, func(x, y Match) int {
		if x.End != y.End {
			return int(x.End - y.End)
		}
		if x.Start != y.Start {
			return int(x.Start - y.Start)
		}
		return x.Pattern - y.Pattern
	})
	return all
}

// setAllSlow returns what Set.All yields.
func setAllSlow(h []byte, pats [][]byte, kind matchKind, fold bool) []Match {
	if kind == overlapping {
		return setOverlappingSlow(h, pats, fold)
	}
	var all []Match
	for at := 0; ; {
		m, ok := setLeftmostSlow(h, pats, kind, fold, at)
		if !ok {
			return all
		}
		all = append(all, m)
		at = int(m.End)
	}
}

// setFindSlow returns what Set.Find returns.
func setFindSlow(h []byte, pats [][]byte, kind matchKind, fold bool) (Match, bool) {
	if kind == overlapping {
		all := setOverlappingSlow(h, pats, fold)
		if len(all) == 0 {
			return Match{}, false
		}
		return all[0], true
	}
	return setLeftmostSlow(h, pats, kind, fold, 0)
}
