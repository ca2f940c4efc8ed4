//go:build !amd64 || purego

package bytemask

type kernel struct {
	name string
	f    func(p *byte, blocks int, c1, c2 byte, dst *uint64)
}

func kernels() []kernel { return nil }
