package benchinstr

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// callgrindOut is the head and tail of a real callgrind output file.
const callgrindOut = `# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 20998
cmd:  /tmp/buf.test -test.run ^$ -test.benchtime 200000x
part: 1


desc: I1 cache: 
desc: D1 cache: 
desc: LL cache: 

desc: Timerange: Basic block 0 - 3093641
desc: Trigger: Program termination

positions: line
events: Ir
summary: 17225158


ob=(1) /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
fl=(1) ./elf/../sysdeps/x86_64/dl-machine.h
fn=(1) _dl_relocate_object
0 1234
totals: 17225158
`

func TestParseCallgrind(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want uint64
		err  string
	}{
		{name: "summary", in: callgrindOut, want: 17225158},
		{name: "summary and totals differ: summary wins", in: strings.Replace(callgrindOut, "totals: 17225158", "totals: 5", 1), want: 17225158},
		{name: "totals only", in: strings.Replace(callgrindOut, "summary: 17225158\n", "", 1), want: 17225158},
		{name: "more events, Ir first", in: strings.NewReplacer("events: Ir", "events: Ir Dr Dw", "summary: 17225158", "summary: 99 7 3").Replace(callgrindOut), want: 99},
		{name: "Ir not first", in: strings.Replace(callgrindOut, "events: Ir", "events: Dr Ir", 1), err: "want Ir first"},
		{name: "no events", in: "summary: 12\n", err: "want Ir first"},
		{name: "no count", in: "events: Ir\nfn=(1) main\n0 3\n", err: "neither a summary: nor a totals: line"},
		{name: "bad count", in: "events: Ir\nsummary: 12x\n", err: `instruction count "12x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseCallgrind(strings.NewReader(tc.in))
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, Count{Instructions: tc.want}, got)
		})
	}
}

// dumpPart is one part of a file written with --combine-dumps=yes.
func dumpPart(n int, trigger string, summary, totals uint64) string {
	return fmt.Sprintf("\npart: %d\n\ndesc: Timerange: Basic block 0 - 9\ndesc: Trigger: %s\n\npositions: line\nevents: Ir\nsummary: %d\n\n\nfn=(1) f\n0 %d\ntotals: %d\n", n, trigger, summary, totals, totals)
}

// TestParseCallgrindTimed: the dumps of the timer hooks are summed by
// their totals (their summary lines count threads from the last dump
// of each, not from the zeroing), the rest of the program left out;
// after the capped dump the program's final dump counts too.
func TestParseCallgrindTimed(t *testing.T) {
	head := "# callgrind format\nversion: 1\ncreator: callgrind-3.22.0\npid: 7\ncmd: x.test\n"
	timed := "Client Request: " + TimedDump
	for _, tc := range []struct {
		name  string
		parts []string
		want  Count
		err   string
	}{
		{name: "timed", parts: []string{
			dumpPart(1, timed, 36082, 69), dumpPart(2, timed, 9893, 4184), dumpPart(3, "Program termination", 44225, 44225),
		}, want: Count{Instructions: 69 + 4184, Timed: true}},
		{name: "capped", parts: []string{
			dumpPart(1, timed, 500, 100), dumpPart(2, "Client Request: "+CappedDump, 900, 200), dumpPart(3, "Program termination", 7000, 5000),
		}, want: Count{Instructions: 100 + 200 + 5000, Timed: true, Capped: true}},
		{name: "other dumps only", parts: []string{
			dumpPart(1, "Client Request", 10, 10), dumpPart(2, "Program termination", 30, 20),
		}, want: Count{Instructions: 30}},
		{name: "one combined part", parts: []string{dumpPart(1, "Program termination", 17, 15)}, want: Count{Instructions: 17}},
		{name: "a timed part without totals", parts: []string{
			strings.Replace(dumpPart(1, timed, 5, 5), "totals: 5\n", "", 1),
		}, err: "without a totals: line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseCallgrind(strings.NewReader(head + strings.Join(tc.parts, "")))
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestParseMethod(t *testing.T) {
	for in, want := range map[string]Method{"": Auto, "true": Auto, "auto": Auto, "callgrind": Callgrind, "perf": Perf} {
		got, err := ParseMethod(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	_, err := ParseMethod("cachegrind")
	assert.ErrorContains(t, err, `unknown instruction counter "cachegrind"`)
}

func TestWithGODEBUG(t *testing.T) {
	assert.Equal(t, []string{"A=1", "GODEBUG=x=1"}, withGODEBUG([]string{"A=1"}, "x=1"))
	assert.Equal(t, []string{"A=1", "GODEBUG=gctrace=1,x=1"}, withGODEBUG([]string{"GODEBUG=gctrace=1", "A=1"}, "x=1"))
	assert.Equal(t, []string{"GODEBUG=x=1"}, withGODEBUG([]string{"GODEBUG="}, "x=1"))
}

// TestMissingValgrind: without valgrind, New fails with an error that
// names it and how to install it, for callgrind and for auto on a machine
// without a hardware counter.
func TestMissingValgrind(t *testing.T) {
	t.Setenv("NETBENCH_VALGRIND", filepath.Join(t.TempDir(), "absent"))
	_, err := New(Callgrind)
	var missing *MissingToolError
	require.ErrorAs(t, err, &missing)
	assert.Equal(t, "valgrind", missing.Tool)
	assert.Contains(t, err.Error(), "apt-get install -y valgrind")
	if perfAvailable() != nil {
		_, err := New(Auto)
		require.ErrorAs(t, err, &missing)
		assert.Contains(t, err.Error(), "no hardware instruction counter")
	}
}

// TestCallgrindCount counts a real program under callgrind: more work,
// more instructions, and the program's output comes back.
func TestCallgrindCount(t *testing.T) {
	if _, err := exec.LookPath("valgrind"); err != nil {
		if os.Getenv("NETKIT_REQUIRE_VALGRIND") == "1" {
			t.Fatal("valgrind is not installed and NETKIT_REQUIRE_VALGRIND=1: apt-get install -y valgrind")
		}
		t.Skip("SKIPPED: valgrind is not installed (apt-get install -y valgrind)")
	}
	c, err := New(Callgrind)
	require.NoError(t, err)
	assert.Equal(t, Callgrind, c.Method())
	count := func(n string) uint64 {
		cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt "+n+" ]; do i=$((i+1)); done; echo counted "+n)
		v, out, err := c.Count(context.Background(), cmd)
		require.NoError(t, err)
		assert.Equal(t, "counted "+n+"\n", string(out))
		assert.False(t, v.Timed, "a program without the timer hooks")
		return v.Instructions
	}
	small, large := count("100"), count("10000")
	assert.Greater(t, small, uint64(10_000), "a shell starting up executes more than this")
	assert.Greater(t, large, small+100_000, "9900 more loop iterations of the shell")

	_, _, err = c.Count(context.Background(), exec.Command("sh", "-c", "echo oops; exit 3"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "oops", "a failing program's output is in the error")

	// Cancelled (^C): the run is killed at once and its files removed.
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	_, _, err = c.Count(ctx, exec.Command("sh", "-c", "while :; do :; done"))
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 8*time.Second, "a cancelled count must stop the program")
	left, err := os.ReadDir(tmp)
	require.NoError(t, err)
	assert.Empty(t, left, "files left by a cancelled count")
}

// TestPerfCount checks the perf counter's plumbing (ptrace-stopped start,
// a counter inherited by every thread, read after the exit) with a software
// event, which every Linux kernel has, since the hardware counter may be
// absent.
func TestPerfCount(t *testing.T) {
	c, ok := softwarePerfCounter()
	if !ok {
		t.Skip("SKIPPED: perf_event_open of a software event is not allowed here")
	}
	v, out, err := c.Count(context.Background(), exec.Command("sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done & wait; echo done"))
	require.NoError(t, err)
	assert.Equal(t, "done\n", string(out))
	assert.Greater(t, v.Instructions, uint64(50_000_000), "task clock (ns) of a shell loop run in a child process: inherited")
	_, _, err = c.Count(context.Background(), exec.Command("sh", "-c", "exit 4"))
	var ee *exec.ExitError
	assert.True(t, errors.As(err, &ee), "exit status 4 reported: %v", err)
}
