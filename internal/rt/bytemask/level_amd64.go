//go:build amd64 && !purego

package bytemask

import "golang.org/x/sys/cpu"

// Built reports whether this build has the vector kernels.
const Built = true

// avx2 reports whether the CPU (and the OS, for the YMM state) has AVX2;
// every amd64 CPU has SSE2.
var avx2 = cpu.X86.HasAVX2

func masks(dst []uint64, p []byte, c1, c2 byte) {
	if avx2 {
		masksAVX2(&p[0], len(dst), c1, c2, &dst[0])
		return
	}
	masksSSE2(&p[0], len(dst), c1, c2, &dst[0])
}
