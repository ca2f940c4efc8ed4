package benchnoise

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ParseCPUList parses a CPU list as taskset -c and /proc's
// Cpus_allowed_list write them: CPU numbers and ranges separated by
// commas ("0,1", "2", "0-3,6"). The result is sorted, without
// duplicates. An empty list, a negative or malformed number, or a
// range whose end is below its start is an error.
func ParseCPUList(s string) ([]int, error) {
	var cpus []int
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("empty CPU list")
	}
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := cpuNumber(lo)
		if err != nil {
			return nil, fmt.Errorf("CPU list %q: %w", s, err)
		}
		b := a
		if isRange {
			if b, err = cpuNumber(hi); err != nil {
				return nil, fmt.Errorf("CPU list %q: %w", s, err)
			}
			if b < a {
				return nil, fmt.Errorf("CPU list %q: range %s ends before it starts", s, part)
			}
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	slices.Sort(cpus)
	return slices.Compact(cpus), nil
}

// maxCPU bounds a CPU number; the kernel's CPU sets hold 1024 by default.
const maxCPU = 1 << 16

func cpuNumber(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 || n >= maxCPU {
		return 0, fmt.Errorf("%q is not a CPU number", s)
	}
	return n, nil
}

// FormatCPUList writes cpus as ParseCPUList reads them, with ranges
// ("0-3,6").
func FormatCPUList(cpus []int) string {
	var b strings.Builder
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(cpus[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(cpus[j]))
		}
		i = j + 1
	}
	return b.String()
}

// CheckCPUList returns an error naming the CPUs of cpus that netbench
// cannot run on (outside its affinity mask, or offline): pinning to them
// would fail.
func CheckCPUList(cpus []int) error {
	allowed, err := AllowedCPUs()
	if err != nil {
		return err
	}
	var bad []int
	for _, c := range cpus {
		if !slices.Contains(allowed, c) {
			bad = append(bad, c)
		}
	}
	switch len(bad) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("CPU %d is not available (available: %s)", bad[0], FormatCPUList(allowed))
	}
	return fmt.Errorf("CPUs %s are not available (available: %s)", FormatCPUList(bad), FormatCPUList(allowed))
}
