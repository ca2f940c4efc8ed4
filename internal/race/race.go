// Package race reports whether the race detector is compiled in. Tests use it
// to skip allocation-count assertions, because sync.Pool deliberately drops
// items at random under the race detector.
package race
