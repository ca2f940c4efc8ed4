package echobench

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func f64(x float64) *float64 { return &x }

func TestPerRT(t *testing.T) {
	for _, c := range []struct {
		v    *float64
		want string
	}{
		{nil, "–"}, {f64(0), "0"}, {f64(0.043), "0.043"}, {f64(0.0432), "0.043"}, {f64(1), "1.00"},
		{f64(3.0249), "3.02"}, {f64(0.43), "0.43"}, {f64(12.54), "12.5"}, {f64(150.4), "150"}, {f64(0.00012), "0.00012"},
	} {
		assert.Equal(t, c.want, perRT(c.v), "perRT(%v)", c.v)
	}
}

// counterRows is three netkit runs (perf in two, perf failed in the third)
// and three gnet runs with /proc counters only.
func counterRows() (runConfig, []Measurement) {
	rc := runConfig{servers: []string{"netkit", "gnet"}, scenarios: []Scenario{scenarios[0]}, runs: 3,
		duration: time.Second, warmup: time.Second, pin: true, counters: countersPerf}
	m := func(srv string, run int, c Counters) Measurement {
		return Measurement{Scenario: "64x64B", Server: srv, Run: run,
			LoadResult: LoadResult{RoundTrips: 1000, RTPS: 1000, P50us: 10, P99us: 20}, Counters: c}
	}
	ms := []Measurement{
		m("netkit", 1, Counters{Source: "perf", CtxSwitchesPerRT: f64(1), SyscallsPerRT: f64(3.02), ReadsPerRT: f64(1.1),
			WritesPerRT: f64(1), FutexPerRT: f64(0.5), EpollWaitsPerRT: f64(0.043), SleepsPerRT: f64(0)}),
		m("gnet", 1, Counters{Source: "proc", CtxSwitchesPerRT: f64(0.2), ReadsPerRT: f64(1), WritesPerRT: f64(1)}),
		m("gnet", 2, Counters{Source: "proc", CtxSwitchesPerRT: f64(0.4), ReadsPerRT: f64(1), WritesPerRT: f64(1)}),
		m("netkit", 2, Counters{Source: "perf", CtxSwitchesPerRT: f64(3), SyscallsPerRT: f64(3.02), ReadsPerRT: f64(1.3),
			WritesPerRT: f64(1), FutexPerRT: f64(0.1), EpollWaitsPerRT: f64(0.043), SleepsPerRT: f64(0)}),
		m("netkit", 3, Counters{Source: "proc", CtxSwitchesPerRT: f64(2), ReadsPerRT: f64(1.2), WritesPerRT: f64(1)}),
		m("gnet", 3, Counters{Source: "proc", CtxSwitchesPerRT: f64(0.3), ReadsPerRT: f64(1), WritesPerRT: f64(1)}),
	}
	return rc, ms
}

// The counters' medians are over the runs that have each; a counter no
// run has stays nil, out of the JSON and "–" in the table.
func TestSummaryCounters(t *testing.T) {
	rc, ms := counterRows()
	sums := summarize(rc, ms)
	require.Len(t, sums, 2)
	nk, gn := sums[0], sums[1]
	require.Equal(t, "netkit", nk.Server)
	assert.Equal(t, "perf+proc", nk.Source)
	assert.Equal(t, f64(2), nk.CtxSwitchesPerRT, "cs median of 1, 3, 2")
	assert.Equal(t, f64(1.2), nk.ReadsPerRT, "reads median of 1.1, 1.3, 1.2")
	assert.Equal(t, f64(0.3), nk.FutexPerRT, "futex median of the two perf runs, 0.5 and 0.1")
	assert.Equal(t, f64(3.02), nk.SyscallsPerRT)
	assert.Equal(t, f64(0), nk.SleepsPerRT, "a counted 0 is not 'not measured'")
	assert.Equal(t, "proc", gn.Source)
	assert.InDelta(t, 0.3, *gn.CtxSwitchesPerRT, 1e-12)
	assert.Nil(t, gn.SyscallsPerRT)
	assert.Nil(t, gn.FutexPerRT)

	b, err := json.Marshal(sums)
	require.NoError(t, err)
	var doc []map[string]any
	require.NoError(t, json.Unmarshal(b, &doc))
	assert.Equal(t, 0.3, doc[0]["futex_per_rt"], "%s", b)
	assert.Equal(t, 0.0, doc[0]["sleeps_per_rt"], "%s", b)
	assert.Equal(t, 2.0, doc[0]["ctx_switches_per_rt"], "%s", b)
	for _, k := range []string{"syscalls_per_rt", "futex_per_rt", "epoll_waits_per_rt", "sleeps_per_rt"} {
		assert.NotContains(t, doc[1], k, "%s", b)
	}
	assert.Contains(t, doc[1], "reads_per_rt", "%s", b)

	var out bytes.Buffer
	require.NoError(t, writeTable(&out, rc, sums))
	tab := out.String()
	t.Logf("\n%s", tab)
	assert.Contains(t, tab, " CPU ÷ net | cs/rt | sys/rt | reads/rt | writes/rt | futex/rt | epoll/rt | sleep/rt |\n")
	assert.Contains(t, tab, " | 2.00 | 3.02 | 1.20 | 1.00 | 0.30 | 0.043 | 0 |\n")
	assert.Contains(t, tab, " | 0.30 | – | 1.00 | 1.00 | – | – | – |\n")
	for _, c := range counterColumns {
		assert.Contains(t, tab, "\n"+c.head+": ", "no note for %s", c.head)
	}
	assert.NotContains(t, tab, "per ping", "no flood scenario here")
	header := strings.SplitN(tab, "\n|", 2)[1]
	assert.Equal(t, 21, strings.Count(strings.SplitN(header, "\n", 2)[0], "|"), "header cells: %s", header)
}

// A counters run (perf counting) gives the counters of its (scenario,
// server) and nothing else; one where perf failed gives way to the
// measured runs' /proc counters.
func TestSummaryCountersRun(t *testing.T) {
	rc, ms := counterRows()
	extra := func(srv, source string, c Counters) Measurement {
		c.Source = source
		return Measurement{Scenario: "64x64B", Server: srv, CountersRun: true,
			LoadResult: LoadResult{RoundTrips: 1e6, RTPS: 1e6, P50us: 1, P99us: 1}, CPUPer1M: 99, Counters: c}
	}
	ms = append(ms,
		extra("gnet", "perf", Counters{CtxSwitchesPerRT: f64(0.05), SyscallsPerRT: f64(2.2), ReadsPerRT: f64(1),
			WritesPerRT: f64(1), FutexPerRT: f64(0.003), EpollWaitsPerRT: f64(0.2), SleepsPerRT: f64(0.01)}),
		extra("netkit", "proc", Counters{CtxSwitchesPerRT: f64(7), ReadsPerRT: f64(7), WritesPerRT: f64(7)}))
	sums := summarize(rc, ms)
	nk, gn := sums[0], sums[1]
	assert.Equal(t, 3, gn.Runs, "the counters run is not a measured run")
	assert.Equal(t, 1000.0, gn.RTPS, "the counters run's rate is not used")
	assert.Equal(t, 0.0, gn.CPUPer1M, "the counters run's CPU is not used")
	assert.True(t, gn.CountersFromExtraRun)
	assert.Equal(t, "perf", gn.Source)
	assert.Equal(t, f64(0.05), gn.CtxSwitchesPerRT)
	assert.Equal(t, f64(0.003), gn.FutexPerRT)
	assert.False(t, nk.CountersFromExtraRun, "perf failed in netkit's counters run")
	assert.Equal(t, f64(2), nk.CtxSwitchesPerRT, "netkit: the measured runs' median")
	assert.Equal(t, "perf+proc", nk.Source)
}

// Without counters the table keeps its old columns; with the flood
// scenario the notes say what the columns mean there.
func TestTableCountersOffAndFlood(t *testing.T) {
	rc, ms := counterRows()
	rc.counters = countersOff
	var out bytes.Buffer
	require.NoError(t, writeTable(&out, rc, summarize(rc, ms)))
	assert.NotContains(t, out.String(), "cs/rt")
	assert.Contains(t, out.String(), "| CPU ÷ net |\n")

	rc, ms = counterRows()
	rc.scenarios = append(rc.scenarios, scenarios[len(scenarios)-1])
	require.True(t, rc.scenarios[1].Flood)
	out.Reset()
	require.NoError(t, writeTable(&out, rc, summarize(rc, ms)))
	assert.Contains(t, out.String(), "flood+ping: the …/rt columns are per ping")
}

func TestRunCountersFlag(t *testing.T) {
	var out, errb bytes.Buffer
	err := Main(&out, &errb, []string{"run", "-counters", "bogus", "-scenarios", "64x64B"})
	require.ErrorContains(t, err, `-counters "bogus"`)
}
