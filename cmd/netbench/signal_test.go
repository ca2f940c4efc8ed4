//go:build unix

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNetbenchProcess is not a test: netbenchCommand runs the test binary
// with it to get netbench as a process of its own (to signal it, or to run
// two at once), with the arguments after "--".
func TestNetbenchProcess(t *testing.T) {
	if os.Getenv("NETBENCH_TEST_PROCESS") != "1" {
		t.Skip("run by netbenchCommand")
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	err := run(os.Stdout, os.Stderr, args)
	if err == nil {
		os.Exit(0)
	}
	fmt.Fprintln(os.Stderr, "netbench:", err)
	var se *statusError
	if errors.As(err, &se) {
		os.Exit(se.code)
	}
	os.Exit(99)
}

// startUntilMarker starts cmd and waits, up to two minutes, until the
// benchmark it runs has written marker; it fails the test if cmd ends
// before that (before what happened) or the marker never comes. It returns
// the channel that receives cmd.Wait's result.
func startUntilMarker(t *testing.T, cmd *exec.Cmd, out *bytes.Buffer, marker, what string) <-chan error {
	t.Helper()
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for deadline := time.Now().Add(2 * time.Minute); ; {
		if b, err := os.ReadFile(marker); err == nil && len(b) > 0 {
			return done
		}
		select {
		case err := <-done:
			require.Failf(t, "compare ended before "+what, "%v\n%s", err, out)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			require.Failf(t, "never "+what, "%s", out)
		}
	}
}

// netbenchCommand returns netbench with args as a command to run in dir,
// with env added to the environment.
func netbenchCommand(t *testing.T, dir string, env []string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestNetbenchProcess$", "--"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append(env, "NETBENCH_TEST_PROCESS=1")...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	return cmd, &out
}

// slowBench is a benchmark that records its pid in $NETBENCH_TEST_MARKER
// (when set) and then sleeps for each of its iterations.
func slowBench(sleep time.Duration) string {
	return `package slow

import (
	"os"
	"strconv"
	"testing"
	"time"
)

func BenchmarkSlow(b *testing.B) {
	if m := os.Getenv("NETBENCH_TEST_MARKER"); m != "" {
		os.WriteFile(m, []byte(strconv.Itoa(os.Getpid())), 0o644)
	}
	for b.Loop() {
		time.Sleep(` + strconv.FormatInt(int64(sleep), 10) + `)
	}
}
`
}

// leftovers lists what is in dir, which need not exist.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if !errors.Is(err, os.ErrNotExist) {
		require.NoError(t, err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestCompareConcurrentSameCommit: two compares of one commit at once once
// shared $cache/wt/<sha>, and each removed the other's worktree.
func TestCompareConcurrentSameCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs revisions")
	}
	cache := t.TempDir()
	dir, _ := newModule(t, map[string]string{"slow/slow_test.go": slowBench(50 * time.Millisecond)})
	before := gitRun(t, dir, "worktree", "list")
	env := []string{"NETBENCH_CACHE=" + cache}
	// The short run ends while the long one still runs, and removes what
	// it made; the long one must not notice.
	short, shortOut := netbenchCommand(t, dir, env, "compare", "-count", "4", "-benchtime", "1x", "-threshold", "1000", "HEAD", "HEAD", "./slow")
	long, longOut := netbenchCommand(t, dir, env, "compare", "-count", "12", "-benchtime", "1x", "-threshold", "1000", "HEAD", "HEAD", "./slow")
	for _, c := range []*exec.Cmd{short, long} {
		require.NoError(t, c.Start())
	}
	for _, c := range []struct {
		name string
		cmd  *exec.Cmd
		out  *bytes.Buffer
	}{{"short", short, shortOut}, {"long", long, longOut}} {
		if assert.NoError(t, c.cmd.Wait(), "%s compare\n%s", c.name, c.out) {
			assert.Contains(t, c.out.String(), "Slow-", "%s compare has no row of BenchmarkSlow", c.name)
		}
	}
	after := gitRun(t, dir, "worktree", "list")
	assert.Equal(t, before, after, "git worktree list after the runs:\n%s\nwant\n%s", after, before)
	l := leftovers(t, filepath.Join(cache, "wt"))
	assert.Empty(t, l, "left in $NETBENCH_CACHE/wt: %v", l)
}

// TestCompareInterrupted: SIGINT, SIGTERM or SIGHUP (a closed terminal) in
// the middle of a run stops the running benchmark, removes the worktrees
// and exits 2, leaving `git worktree list` as it was and nothing under
// $NETBENCH_CACHE/wt. Without the signal handling the process died at once
// and left its worktrees behind; SIGHUP, which a closed terminal sends,
// was once not handled and is here for that reason.
func TestCompareInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs revisions")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			if signal.Ignored(sig) {
				// Under nohup, or in a background job of a shell without
				// job control; netbench inherits the disposition and
				// keeps an ignored signal ignored, on purpose.
				t.Skipf("%v is ignored in this process, so in netbench's too", sig)
			}
			cache := t.TempDir()
			marker := filepath.Join(t.TempDir(), "pid")
			dir, _ := newModule(t, map[string]string{"slow/slow_test.go": slowBench(time.Hour)})
			before := gitRun(t, dir, "worktree", "list")
			cmd, out := netbenchCommand(t, dir, []string{"NETBENCH_CACHE=" + cache, "NETBENCH_TEST_MARKER=" + marker},
				"compare", "-count", "6", "-benchtime", "1x", "HEAD", "HEAD", "./slow")
			require.NoError(t, cmd.Start())
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var pid int
			for deadline := time.Now().Add(2 * time.Minute); pid == 0; {
				if b, err := os.ReadFile(marker); err == nil && len(b) > 0 {
					pid, _ = strconv.Atoi(string(b))
					continue
				}
				select {
				case err := <-done:
					require.Failf(t, "compare ended before the benchmark ran", "%v\n%s", err, out)
				case <-time.After(20 * time.Millisecond):
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					require.Failf(t, "the benchmark did not start", "%s", out)
				}
			}
			require.NoError(t, cmd.Process.Signal(sig))
			var err error
			select {
			case err = <-done:
			case <-time.After(time.Minute):
				cmd.Process.Kill()
				require.Failf(t, "compare did not end after the signal", "%v\n%s", sig, out)
			}
			var ee *exec.ExitError
			if assert.ErrorAs(t, err, &ee, "compare after %v\n%s", sig, out) {
				assert.Equal(t, exitFailure, ee.ExitCode(), "compare after %v: exit status\n%s", sig, out)
			}
			assert.Contains(t, out.String(), "signal received", "the message does not say a signal stopped it:\n%s", out)
			assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "the benchmark process %d still exists", pid)
			after := gitRun(t, dir, "worktree", "list")
			assert.Equal(t, before, after, "git worktree list after %v:\n%s\nwant\n%s", sig, after, before)
			l := leftovers(t, filepath.Join(cache, "wt"))
			assert.Empty(t, l, "left in $NETBENCH_CACHE/wt: %v", l)
			for _, name := range leftovers(t, filepath.Join(cache, "bin")) {
				assert.False(t, strings.HasPrefix(name, "."), "temporary build directory left in the cache: %s", name)
			}
		})
	}
}

// TestComparePipeClosed: `netbench compare … | head -1` closes the pipe on
// standard output while compare still has to write to it. Go kills a
// process that writes to a broken pipe on fd 1 or 2 with SIGPIPE unless it
// asks for the signal, and then no deferred clean-up runs: the worktree of
// HEAD stayed registered, its directory under $NETBENCH_CACHE/wt and the
// work tree's test binaries in $TMPDIR/netbench-wt-* stayed behind.
//
// "stdout" closes only standard output, which compare writes once, at the
// end; "stdout and stderr" is `2>&1 | head -1`, whose first progress line
// already hits the closed pipe, in the middle of the compare.
func TestComparePipeClosed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs revisions")
	}
	for _, both := range []bool{false, true} {
		name := "stdout"
		if both {
			name = "stdout and stderr"
		}
		t.Run(name, func(t *testing.T) {
			cache, tmp := t.TempDir(), t.TempDir()
			marker := filepath.Join(t.TempDir(), "pid")
			sleep := time.Millisecond
			if both {
				sleep = time.Hour // only the closed pipe can end this compare
			}
			dir, _ := newModule(t, map[string]string{"slow/slow_test.go": slowBench(sleep)})
			before := gitRun(t, dir, "worktree", "list")
			cmd, out := netbenchCommand(t, dir, []string{"NETBENCH_CACHE=" + cache, "NETBENCH_TEST_MARKER=" + marker, "TMPDIR=" + tmp},
				"compare", "-count", "6", "-benchtime", "1x", "-threshold", "1000", "HEAD", ".", "./slow")
			r, w, err := os.Pipe()
			require.NoError(t, err)
			require.NoError(t, r.Close()) // head -1 has gone
			cmd.Stdout = w
			if both {
				cmd.Stderr = w
			}
			require.NoError(t, cmd.Start())
			w.Close()
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(2 * time.Minute):
				cmd.Process.Kill()
				require.Failf(t, "compare did not end with its output pipe closed", "%s", out)
			}
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee, "output:\n%s", out)
			ws := ee.Sys().(syscall.WaitStatus)
			assert.False(t, ws.Signaled(), "compare was killed by %v, not left through its clean-ups\n%s", ws.Signal(), out)
			assert.Equal(t, exitFailure, ee.ExitCode(), "output:\n%s", out)
			if !both {
				assert.Contains(t, out.String(), "broken pipe")
			}
			if b, err := os.ReadFile(marker); err == nil && len(b) > 0 {
				pid, _ := strconv.Atoi(string(b))
				assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "the benchmark process %d still exists", pid)
			}
			assert.Equal(t, before, gitRun(t, dir, "worktree", "list"), "git worktree list after the pipe closed")
			assert.Empty(t, leftovers(t, filepath.Join(cache, "wt")), "left in $NETBENCH_CACHE/wt")
			for _, name := range leftovers(t, tmp) {
				assert.False(t, strings.HasPrefix(name, "netbench-"), "left in $TMPDIR: %s", name)
			}
			for _, name := range leftovers(t, filepath.Join(cache, "bin")) {
				assert.False(t, strings.HasPrefix(name, "."), "temporary build directory left in the cache: %s", name)
			}
		})
	}
}

// TestCompareNohup: a SIGHUP ignored when netbench starts (nohup) stays
// ignored; catching it to clean up must not turn nohup's hang-up into a
// stop. SIGTERM then stops it through its clean-ups.
func TestCompareNohup(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs revisions")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	cache := t.TempDir()
	marker := filepath.Join(t.TempDir(), "pid")
	dir, _ := newModule(t, map[string]string{"slow/slow_test.go": slowBench(time.Hour)})
	cmd, out := netbenchCommand(t, dir, []string{"NETBENCH_CACHE=" + cache, "NETBENCH_TEST_MARKER=" + marker},
		"compare", "-count", "6", "-benchtime", "1x", "HEAD", "HEAD", "./slow")
	cmd.Path, cmd.Args = sh, append([]string{"sh", "-c", `trap "" HUP; exec "$0" "$@"`}, cmd.Args...)
	done := startUntilMarker(t, cmd, out, marker, "the benchmark ran")
	require.NoError(t, cmd.Process.Signal(syscall.SIGHUP))
	select {
	case err := <-done:
		require.Failf(t, "compare under nohup ended after SIGHUP", "%v\n%s", err, out)
	case <-time.After(time.Second):
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		require.Failf(t, "compare did not end after SIGTERM", "%s", out)
	}
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, exitFailure, ee.ExitCode(), "output:\n%s", out)
	assert.Contains(t, out.String(), "terminated signal received")
	assert.Empty(t, leftovers(t, filepath.Join(cache, "wt")), "left in $NETBENCH_CACHE/wt")
}
