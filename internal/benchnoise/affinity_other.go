//go:build !linux

package benchnoise

import (
	"errors"
	"os/exec"
	"runtime"
)

// errNoAffinity is the error of pinning where sched_setaffinity is not.
var errNoAffinity = errors.New("pinning to CPUs (-cpu-list) needs Linux's sched_setaffinity")

// AllowedCPUs returns an error: only Linux has affinity masks here.
func AllowedCPUs() ([]int, error) { return nil, errNoAffinity }

// AvailableCPUs returns runtime.NumCPU.
func AvailableCPUs() int { return runtime.NumCPU() }

// StartPinned starts cmd; with cpus it returns an error, as pinning needs
// Linux.
func StartPinned(cmd *exec.Cmd, cpus []int) error {
	if len(cpus) > 0 {
		return errNoAffinity
	}
	return cmd.Start()
}
