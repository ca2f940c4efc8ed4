package benchnoise

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// threadsHelper, run as a child by TestStartPinnedGoChild, starts
// goroutines that make the runtime start threads, then prints the
// Cpus_allowed_list of every thread of its process, one a line.
func TestThreadsHelper(t *testing.T) {
	if os.Getenv("BENCHNOISE_THREADS_HELPER") != "1" {
		t.Skip("run as a child process by TestStartPinnedGoChild")
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			runtime.LockOSThread() // each on a thread of its own
			x := 0
			for i := range 1_000_000 {
				x += i
			}
			_ = x
		})
	}
	wg.Wait()
	tasks, err := filepath.Glob("/proc/self/task/*/status")
	require.NoError(t, err)
	for _, task := range tasks {
		fmt.Println("THREAD", allowedList(t, task))
	}
}

// allowedList returns the Cpus_allowed_list of a /proc status file.
func allowedList(t *testing.T, status string) string {
	t.Helper()
	b, err := os.ReadFile(status)
	require.NoError(t, err)
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("no Cpus_allowed_list in %s", status)
	return ""
}

// lastCPU returns the highest CPU this process may run on, skipping the
// test when there is only one (pinning to it proves nothing).
func lastCPU(t *testing.T) int {
	t.Helper()
	cpus, err := AllowedCPUs()
	require.NoError(t, err)
	if len(cpus) < 2 {
		t.Skip("needs two CPUs to pin to one of them")
	}
	return cpus[len(cpus)-1]
}

func TestStartPinned(t *testing.T) {
	cpu := lastCPU(t)
	before, err := AllowedCPUs()
	require.NoError(t, err)
	cmd := exec.Command("sleep", "5")
	require.NoError(t, StartPinned(cmd, []int{cpu}))
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	assert.Equal(t, fmt.Sprint(cpu), allowedList(t, fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)), "the child's Cpus_allowed_list")
	// netbench's own threads keep their mask.
	after, err := AllowedCPUs()
	require.NoError(t, err)
	assert.Equal(t, before, after)
	// The thread that forked ends with its goroutine, soon after.
	assert.Eventually(t, func() bool {
		tasks, err := filepath.Glob("/proc/self/task/*/status")
		require.NoError(t, err)
		for _, task := range tasks {
			if b, err := os.ReadFile(task); err == nil && !strings.Contains(string(b), "Cpus_allowed_list:\t"+FormatCPUList(before)+"\n") {
				return false
			}
		}
		return true
	}, 5*time.Second, 10*time.Millisecond, "a thread of netbench kept the child's mask")
}

// TestStartPinnedGoChild pins a Go program, whose runtime starts threads
// of its own, and checks every thread's mask.
func TestStartPinnedGoChild(t *testing.T) {
	cpu := lastCPU(t)
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run", "^TestThreadsHelper$", "-test.v")
	cmd.Env = append(os.Environ(), "BENCHNOISE_THREADS_HELPER=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, StartPinned(cmd, []int{cpu}))
	require.NoError(t, cmd.Wait(), "%s", out.String())
	n := 0
	for line := range strings.Lines(out.String()) {
		if v, ok := strings.CutPrefix(line, "THREAD "); ok {
			n++
			assert.Equal(t, fmt.Sprint(cpu), strings.TrimSpace(v), "a thread of the child")
		}
	}
	assert.Greater(t, n, 2, "threads listed:\n%s", out.String())
}

func TestStartPinnedBadCPU(t *testing.T) {
	err := StartPinned(exec.Command("true"), []int{maxCPU - 1})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "sched_setaffinity")
	require.Error(t, CheckCPUList([]int{maxCPU - 1}))
	cpus, err := AllowedCPUs()
	require.NoError(t, err)
	require.NoError(t, CheckCPUList(cpus[:1]))
}

func TestCheckCPUListMessage(t *testing.T) {
	err := CheckCPUList([]int{0, maxCPU - 2, maxCPU - 1})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "CPUs 65534-65535 are not available (available: ")
	err = CheckCPUList([]int{maxCPU - 1})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "CPU 65535 is not available")
}
