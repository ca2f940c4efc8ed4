package benchnoise

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// An OthersReader returns the CPU time used so far, on the whole machine,
// by everything but the calling process and the children it has waited
// for: what competed with it. Only differences of two readings mean
// anything.
type OthersReader func() (time.Duration, error)

// clockTick is the unit of /proc/stat's CPU times (USER_HZ, 100 on every
// Linux architecture Go supports).
const clockTick = 10 * time.Millisecond

// machineCPU returns the busy CPU time of all CPUs from the text of
// /proc/stat: user, nice, system, irq, softirq and steal of its "cpu"
// line (steal is time a hypervisor gave to other machines while this one
// wanted it). Idle and iowait are not busy.
func machineCPU(stat string) (time.Duration, error) {
	line, _, _ := strings.Cut(stat, "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, fmt.Errorf("benchnoise: /proc/stat begins %q, want the cpu line with 8 times", line)
	}
	var ticks uint64
	for _, i := range []int{1, 2, 3, 6, 7, 8} { // user nice system irq softirq steal
		v, err := strconv.ParseUint(f[i], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("benchnoise: /proc/stat cpu field %d %q: not a count", i, f[i])
		}
		ticks += v
	}
	return time.Duration(ticks) * clockTick, nil
}

// ReadOthers is the OthersReader of Linux: the busy time of /proc/stat
// less this process's and its waited-for children's CPU time (getrusage).
// A child's time counts from when it has been waited for, so a reading
// taken while a child runs counts its time so far as others'; a phase
// that ends after its children is exact. Where there is no /proc/stat it
// returns an error wrapping os.ErrNotExist.
func ReadOthers() (time.Duration, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	all, err := machineCPU(string(b))
	if err != nil {
		return 0, err
	}
	own, err := ownCPU()
	if err != nil {
		return 0, err
	}
	return all - own, nil
}
