// Package benchcpu reports a benchmark's CPU time per operation, for the
// benchmarks of buf and of the peers module: on a shared, oversubscribed
// machine the wall clock counts the time other processes held the cores,
// while the process's CPU time counts only its own.
package benchcpu

import "testing"

// Report, deferred as defer benchcpu.Report(b)(), reports the process's CPU
// time per operation as cpu-ns/op beside the wall-clock sec/op. It is the
// CPU time of all goroutines, the GC's included, so under RunParallel a
// pool that scales shows the same cpu-ns/op as serially. Where the
// process's CPU time is not at hand (Process returns 0) the metric is left
// out.
func Report(b *testing.B) func() {
	start := Process()
	return func() {
		if start != 0 && b.N > 0 {
			b.ReportMetric(float64(Process()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}
