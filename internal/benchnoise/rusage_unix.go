//go:build unix

package benchnoise

import (
	"syscall"
	"time"
)

// ownCPU returns the CPU time, user and system, of this process and of
// the children it has waited for.
func ownCPU() (time.Duration, error) {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if err := syscall.Getrusage(who, &ru); err != nil {
			return 0, err
		}
		total += time.Duration(ru.Utime.Nano()) + time.Duration(ru.Stime.Nano())
	}
	return total, nil
}
