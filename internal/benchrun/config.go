package benchrun

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
)

// Config returns the configuration lines that head a run's output: the
// commit (with "-dirty" when the work tree has changes, untracked files
// that git does not ignore included), the go version that builds the
// binaries, GOMAXPROCS, and a fingerprint of the machine —
// kernel, CPU frequency governor when readable, and the load average when
// the run starts, so results from a busy machine can be told apart.
// goos, goarch, cpu and pkg lines come from the test binaries themselves.
func Config(ctx context.Context, dir string) ([]string, error) {
	commit, err := Commit(ctx, dir, "HEAD")
	if err != nil {
		return nil, err
	}
	// Untracked files count (a new .go file changes what is built);
	// ignored ones do not.
	out, err := git(ctx, dir, "status", "--porcelain", "--untracked-files=normal")
	if err != nil {
		return nil, err
	}
	if out != "" {
		commit += "-dirty"
	}
	goVersion, err := GoVersion(ctx, dir)
	if err != nil {
		return nil, err
	}
	lines := []string{
		"commit: " + commit,
		"go: " + goVersion,
		fmt.Sprintf("gomaxprocs: %d", runtime.GOMAXPROCS(0)),
	}
	if v := readTrim("/proc/sys/kernel/osrelease"); v != "" {
		lines = append(lines, "kernel: "+v)
	}
	if v := readTrim("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"); v != "" {
		lines = append(lines, "governor: "+v)
	}
	if f := strings.Fields(readTrim("/proc/loadavg")); len(f) >= 3 {
		lines = append(lines, "loadavg: "+strings.Join(f[:3], " "))
	}
	return lines, nil
}

func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// GoVersion returns the version of the go command that builds in dir.
func GoVersion(ctx context.Context, dir string) (string, error) {
	v, err := goCmd(ctx, dir, "env", "GOVERSION")
	return strings.TrimSpace(string(v)), err
}
