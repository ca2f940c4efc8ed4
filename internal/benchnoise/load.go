// Package benchnoise watches the machine a benchmark runs on: the load
// average before, during and after the runs, judged against the CPUs the
// benchmark can use, and the CPU lists of -cpu-list.
package benchnoise

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A LoadReader returns the 1-minute load average.
type LoadReader func() (float64, error)

// ReadLoadavg reads the 1-minute load average from /proc/loadavg. Where
// there is no such file (macOS), it returns an error wrapping
// os.ErrNotExist.
func ReadLoadavg() (float64, error) { return readLoadavgFile("/proc/loadavg") }

func readLoadavgFile(path string) (float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return parseLoadavg(string(b))
}

// parseLoadavg returns the first field of /proc/loadavg's text
// ("0.52 0.58 0.59 2/612 12345").
func parseLoadavg(s string) (float64, error) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return 0, errors.New("benchnoise: empty load average")
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("benchnoise: load average %q: not a number", f[0])
	}
	return v, nil
}

// Phases of a Monitor's readings.
const (
	Before = "before" // at the start, before anything is built or run
	During = "during" // while the benchmarks run
	After  = "after"  // when the last run has ended
)

// DefaultInterval is how often a Monitor reads the load during the runs.
const DefaultInterval = time.Second

// A Monitor reads the 1-minute load average before, during (every
// Interval) and after a set of benchmark runs and judges whether the
// machine was busy.
//
// The machine counts as busy in a phase when the load that is not the
// benchmark's own exceeds the CPUs left once the benchmark has one:
//
//	load - own > CPUs - 1
//
// where own is 0 before the runs and 1 during and after them (a
// benchmark keeps one thread runnable, and the 1-minute average still
// holds it just after the runs), and CPUs is the number of CPUs netbench
// may run on (its affinity mask). During the runs the median of the
// readings is judged, so that one reading lifted by a short burst does
// not make a busy machine. On two CPUs: busy before the runs above 1,
// during and after them above 2.
type Monitor struct {
	Read     LoadReader    // nil: ReadLoadavg
	Interval time.Duration // 0: DefaultInterval
	CPUs     int           // CPUs available; 0: AvailableCPUs()

	mu       sync.Mutex
	readings map[string][]float64
	errs     []error
	stop     chan struct{}
	done     chan struct{}
}

func (m *Monitor) read(phase string) {
	r := m.Read
	if r == nil {
		r = ReadLoadavg
	}
	v, err := r()
	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil {
		m.errs = append(m.errs, err)
		return
	}
	if m.readings == nil {
		m.readings = map[string][]float64{}
	}
	m.readings[phase] = append(m.readings[phase], v)
}

// Before takes the reading before the runs.
func (m *Monitor) Before() { m.read(Before) }

// Start reads the load every Interval, in a goroutine, until Stop.
func (m *Monitor) Start() {
	iv := m.Interval
	if iv <= 0 {
		iv = DefaultInterval
	}
	m.stop, m.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(m.done)
		t := time.NewTicker(iv)
		defer t.Stop()
		m.read(During)
		for {
			select {
			case <-m.stop:
				return
			case <-t.C:
				m.read(During)
			}
		}
	}()
}

// Stop ends the readings of Start, if it was called, and takes the reading
// after the runs.
func (m *Monitor) Stop() {
	m.Halt()
	m.read(After)
}

// Readings returns the readings of phase, in order.
func (m *Monitor) Readings(phase string) []float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.readings[phase])
}

func (m *Monitor) cpus() int {
	if m.CPUs > 0 {
		return m.CPUs
	}
	return AvailableCPUs()
}

// Busy reports whether load, read in phase, makes the machine busy for a
// benchmark on cpus CPUs (see Monitor).
func Busy(phase string, load float64, cpus int) bool {
	own := 1.0
	if phase == Before {
		own = 0
	}
	return load-own > float64(cpus)-1
}

// Warnings returns one sentence per phase in which the machine was busy,
// and one when the load average could not be read at all; none on a quiet
// machine.
func (m *Monitor) Warnings() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	cpus := m.cpus()
	var w []string
	for _, phase := range []string{Before, During, After} {
		r := m.readings[phase]
		if len(r) == 0 {
			continue
		}
		load := median(r)
		if !Busy(phase, load, cpus) {
			continue
		}
		what := fmt.Sprintf("1-min load average %.2f", load)
		if len(r) > 1 {
			what = fmt.Sprintf("1-min load average %.2f (median of %d readings, %.2f to %.2f)", load, len(r), slices.Min(r), slices.Max(r))
		}
		limit := float64(cpus) - 1
		if phase != Before {
			limit++
		}
		w = append(w, fmt.Sprintf("machine busy %s the runs: %s on %d CPUs, above %g; other processes competed with the benchmarks, and wall-clock results may not hold",
			map[string]string{Before: "before", During: "during", After: "after"}[phase], what, cpus, limit))
	}
	if len(m.errs) > 0 && len(m.readings) == 0 {
		w = append(w, fmt.Sprintf("the load average could not be read (%v): whether the machine was busy is unknown", m.errs[0]))
	}
	return w
}

// Summary returns the readings as one configuration value: "before 0.52,
// during 0.80-1.30 (median 1.02), after 1.10 on 2 CPUs".
func (m *Monitor) Summary() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var parts []string
	for _, phase := range []string{Before, During, After} {
		r := m.readings[phase]
		switch len(r) {
		case 0:
		case 1:
			parts = append(parts, fmt.Sprintf("%s %.2f", phase, r[0]))
		default:
			parts = append(parts, fmt.Sprintf("%s %.2f-%.2f (median %.2f)", phase, slices.Min(r), slices.Max(r), median(r)))
		}
	}
	if len(parts) == 0 {
		return "unknown"
	}
	return strings.Join(parts, ", ") + fmt.Sprintf(" on %d CPUs", m.cpus())
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Halt ends the readings of Start, if it was called, without a reading
// after the runs: for a run that stops early. Stop after Halt still
// takes the reading after.
func (m *Monitor) Halt() {
	if m.stop != nil {
		close(m.stop)
		<-m.done
		m.stop = nil
	}
}
