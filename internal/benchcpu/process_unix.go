//go:build unix

package benchcpu

import (
	"syscall"
	"time"
)

// Process returns the CPU time the process has used, user and system, all
// threads (the GC's included), or 0 if the system does not say.
func Process() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
