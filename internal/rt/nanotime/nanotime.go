// Package nanotime reads a monotonic clock in nanoseconds, for code that
// needs no wall-clock time (the event loop's timers).
//
// Nano reads the runtime's own monotonic clock (runtime.nanotime, what
// time.Now's monotonic reading and every runtime timer use) through a
// linkname directive, without time.Now's wall-clock half. The pure-Go twin, under
// the build tag nounsafe, measures time.Since a reading taken when the
// package was initialised: the same clock, at the cost of a time.Now.
//
// Only differences between readings mean anything: the origin is not
// specified and differs between the two builds.
package nanotime
