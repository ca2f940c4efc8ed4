// Package benchproc holds what the peers module's process benchmarks
// (echobench, httpbench) share for running benchmark servers as pinned
// child processes and measuring them: starting a process of the benchmark
// binary in its own process group, pinned to a CPU with taskset, reading
// its stdout lines, failing with its stderr, waiting for and killing its
// group; reading a process's CPU time from /proc/<pid>/stat, its threads'
// context switches and its read and write calls from /proc, and counting
// its system calls with perf stat over a window; the registry
// of servers a binary can run and its serve subcommand; the command-line
// plumbing of the runners; and the median and ratio of their tables.
package benchproc

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Child is a process of the benchmark binary in its own process group,
// killed with its group on every exit path.
type Child struct {
	Cmd    *exec.Cmd
	Stdin  io.WriteCloser
	lines  *bufio.Scanner
	stderr *syncBuffer
	done   chan struct{}
	err    error
}

// Pinned returns the command line that runs name with args on CPU cpu
// (through taskset) when pin is set, and name with args unchanged when not.
func Pinned(pin bool, cpu int, name string, args ...string) (string, []string) {
	if pin {
		return "taskset", append([]string{"-c", strconv.Itoa(cpu), name}, args...)
	}
	return name, args
}

// Start starts exe with args in a process group of its own, on CPU cpu
// when pin is set, with env added to its environment. The end of ctx kills
// its group.
func Start(ctx context.Context, exe string, cpu int, pin bool, env []string, args ...string) (*Child, error) {
	name, argv := Pinned(pin, cpu, exe, args...)
	cmd := exec.Command(name, argv...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c := &Child{Cmd: cmd, stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stderr = c.stderr
	var err error
	if c.Stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c.lines = bufio.NewScanner(out)
	go func() {
		select {
		case <-ctx.Done():
			c.kill()
		case <-c.done:
		}
	}()
	return c, nil
}

// StartServer starts exe's "serve -impl impl -addr 127.0.0.1:0" with Start
// on CPU 0 and reads its first line, "listening <addr>". Stop it with Stop.
func StartServer(ctx context.Context, exe string, pin bool, env []string, impl string) (*Child, string, error) {
	c, err := Start(ctx, exe, 0, pin, env, "serve", "-impl", impl, "-addr", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	first, err := c.Line()
	if err != nil {
		c.Stdin.Close()
		return nil, "", err
	}
	addr, ok := strings.CutPrefix(first, "listening ")
	if !ok {
		err := c.Fail(fmt.Errorf("server's first line is %q, want \"listening <addr>\"", first))
		c.Stdin.Close()
		return nil, "", err
	}
	return c, addr, nil
}

// Stop asks a server started with StartServer to stop (closes its stdin)
// and waits up to 5 seconds for it to exit.
func (c *Child) Stop() error {
	c.Stdin.Close()
	if err := c.Wait(5 * time.Second); err != nil {
		return c.Fail(fmt.Errorf("server exit: %w", err))
	}
	return nil
}

// Pid is the child's process id.
func (c *Child) Pid() int { return c.Cmd.Process.Pid }

func (c *Child) kill() {
	// The whole group: taskset execs, but be sure nothing is left behind.
	syscall.Kill(-c.Cmd.Process.Pid, syscall.SIGKILL)
}

// Line returns the next stdout line, or an error with the child's stderr.
func (c *Child) Line() (string, error) {
	if c.lines.Scan() {
		return c.lines.Text(), nil
	}
	err := c.lines.Err()
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return "", c.Fail(err)
}

// Fail waits up to 2 seconds for the child to exit and returns err with
// the child's command line, its exit error and its stderr.
func (c *Child) Fail(err error) error {
	c.Wait(2 * time.Second)
	msg := strings.TrimSpace(c.stderr.String())
	if c.err != nil {
		err = fmt.Errorf("%w (%v)", err, c.err)
	}
	if msg != "" {
		return fmt.Errorf("%s: %w; its stderr:\n%s", c.Cmd.Args, err, msg)
	}
	return fmt.Errorf("%s: %w", c.Cmd.Args, err)
}

// Wait waits up to d for the child to exit, then kills its group.
func (c *Child) Wait(d time.Duration) error {
	select {
	case <-c.done:
		return c.err
	default:
	}
	exited := make(chan struct{})
	go func() {
		c.err = c.Cmd.Wait()
		close(exited)
	}()
	select {
	case <-exited:
	case <-time.After(d):
		c.kill()
		<-exited
		if c.err == nil {
			c.err = fmt.Errorf("killed after %v", d)
		}
	}
	c.kill() // anything the child itself started
	close(c.done)
	return c.err
}

// CanPin reports whether the server and the load (named load in the
// warning) can have a CPU each (taskset present, CPUs 0 and 1 both
// allowed); if not it says so loudly on stderr, as prog.
func CanPin(stderr io.Writer, prog, load string) bool {
	warn := func(why string) bool {
		fmt.Fprintf(stderr, "\n*** %s: WARNING: %s: server and %s run UNPINNED and share CPUs; the numbers are noisier and not comparable with pinned runs ***\n\n", prog, why, load)
		return false
	}
	if _, err := exec.LookPath("taskset"); err != nil {
		return warn("taskset not found")
	}
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return warn("sched_getaffinity: " + err.Error())
	}
	if !set.IsSet(0) || !set.IsSet(1) {
		return warn(fmt.Sprintf("CPUs 0 and 1 are not both available (%d CPU(s) allowed)", set.Count()))
	}
	return true
}

// clockTicks is USER_HZ, 100 on every Linux architecture Go runs on.
const clockTicks = 100

// ProcCPU is the process's utime+stime in seconds (/proc/<pid>/stat).
func ProcCPU(pid int) (float64, error) {
	user, sys, err := ProcTimes(pid)
	return user + sys, err
}

// ProcTimes is the process's user time (utime) and system time (stime) in
// seconds (/proc/<pid>/stat).
func ProcTimes(pid int) (user, sys float64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, err
	}
	// The command name may hold spaces; the fields follow its ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: no ')'", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	// Fields 14 and 15 of stat(5); f[0] is field 3.
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, 0, err
	}
	return float64(ut) / clockTicks, float64(st) / clockTicks, nil
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// ProcMem is the process's resident set now (VmRSS) and its peak (VmHWM),
// in bytes, from /proc/<pid>/status.
func ProcMem(pid int) (rss, peak int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	return ParseMem(b)
}

// ParseMem reads VmRSS and VmHWM (kB) from a /proc/<pid>/status text, in
// bytes.
func ParseMem(status []byte) (rss, peak int64, err error) {
	var haveRSS, havePeak bool
	for line := range bytes.Lines(status) {
		f := strings.Fields(string(line))
		if len(f) != 3 || f[2] != "kB" {
			continue
		}
		var dst *int64
		switch f[0] {
		case "VmRSS:":
			dst, haveRSS = &rss, true
		case "VmHWM:":
			dst, havePeak = &peak, true
		default:
			continue
		}
		kb, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("status line %q: %w", bytes.TrimSpace(line), err)
		}
		*dst = kb << 10
	}
	if !haveRSS || !havePeak {
		return 0, 0, errors.New("status has no VmRSS or VmHWM line")
	}
	return rss, peak, nil
}
