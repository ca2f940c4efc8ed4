package tree

import "testing"

var sink bool

func BenchmarkGet(b *testing.B) {
	t := New(4096)
	for b.Loop() {
		for k := 0; k < 8192; k += 3 {
			sink = t.Get(k)
		}
	}
}
