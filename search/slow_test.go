package search

// indexSlow is the reference for Index: try every start, compare every byte.
func indexSlow(h, n []byte) int {
	for i := 0; i+len(n) <= len(h); i++ {
		if string(h[i:i+len(n)]) == string(n) {
			return i
		}
	}
	return -1
}

// allSlow is the reference for a Matcher fed h: every occurrence of n,
// overlapping ones included, in order. An empty needle matches nothing in
// a stream.
func allSlow(h, n []byte) []Match {
	var all []Match
	if len(n) == 0 {
		return nil
	}
	for i := 0; i+len(n) <= len(h); i++ {
		if string(h[i:i+len(n)]) == string(n) {
			all = append(all, Match{Start: int64(i), End: int64(i + len(n))})
		}
	}
	return all
}
