package benchnoise

import (
	"fmt"
	"os/exec"
	"runtime"

	"golang.org/x/sys/unix"
)

// AllowedCPUs returns the CPUs the calling thread may run on (its
// affinity mask), sorted.
func AllowedCPUs() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("sched_getaffinity: %w", err)
	}
	var cpus []int
	for c := 0; c < len(set)*64 && len(cpus) < set.Count(); c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

// AvailableCPUs returns the number of CPUs netbench may run on: its
// affinity mask's, or runtime.NumCPU when that cannot be read.
func AvailableCPUs() int {
	if cpus, err := AllowedCPUs(); err == nil && len(cpus) > 0 {
		return len(cpus)
	}
	return runtime.NumCPU()
}

// StartPinned starts cmd with its affinity mask set to cpus (none: as
// netbench's), so that every thread of the child, which inherits the mask
// of the thread that forks it, runs on those CPUs only. The mask is set on
// one thread of netbench's, locked to the calling goroutine for the fork
// (threads the runtime starts meanwhile come from its template thread, not
// from a locked one), and restored before the thread is unlocked; should
// the restoring fail, the thread stays locked to a goroutine that ends, and
// the runtime retires it, so no other goroutine runs under the narrowed
// mask.
func StartPinned(cmd *exec.Cmd, cpus []int) error {
	if len(cpus) == 0 {
		return cmd.Start()
	}
	var set unix.CPUSet
	for _, c := range cpus {
		set.Set(c)
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		var old unix.CPUSet
		if err := unix.SchedGetaffinity(0, &old); err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("pinning to CPUs %s: sched_getaffinity: %w", FormatCPUList(cpus), err)
			return
		}
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("pinning to CPUs %s: sched_setaffinity: %w", FormatCPUList(cpus), err)
			return
		}
		err := cmd.Start()
		if unix.SchedSetaffinity(0, &old) == nil {
			runtime.UnlockOSThread()
		}
		errc <- err
	}()
	return <-errc
}
