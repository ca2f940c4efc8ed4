package benchproc

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func TestParsePerfCSV(t *testing.T) {
	out := "Events disabled\nEvents enabled\n" +
		"109,,raw_syscalls:sys_enter,1533970,100.00,,\n" +
		"<not counted>,,syscalls:sys_enter_futex,0,0.00,,\n" +
		"<not supported>,,cycles,0,100.00,,\n" +
		"12.50,msec,task-clock,12500000,100.00,0.998,CPUs utilized\n" +
		"3,,context-switches,1533970,100.00,,\n" +
		"4,,context-switches,1533970,100.00,,\n" +
		"\n" +
		"Error:\tsomething, somewhere\n" +
		"x,,bogus,1,100.00,,\n"
	got := ParsePerfCSV(out)
	assert.Equal(t, PerfCount{Event: "raw_syscalls:sys_enter", Value: 109}, got["raw_syscalls:sys_enter"])
	assert.Equal(t, PerfCount{Event: "syscalls:sys_enter_futex", Status: "<not counted>"}, got["syscalls:sys_enter_futex"])
	assert.False(t, got["syscalls:sys_enter_futex"].Counted())
	assert.Equal(t, "<not supported>", got["cycles"].Status)
	assert.Equal(t, 12.5, got["task-clock"].Value)
	assert.Equal(t, float64(7), got["context-switches"].Value, "an event listed twice is added up")
	assert.NotContains(t, got, "bogus")
	assert.Len(t, got, 5, "%v", got)
}

// perfOrSkip skips the test where perf cannot count tracepoints.
func perfOrSkip(t *testing.T, want ...string) []string {
	t.Helper()
	have, err := ProbePerf(want)
	if err != nil {
		t.Skipf("perf cannot count tracepoints here: %v", err)
	}
	return have
}

// ProbePerf leaves out the events this kernel lacks instead of failing.
func TestProbePerf(t *testing.T) {
	have := perfOrSkip(t, "raw_syscalls:sys_enter", "syscalls:sys_enter_getppid", "syscalls:sys_enter_no_such_call")
	assert.Equal(t, []string{"raw_syscalls:sys_enter", "syscalls:sys_enter_getppid"}, have)
}

// perf counts the test's own getppid calls between Enable and Stop, and
// not those made before Enable, once perf is attached.
func TestPerfWindow(t *testing.T) {
	const ev = "syscalls:sys_enter_getppid"
	perfOrSkip(t, ev)
	p, err := StartPerf(context.Background(), os.Getpid(), []string{ev, "raw_syscalls:sys_enter"}, 0, false)
	require.NoError(t, err)
	defer p.Close()
	time.Sleep(500 * time.Millisecond) // perf attaches
	const outside, inside = 3000, 1000
	for range outside {
		unix.Getppid()
	}
	require.NoError(t, p.Enable())
	for range inside {
		unix.Getppid()
	}
	counts, err := p.Stop()
	require.NoError(t, err)
	c := counts[ev]
	require.True(t, c.Counted(), "%v", counts)
	assert.GreaterOrEqual(t, c.Value, float64(inside), "%v", counts)
	assert.Less(t, c.Value, float64(inside+outside), "calls before Enable were counted: %v", counts)
	assert.GreaterOrEqual(t, counts["raw_syscalls:sys_enter"].Value, c.Value, "%v", counts)
	p.Close() // after Stop: nothing to do
}
