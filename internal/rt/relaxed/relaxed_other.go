//go:build !amd64 || purego || race

package relaxed

import "sync/atomic"

// Store64 stores v into *p, which must be 8-byte aligned: atomic.StoreUint64.
func Store64(p *uint64, v uint64) { atomic.StoreUint64(p, v) }
