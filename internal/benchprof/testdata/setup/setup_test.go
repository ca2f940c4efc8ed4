// Package setup has benchmarks whose set-up, outside the timed region,
// costs far more CPU than their timed loop: a plain profile of them is
// mostly set-up.
package setup

import "testing"

var sink int

// timedWork is the only work of the timed regions.
//
//go:noinline
func timedWork(x int) int {
	s := x
	for i := range 400 {
		s = s*31 + i ^ s>>3
	}
	return s
}

// buildTable is the set-up: a map of n entries, checked by reading every
// entry lookups times (CPU-bound work that allocates nothing more).
//
//go:noinline
func buildTable(n, lookups int) map[int]int {
	m := make(map[int]int, n)
	for i := range n {
		m[i*7] = i
	}
	for range lookups {
		for i := range n {
			if m[i*7] != i {
				panic("lost an entry")
			}
		}
	}
	return m
}

const tableSize, lookups = 1 << 16, 200

// spinSetup is the set-up of BenchmarkStopped and BenchmarkParent: n
// steps of arithmetic. Unlike buildTable's reads of a large map, whose
// cache misses cost more or less with whatever else runs on the machine,
// its cost is the same in every run, so that the subtraction of two runs
// cancels it up to the profile's sampling noise.
//
//go:noinline
func spinSetup(n int) int {
	s := 1
	for i := range n {
		s = s*31 + i ^ s>>3
	}
	return s
}

// spinSteps is about 0.4 s of spinSetup.
const spinSteps = 300_000_000

// BenchmarkStopped does its set-up between b.StopTimer and b.StartTimer,
// once per run of the function.
func BenchmarkStopped(b *testing.B) {
	b.StopTimer()
	x := spinSetup(spinSteps)
	b.StartTimer()
	for i := 0; i < b.N; i++ {
		sink += timedWork(x + i)
	}
}

// BenchmarkParent does its set-up in the parent of the sub-benchmark
// that uses it, before b.ResetTimer there.
func BenchmarkParent(b *testing.B) {
	x := spinSetup(2 * spinSteps) // a parent runs once: more set-up

	b.Run("get", func(b *testing.B) {
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			sink += timedWork(x + i)
		}
	})
}

// BenchmarkChunked rebuilds a smaller table between b.StopTimer and
// b.StartTimer every 1000 iterations, as btree's benchmarks rebuild their
// tree: set-up that grows with b.N.
func BenchmarkChunked(b *testing.B) {
	for i := 0; i < b.N; {
		b.StopTimer()
		m := buildTable(1<<13, 3)
		b.StartTimer()
		for j := 0; j < 1000 && i < b.N; j, i = j+1, i+1 {
			sink += timedWork(m[(j&1023)*7])
		}
	}
}

var sinkBytes []byte

// allocWork allocates 4 KiB: the only allocation of BenchmarkAllocs's
// timed region.
//
//go:noinline
func allocWork() []byte { return make([]byte, 4096) }

// BenchmarkAllocs allocates a large table before b.ResetTimer and 4 KiB
// per iteration.
func BenchmarkAllocs(b *testing.B) {
	big := make([][]byte, 16)
	for i := range big {
		big[i] = make([]byte, 4<<20) // as large as 8 sampling periods: always sampled
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sinkBytes = allocWork()
	}
	sinkBytes = big[len(big)-1]
}
