//go:build linux

package benchinstr

import "golang.org/x/sys/unix"

// softwarePerfCounter returns a perf counter of the task clock, a software
// event, when the kernel lets this process open it.
func softwarePerfCounter() (Counter, bool) {
	ev := perfEvent{unix.PERF_TYPE_SOFTWARE, unix.PERF_COUNT_SW_TASK_CLOCK}
	fd, err := openEvent(ev, 0)
	if err != nil {
		return nil, false
	}
	unix.Close(fd)
	return perfCounter{event: ev}, true
}
