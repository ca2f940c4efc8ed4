//go:build !unix

package benchcpu

import "time"

// Process returns 0: the process's CPU time is not at hand here.
func Process() time.Duration { return 0 }
