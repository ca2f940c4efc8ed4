package benchproc

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// ThreadSwitches reads the context switches of every thread of process
// pid, voluntary plus nonvoluntary (voluntary_ctxt_switches and
// nonvoluntary_ctxt_switches in /proc/<pid>/task/<tid>/status), by thread
// id. A thread that exits while it is read is left out.
func ThreadSwitches(pid int) (map[int]uint64, error) {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make(map[int]uint64, len(ents))
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(dir + "/" + e.Name() + "/status")
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
			continue // the thread exited after the listing
		}
		if err != nil {
			return nil, err
		}
		n, err := ParseSwitches(b)
		if err != nil {
			return nil, fmt.Errorf("%s/%d/status: %w", dir, tid, err)
		}
		out[tid] = n
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no thread could be read", dir)
	}
	return out, nil
}

// ParseSwitches returns voluntary_ctxt_switches + nonvoluntary_ctxt_switches
// of a /proc status file; both lines must be there.
func ParseSwitches(status []byte) (uint64, error) {
	var sum uint64
	seen := 0
	for _, l := range strings.Split(string(status), "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok || (k != "voluntary_ctxt_switches" && k != "nonvoluntary_ctxt_switches") {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("odd %s line %q", k, l)
		}
		sum += n
		seen++
	}
	if seen != 2 {
		return 0, errors.New("no voluntary_ctxt_switches and nonvoluntary_ctxt_switches lines")
	}
	return sum, nil
}

// SwitchesBetween is the context switches made between two ThreadSwitches
// readings of one process: the sum, over the threads of the second, of
// their growth since the first. A thread absent from the first (started
// in between) counts from 0, and so does one whose count went down (its
// id reused by a new thread). A thread that exited in between is absent
// from the second reading, and its switches in between are lost: the
// kernel keeps no per-process total of them that a reader can take
// (perf's context-switches event, which follows the threads, has no such
// hole; prefer it when it is there).
func SwitchesBetween(start, end map[int]uint64) uint64 {
	var sum uint64
	for tid, n := range end {
		if s, ok := start[tid]; ok && s <= n {
			n -= s
		}
		sum += n
	}
	return sum
}

// IOCounts are the system call counters of /proc/<pid>/io.
type IOCounts struct {
	// Syscr counts read-like calls (read, readv, pread64, preadv,
	// sendfile's input side...), Syscw write-like ones (write, writev,
	// pwrite64...). Socket calls of their own (recvfrom, recvmsg, sendto,
	// sendmsg) are in neither. The counts cover every thread of the
	// process, the exited ones too.
	Syscr, Syscw uint64
}

// ProcIO reads the syscr and syscw counters of /proc/<pid>/io.
func ProcIO(pid int) (IOCounts, error) {
	p := fmt.Sprintf("/proc/%d/io", pid)
	b, err := os.ReadFile(p)
	if err != nil {
		return IOCounts{}, err
	}
	c, err := ParseIO(b)
	if err != nil {
		return IOCounts{}, fmt.Errorf("%s: %w", p, err)
	}
	return c, nil
}

// ParseIO reads syscr and syscw from the text of a /proc/<pid>/io file;
// both must be there.
func ParseIO(b []byte) (IOCounts, error) {
	var c IOCounts
	seen := 0
	for _, l := range bytes.Split(b, []byte("\n")) {
		k, v, ok := strings.Cut(string(l), ":")
		var dst *uint64
		switch {
		case !ok:
			continue
		case k == "syscr":
			dst = &c.Syscr
		case k == "syscw":
			dst = &c.Syscw
		default:
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return IOCounts{}, fmt.Errorf("odd %s line %q", k, l)
		}
		*dst = n
		seen++
	}
	if seen != 2 {
		return IOCounts{}, errors.New("no syscr and syscw lines")
	}
	return c, nil
}

// Sub is c minus an earlier reading d.
func (c IOCounts) Sub(d IOCounts) IOCounts {
	return IOCounts{Syscr: c.Syscr - d.Syscr, Syscw: c.Syscw - d.Syscw}
}
