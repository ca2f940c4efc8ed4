//go:build !amd64 || purego

package bytemask

// Built reports whether this build has the vector kernels.
const Built = false

func masks(dst []uint64, p []byte, c1, c2 byte) { twin(dst, p, c1, c2) }
