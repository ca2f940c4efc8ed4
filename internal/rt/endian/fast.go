//go:build !nounsafe && (amd64 || arm64 || 386 || ppc64le || riscv64 || loong64)

package endian

import (
	"math/bits"
	"unsafe"
)

// Fast reports whether the one-load versions are compiled in.
const Fast = true

// Uint16 returns the big-endian uint16 at the start of b. A 16-bit
// rotation by 8 is the byte swap; unlike bits.ReverseBytes16 it is an
// intrinsic, which the inliner charges as one operation.
func Uint16(b []byte) uint16 {
	_ = b[1]
	return bits.RotateLeft16(*(*uint16)(unsafe.Pointer(unsafe.SliceData(b))), 8)
}

// Uint32 returns the big-endian uint32 at the start of b.
func Uint32(b []byte) uint32 {
	_ = b[3]
	return bits.ReverseBytes32(*(*uint32)(unsafe.Pointer(unsafe.SliceData(b))))
}

// Uint64 returns the big-endian uint64 at the start of b.
func Uint64(b []byte) uint64 {
	_ = b[7]
	return bits.ReverseBytes64(*(*uint64)(unsafe.Pointer(unsafe.SliceData(b))))
}

// Uint16LE returns the little-endian uint16 at the start of b.
func Uint16LE(b []byte) uint16 {
	_ = b[1]
	return *(*uint16)(unsafe.Pointer(unsafe.SliceData(b)))
}

// Uint32LE returns the little-endian uint32 at the start of b.
func Uint32LE(b []byte) uint32 {
	_ = b[3]
	return *(*uint32)(unsafe.Pointer(unsafe.SliceData(b)))
}

// Uint64LE returns the little-endian uint64 at the start of b.
func Uint64LE(b []byte) uint64 {
	_ = b[7]
	return *(*uint64)(unsafe.Pointer(unsafe.SliceData(b)))
}

// PutUint16 stores v big-endian at the start of b (the swap as in Uint16).
func PutUint16(b []byte, v uint16) {
	_ = b[1]
	*(*uint16)(unsafe.Pointer(unsafe.SliceData(b))) = bits.RotateLeft16(v, 8)
}

// PutUint32 stores v big-endian at the start of b.
func PutUint32(b []byte, v uint32) {
	_ = b[3]
	*(*uint32)(unsafe.Pointer(unsafe.SliceData(b))) = bits.ReverseBytes32(v)
}

// PutUint64 stores v big-endian at the start of b.
func PutUint64(b []byte, v uint64) {
	_ = b[7]
	*(*uint64)(unsafe.Pointer(unsafe.SliceData(b))) = bits.ReverseBytes64(v)
}

// PutUint16LE stores v little-endian at the start of b.
func PutUint16LE(b []byte, v uint16) {
	_ = b[1]
	*(*uint16)(unsafe.Pointer(unsafe.SliceData(b))) = v
}

// PutUint32LE stores v little-endian at the start of b.
func PutUint32LE(b []byte, v uint32) {
	_ = b[3]
	*(*uint32)(unsafe.Pointer(unsafe.SliceData(b))) = v
}

// PutUint64LE stores v little-endian at the start of b.
func PutUint64LE(b []byte, v uint64) {
	_ = b[7]
	*(*uint64)(unsafe.Pointer(unsafe.SliceData(b))) = v
}
