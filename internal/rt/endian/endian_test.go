package endian_test

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/netkit/netkit/internal/rt"
	"github.com/netkit/netkit/internal/rt/endian"
)

// TestAgainstBinary: every function, at every offset of a random buffer
// (so unaligned too), gives encoding/binary's answer, in both twins.
func TestAgainstBinary(t *testing.T) {
	if !rt.Unsafe {
		assert.False(t, endian.Fast, "-tags nounsafe must select the portable twin")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	p := make([]byte, 64)
	for range 200 {
		for i := range p {
			p[i] = byte(rng.Uint32())
		}
		for off := 0; off+8 <= len(p); off++ {
			b := p[off:]
			assert.Equal(t, binary.BigEndian.Uint16(b), endian.Uint16(b))
			assert.Equal(t, binary.BigEndian.Uint32(b), endian.Uint32(b))
			assert.Equal(t, binary.BigEndian.Uint64(b), endian.Uint64(b))
			assert.Equal(t, binary.LittleEndian.Uint16(b), endian.Uint16LE(b))
			assert.Equal(t, binary.LittleEndian.Uint32(b), endian.Uint32LE(b))
			assert.Equal(t, binary.LittleEndian.Uint64(b), endian.Uint64LE(b))
		}
		v := rng.Uint64()
		for off := 0; off+8 <= len(p); off++ {
			want, got := make([]byte, 8), make([]byte, 8)
			copy(got, p[off:off+8])
			binary.BigEndian.PutUint16(want, uint16(v))
			endian.PutUint16(got, uint16(v))
			assert.Equal(t, want[:2], got[:2])
			binary.BigEndian.PutUint32(want, uint32(v))
			endian.PutUint32(got, uint32(v))
			assert.Equal(t, want[:4], got[:4])
			binary.BigEndian.PutUint64(want, v)
			endian.PutUint64(got, v)
			assert.Equal(t, want, got)
			binary.LittleEndian.PutUint16(want, uint16(v))
			endian.PutUint16LE(got, uint16(v))
			assert.Equal(t, want[:2], got[:2])
			binary.LittleEndian.PutUint32(want, uint32(v))
			endian.PutUint32LE(got, uint32(v))
			assert.Equal(t, want[:4], got[:4])
			binary.LittleEndian.PutUint64(want, v)
			endian.PutUint64LE(got, v)
			assert.Equal(t, want, got)
		}
	}
}

// TestShort: a slice shorter than the width panics (the bounds check),
// never reads past it.
func TestShort(t *testing.T) {
	b := make([]byte, 7, 16)
	assert.Panics(t, func() { endian.Uint64(b) })
	assert.Panics(t, func() { endian.Uint64LE(b) })
	assert.Panics(t, func() { endian.PutUint64(b, 1) })
	assert.Panics(t, func() { endian.Uint32(b[:3]) })
	assert.Panics(t, func() { endian.Uint16(b[:1]) })
}
