//go:build !unix

package benchrun

import "time"

// childrenCPU reports the CPU time of child processes as unknown.
func childrenCPU() (time.Duration, bool) { return 0, false }
