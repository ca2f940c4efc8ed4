package benchproc

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func TestParseSwitches(t *testing.T) {
	status := "Name:\tx\nState:\tS (sleeping)\nvoluntary_ctxt_switches:\t12\nnonvoluntary_ctxt_switches:\t3\n"
	n, err := ParseSwitches([]byte(status))
	require.NoError(t, err)
	assert.Equal(t, uint64(15), n)
	_, err = ParseSwitches([]byte("voluntary_ctxt_switches:\t12\n"))
	assert.Error(t, err, "one line missing")
	_, err = ParseSwitches([]byte("voluntary_ctxt_switches:\tx\nnonvoluntary_ctxt_switches:\t3\n"))
	assert.Error(t, err, "not a number")
}

// A thread new in the second reading counts from 0, and so does one whose
// count went down (a reused id); the others count their growth.
func TestSwitchesBetween(t *testing.T) {
	start := map[int]uint64{1: 10, 2: 50, 4: 9}
	end := map[int]uint64{1: 15, 2: 3, 3: 7} // 4 exited: lost
	assert.Equal(t, uint64(5+3+7), SwitchesBetween(start, end))
	assert.Equal(t, uint64(0), SwitchesBetween(end, end))
}

// The test's own threads: every one read, and their sum grows by at least
// the switches of a thread that sleeps in a loop.
func TestThreadSwitchesOfSelf(t *testing.T) {
	pid := os.Getpid()
	before, err := ThreadSwitches(pid)
	require.NoError(t, err)
	require.Contains(t, before, pid, "the main thread (tid = pid) is missing: %v", before)
	const sleeps = 50
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread() // one thread blocks in nanosleep: a voluntary switch each time
		defer runtime.UnlockOSThread()
		for range sleeps {
			unix.Nanosleep(&unix.Timespec{Nsec: int64(200 * time.Microsecond)}, nil)
		}
	}()
	<-done
	after, err := ThreadSwitches(pid)
	require.NoError(t, err)
	sum := func(m map[int]uint64) (s uint64) {
		for _, n := range m {
			s += n
		}
		return s
	}
	assert.Greater(t, sum(before), uint64(0), "no switches at all: %v", before)
	got := SwitchesBetween(before, after)
	assert.GreaterOrEqual(t, got, uint64(sleeps), "%d sleeps made %d switches (before %v, after %v)", sleeps, got, before, after)
}

func TestParseIO(t *testing.T) {
	text := "rchar: 6976\nwchar: 12\nsyscr: 10\nsyscw: 2\nread_bytes: 0\nwrite_bytes: 0\ncancelled_write_bytes: 0\n"
	c, err := ParseIO([]byte(text))
	require.NoError(t, err)
	assert.Equal(t, IOCounts{Syscr: 10, Syscw: 2}, c)
	assert.Equal(t, IOCounts{Syscr: 7, Syscw: 1}, c.Sub(IOCounts{Syscr: 3, Syscw: 1}))
	_, err = ParseIO([]byte("rchar: 1\nsyscr: 10\n"))
	assert.Error(t, err, "no syscw")
	_, err = ParseIO([]byte("syscr: ten\nsyscw: 2\n"))
	assert.Error(t, err, "not a number")
}

// The test's own /proc/<pid>/io grows by the reads and writes it makes.
func TestProcIOOfSelf(t *testing.T) {
	var fds [2]int
	require.NoError(t, unix.Pipe(fds[:]))
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	before, err := ProcIO(os.Getpid())
	require.NoError(t, err)
	const n = 20
	b := []byte{1}
	for range n {
		_, err := unix.Write(fds[1], b)
		require.NoError(t, err)
		_, err = unix.Read(fds[0], b)
		require.NoError(t, err)
	}
	after, err := ProcIO(os.Getpid())
	require.NoError(t, err)
	d := after.Sub(before)
	assert.GreaterOrEqual(t, d.Syscr, uint64(n), "reads: %+v then %+v", before, after)
	assert.GreaterOrEqual(t, d.Syscw, uint64(n), "writes: %+v then %+v", before, after)
}

func TestParseMem(t *testing.T) {
	rss, peak, err := ParseMem([]byte("Name:\tx\nVmHWM:\t   20480 kB\nVmRSS:\t   10240 kB\nThreads:\t3\n"))
	require.NoError(t, err)
	assert.Equal(t, int64(10240<<10), rss)
	assert.Equal(t, int64(20480<<10), peak)
	_, _, err = ParseMem([]byte("Name:\tx\nVmRSS:\t 1 kB\n"))
	require.Error(t, err, "no VmHWM line")
	rss, peak, err = ProcMem(os.Getpid())
	require.NoError(t, err)
	assert.Positive(t, rss)
	assert.GreaterOrEqual(t, peak, rss)
}
