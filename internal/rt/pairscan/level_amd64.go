//go:build amd64 && !purego

package pairscan

import "golang.org/x/sys/cpu"

// Built reports whether this build has the vector kernels.
const Built = true

// Best is the widest level this process may use, chosen once at start-up:
// AVX2 where the CPU (and the OS, for the YMM state) supports it, SSE2,
// which every amd64 CPU has, otherwise.
var Best = detect()

func detect() Level {
	if cpu.X86.HasAVX2 {
		return AVX2
	}
	return SSE2
}
