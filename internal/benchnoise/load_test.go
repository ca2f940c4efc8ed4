package benchnoise

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loads returns a LoadReader that returns the values in turn, the last
// one again once they run out.
func loads(v ...float64) LoadReader {
	var mu sync.Mutex
	i := 0
	return func() (float64, error) {
		mu.Lock()
		defer mu.Unlock()
		x := v[min(i, len(v)-1)]
		i++
		return x, nil
	}
}

func TestParseLoadavg(t *testing.T) {
	v, err := parseLoadavg("0.52 0.58 0.59 2/612 12345\n")
	require.NoError(t, err)
	assert.InDelta(t, 0.52, v, 1e-12)
	for _, bad := range []string{"", "x 1 2", "-1 0 0"} {
		_, err := parseLoadavg(bad)
		assert.Error(t, err, "%q", bad)
	}
	path := filepath.Join(t.TempDir(), "loadavg")
	require.NoError(t, os.WriteFile(path, []byte("7.25 3.00 1.00 9/100 1\n"), 0o644))
	v, err = readLoadavgFile(path)
	require.NoError(t, err)
	assert.InDelta(t, 7.25, v, 1e-12)
	_, err = readLoadavgFile(filepath.Join(t.TempDir(), "none"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestBusy(t *testing.T) {
	// Two CPUs: before the runs, busy above 1; during and after, above 2.
	assert.False(t, Busy(Before, 1, 2))
	assert.True(t, Busy(Before, 1.01, 2))
	assert.False(t, Busy(During, 2, 2))
	assert.True(t, Busy(During, 2.01, 2))
	assert.True(t, Busy(After, 8, 2))
	assert.False(t, Busy(During, 7.9, 8))
}

// runPhases takes m's readings as a run does: before, during (for d),
// after.
func runPhases(m *Monitor, d time.Duration) {
	m.Before()
	m.Start()
	time.Sleep(d)
	m.Stop()
}

func TestMonitorQuiet(t *testing.T) {
	m := &Monitor{Read: loads(0.3, 1.1, 1.4, 1.2, 1.3), Interval: time.Millisecond, CPUs: 2}
	runPhases(m, 20*time.Millisecond)
	assert.Equal(t, []float64{0.3}, m.Readings(Before))
	assert.GreaterOrEqual(t, len(m.Readings(During)), 2, "readings every millisecond")
	assert.Len(t, m.Readings(After), 1)
	assert.Empty(t, m.Warnings())
	assert.Contains(t, m.Summary(), "before 0.30, during 1.10-1.40")
	assert.Contains(t, m.Summary(), "on 2 CPUs")
}

func TestMonitorBusy(t *testing.T) {
	// Busy during the runs (median 7.5 > 2) and after, quiet before.
	m := &Monitor{Read: loads(0.5, 7, 8, 7.5, 7.5, 7.5), Interval: time.Millisecond, CPUs: 2}
	runPhases(m, 20*time.Millisecond)
	w := m.Warnings()
	require.Len(t, w, 2, "%q", w)
	assert.Contains(t, w[0], "machine busy during the runs: 1-min load average 7.50 (median of")
	assert.Contains(t, w[0], "on 2 CPUs, above 2")
	assert.Contains(t, w[1], "machine busy after the runs: 1-min load average 7.50 on 2 CPUs")

	// One burst among quiet readings does not make the machine busy.
	m = &Monitor{Read: loads(0.5, 1, 9, 1, 1, 1, 1), CPUs: 2}
	m.Before()
	for range 5 {
		m.read(During)
	}
	assert.Empty(t, m.Warnings())

	m = &Monitor{Read: loads(1.5), CPUs: 2}
	m.Before()
	assert.Equal(t, []string{"machine busy before the runs: 1-min load average 1.50 on 2 CPUs, above 1; other processes competed with the benchmarks, and wall-clock results may not hold"}, m.Warnings())
}

func TestMonitorUnreadable(t *testing.T) {
	m := &Monitor{Read: func() (float64, error) { return 0, errors.New("no /proc") }, CPUs: 2}
	m.Before()
	m.Stop()
	w := m.Warnings()
	require.Len(t, w, 1)
	assert.Contains(t, w[0], "could not be read (no /proc)")
	assert.Equal(t, "unknown", m.Summary())
}

func TestMedian(t *testing.T) {
	assert.InDelta(t, 2, median([]float64{3, 1, 2}), 0)
	assert.InDelta(t, 2.5, median([]float64{4, 1, 2, 3}), 0)
	assert.False(t, math.IsNaN(median([]float64{1})))
}

func TestMachineCPU(t *testing.T) {
	// user 100, nice 2, system 30, idle 900, iowait 5, irq 1, softirq 2,
	// steal 10: busy 145 ticks.
	d, err := machineCPU("cpu  100 2 30 900 5 1 2 10 0 0\ncpu0 50 1 15 450 2 0 1 5 0 0\n")
	require.NoError(t, err)
	assert.Equal(t, 1450*time.Millisecond, d)
	_, err = machineCPU("intr 1 2 3\n")
	assert.Error(t, err)
	_, err = machineCPU("cpu 1 2 x 4 5 6 7 8\n")
	assert.Error(t, err)
}

var sink int

func TestReadOthers(t *testing.T) {
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skip("no /proc/stat here")
	}
	// Spinning here is this process's own time, which ReadOthers takes
	// off the machine's: ownCPU must see it grow (on a loaded machine the
	// spin gets less than its wall-clock time, so it spins until then).
	own0, err := ownCPU()
	require.NoError(t, err)
	a, err := ReadOthers()
	require.NoError(t, err)
	own1 := own0
	for start := time.Now(); own1-own0 < 100*time.Millisecond && time.Since(start) < 10*time.Second; {
		for range 1_000_000 {
			sink++
		}
		own1, err = ownCPU()
		require.NoError(t, err)
	}
	b, err := ReadOthers()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, own1-own0, 100*time.Millisecond, "10s of spinning is not this process's CPU time")
	t.Logf("others used %v while this process spun for %v of CPU", b-a, own1-own0)
}

// othersAt returns an OthersReader that reports others at rate CPUs
// since it was made.
func othersAt(rate float64) OthersReader {
	t0 := time.Now()
	return func() (time.Duration, error) {
		return time.Duration(rate * float64(time.Since(t0))), nil
	}
}

func TestMonitorOthers(t *testing.T) {
	// The load average says busy (a compare just ended), the CPU time of
	// other processes says quiet: no warning, and after is not judged.
	m := &Monitor{Read: loads(1.9, 2.5, 2.5, 2.5), Interval: time.Millisecond, CPUs: 2, Others: othersAt(0.1), Window: 20 * time.Millisecond}
	runPhases(m, 30*time.Millisecond)
	assert.Empty(t, m.Warnings())
	v, ok := m.OthersCPU(Before)
	require.True(t, ok)
	assert.InDelta(t, 0.1, v, 0.02)
	_, ok = m.OthersCPU(During)
	assert.True(t, ok)
	assert.Contains(t, m.Summary(), "; CPUs used by other processes: before 0.10, during 0.10")

	// Others used 1.8 of 2 CPUs: busy before and during.
	m = &Monitor{Read: loads(0.5), Interval: time.Millisecond, CPUs: 2, Others: othersAt(1.8), Window: 20 * time.Millisecond}
	runPhases(m, 30*time.Millisecond)
	w := m.Warnings()
	require.Len(t, w, 2, "%q", w)
	assert.Contains(t, w[0], "machine busy before the runs: other processes used 1.80 CPUs on average")
	assert.Contains(t, w[0], "of 2, above 1")
	assert.Contains(t, w[1], "machine busy during the runs: other processes used 1.80 CPUs")

	// Unreadable CPU time: the load average judges.
	m = &Monitor{Read: loads(1.5), CPUs: 2, Others: func() (time.Duration, error) { return 0, errors.New("no /proc/stat") }}
	m.Before()
	require.Len(t, m.Warnings(), 1)
	assert.Contains(t, m.Warnings()[0], "1-min load average 1.50")
}
