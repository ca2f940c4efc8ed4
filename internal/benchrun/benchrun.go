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
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/netkit/netkit/internal/benchnoise"
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

	// Pin lists the CPUs the binary's runs are pinned to (every thread of
	// them, with sched_setaffinity); nil runs it where netbench may run.
	Pin []int
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
		ok, err := buildTest(ctx, opts.Dir, p.ImportPath, p.Binary, buildFlags)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue // no test binary: nothing to run
		}
		if kept, err = keepBenchmarks(ctx, kept, p, opts.Bench); err != nil {
			return nil, err
		}
	}
	return kept, nil
}

// keepBenchmarks lists the benchmarks of p's built binary that bench may
// run and appends p, with them, to kept when there are any.
func keepBenchmarks(ctx context.Context, kept []Package, p Package, bench string) ([]Package, error) {
	names, err := listBenchmarks(ctx, p, bench)
	if err != nil {
		return nil, err
	}
	if len(names) > 0 {
		p.Benchmarks = names
		kept = append(kept, p)
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

// listBenchmarks returns the top-level benchmarks of p's binary that bench
// may run. -test.list matches top-level names only, so it gets the first
// level of each alternative of bench (see splitBench): "Foo/size=64" lists
// BenchmarkFoo, as go test would run it.
func listBenchmarks(ctx context.Context, p Package, bench string) ([]string, error) {
	cmd := exec.CommandContext(ctx, p.Binary, "-test.list", listPattern(bench))
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
//
// The binary runs with -test.v=test2json, as under go test -json: the
// testing package then prints each result line whole, after the benchmark
// has run, and frames its own lines with a ^V marker, so what a benchmark
// prints can neither split a result line nor pass for one (see scanner).
// The binary's standard error goes to the same pipe, as go test -json has
// it; a RunError carries the end of both. The first error writing to w
// stops the binary (its results would go nowhere) and is returned,
// wrapped, instead of a RunError.
func (p Package) Run(ctx context.Context, opts Options, w io.Writer, onResult func(name string)) error {
	count := max(opts.Count, 1)
	args := []string{"-test.run", "^$", "-test.bench", benchOrAll(opts.Bench), "-test.benchmem", "-test.count", strconv.Itoa(count), "-test.v=test2json"}
	if opts.Benchtime != "" {
		args = append(args, "-test.benchtime", opts.Benchtime)
	}
	if opts.CPU != "" {
		args = append(args, "-test.cpu", opts.CPU)
	}
	if opts.Timeout > 0 {
		args = append(args, "-test.timeout", opts.Timeout.String())
	}
	return p.exec(ctx, args, w, onResult)
}

// exec runs p's binary with args, which must include -test.v=test2json,
// and copies the configuration and result lines it prints to w, as Run
// describes.
func (p Package) exec(ctx context.Context, args []string, w io.Writer, onResult func(name string)) error {
	// A failed write stops the binary: its results would go nowhere.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	cmd := exec.CommandContext(ctx, p.Binary, args...)
	cmd.Dir = p.Dir
	var log tailBuffer
	cmd.Stderr = &log // what the runtime writes to fd 2 itself (a crash)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := benchnoise.StartPinned(cmd, p.Pin); err != nil {
		return err
	}
	var sc scanner
	br := bufio.NewReaderSize(stdout, 64<<10)
	var buf []byte
	var werr error
	for {
		var rerr error
		buf, rerr = readLine(br, buf[:0])
		if len(buf) == 0 && rerr != nil {
			break // io.EOF, or the pipe failed: Wait reports how the binary ended
		}
		line := strings.TrimRight(string(buf), "\r\n")
		log.Write([]byte(strings.ReplaceAll(line, marker, "") + "\n"))
		for _, seg := range splitMarker(line) {
			for _, out := range sc.line(seg) {
				if werr == nil {
					if _, werr = io.WriteString(w, out+"\n"); werr != nil {
						stop()
					}
				}
				if onResult != nil && isResult(out) {
					onResult(topLevel(out))
				}
			}
		}
		if rerr != nil {
			break
		}
	}
	err = cmd.Wait()
	if werr != nil {
		return fmt.Errorf("benchrun: writing the results of %s: %w", p.ImportPath, werr)
	}
	if err == nil && sc.failed {
		err = errors.New("a benchmark failed")
	}
	if err != nil {
		return &RunError{ImportPath: p.ImportPath, Err: err, Output: log.String()}
	}
	return nil
}

func benchOrAll(bench string) string {
	if bench == "" {
		return "."
	}
	return bench
}

// marker starts every line the testing package frames under
// -test.v=test2json ("=== RUN", "--- FAIL" …). As cmd/test2json does, a
// marker inside a line also ends the text before it, which a benchmark
// printed without a newline.
const marker = "\x16"

// splitMarker splits line before every marker that does not start it.
func splitMarker(line string) []string {
	var segs []string
	for {
		i := strings.Index(line[min(1, len(line)):], marker)
		if i < 0 {
			return append(segs, line)
		}
		segs = append(segs, line[:i+1])
		line = line[i+1:]
	}
}

// configKeys are the configuration lines the testing package prints before
// the first benchmark, in this order (pkg and cpu may be absent).
var configKeys = []string{"goos", "goarch", "pkg", "cpu"}

// scanner picks the configuration and result lines out of the output of a
// test binary run with -test.v=test2json. The testing package prints:
//
//	goos: linux               once, right before the first framing line
//	goarch: amd64
//	pkg: example.com/m
//	cpu: …
//	^V=== RUN   BenchmarkX    before a benchmark runs (once per name)
//	BenchmarkX                the name alone (not a result)
//	…                         anything the benchmark prints
//	BenchmarkX-2 \t 100 \t …  the result, printed after the run
//	^V=== NAME                after each result
//	^V--- FAIL: BenchmarkX    and --- SKIP, --- BENCH (followed by logs)
//
// A result is therefore the last line before "=== NAME" (empty) that ends
// in the current benchmark's name and a measurement; text a benchmark
// printed without a newline may precede it on the line. Configuration lines
// are only the goos…cpu block directly before the first framing line.
type scanner struct {
	framed  bool     // a framing line was seen
	config  []string // candidate configuration block
	cur     string   // the benchmark that runs, from "=== RUN"
	collect bool     // lines may be results of cur
	pending string   // the last result-shaped line of cur since the last framing line
	failed  bool     // "--- FAIL" or "FAIL" was framed
}

// line takes one line (without its newline) and returns the lines to
// write, if any.
func (s *scanner) line(l string) []string {
	if !strings.HasPrefix(l, marker) {
		switch {
		case !s.framed:
			switch {
			case s.isConfigLine(l):
				s.config = append(s.config, l)
			case strings.HasPrefix(l, "goos: "):
				s.config = []string{l} // what came before was printed by the tests
			default:
				s.config = nil
			}
		case s.collect:
			if r, ok := resultOf(l, s.cur); ok {
				s.pending = r
			}
		}
		return nil
	}
	var out []string
	if !s.framed {
		s.framed = true
		if len(s.config) > 0 && strings.HasPrefix(s.config[0], "goos: ") {
			out = s.config
		}
		s.config = nil
	}
	l = l[len(marker):]
	pending := s.pending
	s.pending, s.collect = "", false
	switch {
	case strings.HasPrefix(l, "=== RUN   "):
		s.cur, s.collect = l[len("=== RUN   "):], true
	case strings.TrimRight(l, " ") == "=== NAME":
		if pending != "" {
			out = append(out, pending)
		}
		s.collect = true // the next run of cur (-count, -cpu)
	case strings.HasPrefix(l, "=== NAME  "):
		s.cur, s.collect = l[len("=== NAME  "):], true
	case strings.HasPrefix(l, "--- FAIL: ") || l == "FAIL" || strings.HasPrefix(l, "FAIL\t"):
		s.failed = true
	}
	return out
}

// isConfigLine reports whether l may be the next line of the configuration
// block the testing package prints.
func (s *scanner) isConfigLine(l string) bool {
	key, _, ok := strings.Cut(l, ": ")
	if !ok {
		return false
	}
	i := len(s.config)
	for _, c := range s.config {
		if strings.HasPrefix(c, key+": ") {
			return false
		}
	}
	if i == 0 {
		return key == "goos"
	}
	return slices.Contains(configKeys, key)
}

// resultOf returns the result line at the end of l for the benchmark
// named name: name, with its -GOMAXPROCS suffix when not 1, the padding and
// a tab, then the measurements. Text before it is what the benchmark
// printed without a newline.
func resultOf(l, name string) (string, bool) {
	if name == "" {
		return "", false
	}
	for end := len(l); ; {
		i := strings.LastIndex(l[:end], name)
		if i < 0 {
			return "", false
		}
		if r := l[i:]; isResult(r) && resultName(r, name) {
			return r, true
		}
		end = i
	}
}

// resultName reports whether result line r starts with name, an optional
// -N suffix, spaces and the tab the testing package prints.
func resultName(r, name string) bool {
	rest := r[len(name):]
	if strings.HasPrefix(rest, "-") {
		if d := strings.TrimLeft(rest[1:], "0123456789"); len(d) < len(rest)-1 {
			rest = d
		}
	}
	return strings.HasPrefix(strings.TrimLeft(rest, " "), "\t")
}

// maxLine is the longest line Run keeps; longer lines keep their last
// maxLine bytes, where a result line would be (no benchmark or
// configuration line is that long).
const maxLine = 1 << 20

// readLine appends the next line of br to buf, the last maxLine bytes of it
// at most, and always consumes the whole line.
func readLine(br *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		frag, err := br.ReadSlice('\n')
		buf = append(buf, frag...)
		if len(buf) > 2*maxLine {
			buf = append(buf[:0], buf[len(buf)-maxLine:]...)
		}
		if err != bufio.ErrBufferFull {
			if len(buf) > maxLine {
				buf = append(buf[:0], buf[len(buf)-maxLine:]...)
			}
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
