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

// DefaultWindow is how long Monitor.Before measures the CPU time of other
// processes.
const DefaultWindow = 500 * time.Millisecond

// A Monitor reads the 1-minute load average before, during (every
// Interval) and after a set of benchmark runs and judges whether the
// machine was busy.
//
// With Others set, the phases before and during the runs are judged by
// the CPU time other processes used instead: before, over Window; during,
// from Start to Stop (or Halt). Other processes are busy when they used
// more than the CPUs left once the benchmark has one (on two CPUs, more
// than one CPU's time on average). Unlike the load average, which decays
// over minutes, this does not count netbench's own work: not the runs of
// the phase, nor those of a compare that ended just before. The load
// average is still read, for the summary, and judges a phase whose CPU
// time could not be read.
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
	Others   OthersReader  // nil: judge by the load average only
	Window   time.Duration // 0: DefaultWindow

	mu       sync.Mutex
	readings map[string][]float64
	others   map[string]float64 // phase -> CPUs other processes used, on average
	start    othersMark         // the reading at Start
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

// othersMark is a reading of Others and when it was taken.
type othersMark struct {
	ok  bool
	cpu time.Duration
	at  time.Time
}

func (m *Monitor) markOthers() othersMark {
	if m.Others == nil {
		return othersMark{}
	}
	v, err := m.Others()
	if err != nil {
		m.mu.Lock()
		m.errs = append(m.errs, err)
		m.mu.Unlock()
		return othersMark{}
	}
	return othersMark{ok: true, cpu: v, at: time.Now()}
}

// setOthers records in phase the CPUs other processes used from a to b.
func (m *Monitor) setOthers(phase string, a, b othersMark) {
	if !a.ok || !b.ok || !b.at.After(a.at) {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.others == nil {
		m.others = map[string]float64{}
	}
	m.others[phase] = max(0, float64(b.cpu-a.cpu)/float64(b.at.Sub(a.at)))
}

// Before takes the reading before the runs; with Others, it measures
// other processes' CPU time over Window.
func (m *Monitor) Before() {
	m.read(Before)
	if a := m.markOthers(); a.ok {
		w := m.Window
		if w <= 0 {
			w = DefaultWindow
		}
		time.Sleep(w)
		m.setOthers(Before, a, m.markOthers())
	}
}

// Start reads the load every Interval, in a goroutine, until Stop.
func (m *Monitor) Start() {
	m.start = m.markOthers()
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
		if v, ok := m.others[phase]; ok {
			if v > float64(cpus)-1 {
				w = append(w, fmt.Sprintf("machine busy %s the runs: other processes used %.2f CPUs on average (the machine's CPU time less netbench's and its runs') of %d, above %d; they competed with the benchmarks, and wall-clock results may not hold",
					map[string]string{Before: "before", During: "during"}[phase], v, cpus, cpus-1))
			}
			continue
		}
		if _, ok := m.others[During]; ok && phase == After {
			continue // the CPU time of the runs' phase says it
		}
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
	sum := strings.Join(parts, ", ") + fmt.Sprintf(" on %d CPUs", m.cpus())
	var others []string
	for _, phase := range []string{Before, During} {
		if v, ok := m.others[phase]; ok {
			others = append(others, fmt.Sprintf("%s %.2f", phase, v))
		}
	}
	if len(others) > 0 {
		sum += "; CPUs used by other processes: " + strings.Join(others, ", ")
	}
	return sum
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
		m.setOthers(During, m.start, m.markOthers())
	}
}

// OthersCPU returns the CPUs other processes used on average in phase
// (Before or During), and whether it was measured.
func (m *Monitor) OthersCPU(phase string) (float64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.others[phase]
	return v, ok
}
