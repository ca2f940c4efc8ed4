package pairscan

// The pure-Go twins of the kernels: the same contract, a position at a
// time, on slices (the kernels take pointers, which only assembly may
// step through). The block they return starts at the first candidate.

// pairGo returns the first block of positions k in [0, len(a)) with
// a[k] == b1 and b[k] == b2: its first position off and a mask of the
// candidates in it (bit j for position off+j), or a zero mask when there
// is none. len(b) must be len(a).
func pairGo(a, b []byte, b1, b2 byte) (off int, mask uint64) {
	b = b[:len(a)]
	for k := range a {
		if a[k] != b1 || b[k] != b2 {
			continue
		}
		for j := k; j < min(len(a), k+64); j++ {
			if a[j] == b1 && b[j] == b2 {
				mask |= 1 << (j - k)
			}
		}
		return k, mask
	}
	return 0, 0
}

// tripleGo is pairGo with a third stream c compared with b3.
func tripleGo(a, b, c []byte, b1, b2, b3 byte) (off int, mask uint64) {
	b, c = b[:len(a)], c[:len(a)]
	for k := range a {
		if a[k] != b1 || b[k] != b2 || c[k] != b3 {
			continue
		}
		for j := k; j < min(len(a), k+64); j++ {
			if a[j] == b1 && b[j] == b2 && c[j] == b3 {
				mask |= 1 << (j - k)
			}
		}
		return k, mask
	}
	return 0, 0
}
