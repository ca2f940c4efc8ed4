//go:build amd64 && !purego

package relaxed

// Store64 stores v into *p, which must be 8-byte aligned, with a plain MOV.
//
//go:noescape
func Store64(p *uint64, v uint64)
