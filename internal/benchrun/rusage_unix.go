//go:build unix

package benchrun

import (
	"syscall"
	"time"
)

// childrenCPU returns the CPU time (user and system) of the waited-for
// child processes of this one so far; ok is false when it is unknown.
func childrenCPU() (cpu time.Duration, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
