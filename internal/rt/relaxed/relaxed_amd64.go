//go:build amd64 && !purego && !race

package relaxed

// Store64 stores v into *p, which must be 8-byte aligned, with a plain
// store: one MOV, inlined. Go's memory model keeps a racing read of a word
// whole (it observes some write, never a mix), and amd64 orders the store
// after every store before it; the race build uses the atomic twin, so
// that the detector sees the other accesses' partner.
func Store64(p *uint64, v uint64) { *p = v }
