// Package benchrun builds the test binaries of Go packages once and runs
// their testing.B benchmarks, writing results in the Go benchmark format
// (golang.org/design/14313-benchmark-data-format). It is the machinery
// behind netbench.
package benchrun

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Options says what to build and how to run it. Bench, Count, Benchtime,
// CPU and Timeout mean what the go test flags of the same names mean.
type Options struct {
	Dir       string   // directory the go command runs in; "" is the current one
	Packages  []string // package patterns; none means ./...
	Bench     string   // regexp of benchmarks to run; "" means "."
	Count     int      // runs of each benchmark; 0 means 1
	Benchtime string   // "" leaves the go test default (1s)
	CPU       string   // GOMAXPROCS list, as -cpu
	Timeout   time.Duration
}

// A Package is a package whose test binary has benchmarks.
type Package struct {
	ImportPath string
	Dir        string   // source directory; benchmarks run there, as under go test
	Binary     string   // the built test binary
	Benchmarks []string // top-level benchmark names, in the order they run
}

// A BuildError reports a package whose test binary did not build.
type BuildError struct {
	ImportPath string
	Output     string // the go command's output
}

func (e *BuildError) Error() string {
	return fmt.Sprintf("benchrun: building the tests of %s failed:\n%s", e.ImportPath, e.Output)
}

// A RunError reports a test binary that failed while running benchmarks.
type RunError struct {
	ImportPath string
	Err        error  // how the binary ended
	Output     string // what it printed (the end of it, if long)
}

func (e *RunError) Error() string {
	return fmt.Sprintf("benchrun: benchmarks of %s failed (%v):\n%s", e.ImportPath, e.Err, e.Output)
}

func (e *RunError) Unwrap() error { return e.Err }

// command runs name with args in dir and returns its standard output. A
// failure names the command line and carries its standard error, which is
// also returned for callers that look into it.
func command(ctx context.Context, dir, name string, args ...string) (out []byte, stderr string, err error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	stopGently(cmd)
	var errBuf bytes.Buffer
	cmd.Stderr = &errBuf
	out, err = cmd.Output()
	if err != nil {
		err = fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, errBuf.String())
	}
	return out, errBuf.String(), err
}

// stopGently makes the cancellation of cmd's context interrupt it, as ^C
// would, so that go and git remove their temporary files and the go
// command stops its compilers; it is killed if it has not ended 10s later.
func stopGently(cmd *exec.Cmd) {
	cmd.Cancel = func() error {
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			return cmd.Process.Kill() // no interrupts on this system
		}
		return nil
	}
	cmd.WaitDelay = 10 * time.Second
}

// goCmd runs the go command in dir and returns its standard output.
func goCmd(ctx context.Context, dir string, args ...string) ([]byte, error) {
	out, _, err := command(ctx, dir, "go", args...)
	return out, err
}

// List returns the packages matching opts.Packages that have test files.
func List(ctx context.Context, opts Options) ([]Package, error) {
	patterns := opts.Packages
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	args := append([]string{"list", "-f", "{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}\t{{.Dir}}{{end}}", "--"}, patterns...)
	out, err := goCmd(ctx, opts.Dir, args...)
	if err != nil {
		return nil, err
	}
	var pkgs []Package
	for line := range strings.Lines(string(out)) {
		path, dir, ok := strings.Cut(strings.TrimSpace(line), "\t")
		if ok {
			pkgs = append(pkgs, Package{ImportPath: path, Dir: dir})
		}
	}
	return pkgs, nil
}

// Build builds the test binary of each package into binDir (go test -c,
// with buildFlags) and keeps the packages that have benchmarks matching
// opts.Bench. A package that does not build is a *BuildError.
//
// The binaries are named "<i>-<last element>.test" after the package's
// index in pkgs, so that no two packages share a file (a name derived from
// the import path alone maps a/b_c and a_b/c to one name).
func Build(ctx context.Context, opts Options, pkgs []Package, binDir string, buildFlags ...string) ([]Package, error) {
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return nil, err
	}
	var kept []Package
	for i, p := range pkgs {
		p.Binary = filepath.Join(binDir, strconv.Itoa(i)+"-"+binaryName(p.ImportPath))
		if ok, err := buildTest(ctx, opts.Dir, p.ImportPath, p.Binary, buildFlags); err != nil {
			return nil, err
		} else if !ok {
			continue // no test binary: nothing to run
		}
		names, err := listBenchmarks(ctx, p, opts.Bench)
		if err != nil {
			return nil, err
		}
		if len(names) > 0 {
			p.Benchmarks = names
			kept = append(kept, p)
		}
	}
	return kept, nil
}

// binaryName returns the file name of the test binary of importPath, as
// go test -c names it: the last element of the path and ".test".
func binaryName(importPath string) string {
	return path.Base(importPath) + ".test"
}

// buildTest builds the test binary of the package importPath into out, from
// the directory dir, and reports whether go test -c wrote a binary (it
// writes none for a package without test files).
func buildTest(ctx context.Context, dir, importPath, out string, buildFlags []string) (bool, error) {
	args := append([]string{"test", "-c", "-o", out}, buildFlags...)
	cmd := exec.CommandContext(ctx, "go", append(args, importPath)...)
	cmd.Dir = dir
	stopGently(cmd)
	if msg, err := cmd.CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			return false, context.Cause(ctx)
		}
		return false, &BuildError{ImportPath: importPath, Output: string(msg)}
	}
	_, err := os.Stat(out)
	return err == nil, nil
}

func listBenchmarks(ctx context.Context, p Package, bench string) ([]string, error) {
	if bench == "" {
		bench = "."
	}
	cmd := exec.CommandContext(ctx, p.Binary, "-test.list", bench)
	cmd.Dir = p.Dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, &RunError{ImportPath: p.ImportPath, Err: err, Output: string(out)}
	}
	var names []string
	for line := range strings.Lines(string(out)) {
		if name := strings.TrimSpace(line); strings.HasPrefix(name, "Benchmark") {
			names = append(names, name)
		}
	}
	return names, nil
}

// maxKeep bounds the output a RunError keeps.
const maxKeep = 64 << 10

// Run runs p's benchmarks and copies the lines of the Go benchmark format it
// prints (configuration and result lines) to w. It calls onResult with each
// result line's top-level benchmark name, for progress reports.
func (p Package) Run(ctx context.Context, opts Options, w io.Writer, onResult func(name string)) error {
	bench := opts.Bench
	if bench == "" {
		bench = "."
	}
	count := max(opts.Count, 1)
	args := []string{"-test.run", "^$", "-test.bench", bench, "-test.benchmem", "-test.count", strconv.Itoa(count)}
	if opts.Benchtime != "" {
		args = append(args, "-test.benchtime", opts.Benchtime)
	}
	if opts.CPU != "" {
		args = append(args, "-test.cpu", opts.CPU)
	}
	if opts.Timeout > 0 {
		args = append(args, "-test.timeout", opts.Timeout.String())
	}
	cmd := exec.CommandContext(ctx, p.Binary, args...)
	cmd.Dir = p.Dir
	var log tailBuffer
	cmd.Stderr = &log
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	failed := false
	br := bufio.NewReaderSize(stdout, 64<<10)
	var buf []byte
	for {
		var rerr error
		buf, rerr = readLine(br, buf[:0])
		if len(buf) == 0 && rerr != nil {
			break // io.EOF, or the pipe failed: Wait reports how the binary ended
		}
		line := strings.TrimRight(string(buf), "\r\n")
		log.Write([]byte(line + "\n"))
		switch {
		case isResult(line):
			if onResult != nil {
				onResult(topLevel(line))
			}
			fmt.Fprintln(w, line)
		case isConfig(line):
			fmt.Fprintln(w, line)
		case strings.HasPrefix(line, "--- FAIL") || line == "FAIL":
			failed = true
		}
		if rerr != nil {
			break
		}
	}
	err = cmd.Wait()
	if err == nil && failed {
		err = errors.New("a benchmark failed")
	}
	if err != nil {
		return &RunError{ImportPath: p.ImportPath, Err: err, Output: log.String()}
	}
	return nil
}

// maxLine is the longest line Run keeps; the rest of a longer line is read
// and dropped (no benchmark or configuration line is that long).
const maxLine = 1 << 20

// readLine appends the next line of br to buf, at most maxLine bytes of it,
// and always consumes the whole line.
func readLine(br *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		frag, err := br.ReadSlice('\n')
		if room := maxLine - len(buf); room > 0 {
			buf = append(buf, frag[:min(len(frag), room)]...)
		}
		if err != bufio.ErrBufferFull {
			return buf, err
		}
	}
}

// isResult reports whether line is a benchmark result line: a name
// starting with "Benchmark", an iteration count, then value-unit pairs.
func isResult(line string) bool {
	f := strings.Fields(line)
	if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
		return false
	}
	_, err := strconv.ParseUint(f[1], 10, 64)
	return err == nil
}

// isConfig reports whether line is a configuration line: "key: value" with
// a lower-case key without spaces.
func isConfig(line string) bool {
	key, _, ok := strings.Cut(line, ":")
	if !ok || key == "" || key[0] < 'a' || key[0] > 'z' {
		return false
	}
	return !strings.ContainsAny(key, " \t") && strings.HasPrefix(line[len(key)+1:], " ")
}

// topLevel returns the top-level benchmark name of a result line:
// "BenchmarkGet/size=64-2 …" gives "BenchmarkGet".
func topLevel(line string) string {
	name, _, _ := strings.Cut(line, "\t")
	name = strings.Fields(name)[0]
	if i := strings.IndexByte(name, '/'); i >= 0 {
		return name[:i]
	}
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		if _, err := strconv.Atoi(name[i+1:]); err == nil {
			return name[:i]
		}
	}
	return name
}

// tailBuffer keeps the last maxKeep bytes written to it. It is safe for
// concurrent use: exec copies the child's standard error into it from a
// goroutine of its own while Run adds the standard output lines.
type tailBuffer struct {
	mu  sync.Mutex
	b   []byte
	cut bool // bytes were dropped from the front
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 2*maxKeep {
		t.b = append(t.b[:0], t.b[len(t.b)-maxKeep:]...)
		t.cut = true
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.b) > maxKeep || t.cut {
		return "…\n" + string(t.b[max(0, len(t.b)-maxKeep):])
	}
	return string(t.b)
}
