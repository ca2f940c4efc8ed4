//go:build amd64 && !purego

package bytemask

import "golang.org/x/sys/cpu"

type kernel struct {
	name string
	f    func(p *byte, blocks int, c1, c2 byte, dst *uint64)
}

// kernels returns the kernels this CPU can run.
func kernels() []kernel {
	ks := []kernel{{"SSE2", masksSSE2}}
	if cpu.X86.HasAVX2 {
		ks = append(ks, kernel{"AVX2", masksAVX2})
	}
	return ks
}
