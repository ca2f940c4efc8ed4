package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/netkit/netkit/internal/benchrun"
)

// profileEntry is one benchmark of a profile directory's index. Paths are
// slash-separated and relative to the directory; Alloc is empty under
// -mem=false, Flame when no flame graph was written. CPU and Alloc are the
// profiles of the larger of the two runs (see timedEntry), Flame is drawn
// from their difference per operation.
type profileEntry struct {
	Pkg       string `json:"pkg"`
	Benchmark string `json:"benchmark"` // full result name, as in run's output
	CPU       string `json:"cpu"`
	Alloc     string `json:"alloc,omitempty"`
	Flame     string `json:"flame,omitempty"`
	timedEntry
}

// A leaf is a benchmark that prints a result: a benchmark without
// sub-benchmarks, at one GOMAXPROCS value.
type leaf struct {
	pkg  benchrun.Package
	name string // result name: "BenchmarkGet/size=64-2"
}

func profileCmd(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("netbench profile", flag.ContinueOnError)
	var f runFlags
	addRunFlags(fs, &f, 1)
	mem := fs.Bool("mem", true, "also write an allocation profile of each benchmark")
	force := fs.Bool("force", false, "write into a non-empty -o directory")
	if help, err := parseFlags(fs, args, stdout); help || err != nil {
		return err
	}
	countSet := false
	fs.Visit(func(fl *flag.Flag) { countSet = countSet || fl.Name == "count" })
	if countSet {
		return usageError("profile runs each benchmark once: -count does not apply")
	}
	if err := f.check(); err != nil {
		return err
	}
	opts := f.opts
	opts.Packages = fs.Args()
	dir := f.out
	if dir == "" {
		d, err := defaultProfileDir(ctx)
		if err != nil {
			return fail(err)
		}
		dir = d
	}
	if err := checkProfileDir(dir, *force); err != nil {
		return err
	}

	prog := newProgress(stderr)
	pkgs, remove, err := buildBenchmarks(ctx, opts, prog)
	if err != nil {
		return err
	}
	defer remove()
	prog.logf("listing the benchmarks of %d packages (one run each, -benchtime 1x)", len(pkgs))
	leaves, err := findLeaves(ctx, opts, pkgs)
	if err != nil {
		return fail(err)
	}
	if len(leaves) == 0 {
		return usageError("no benchmark of %v printed a result under -bench %q (all skipped?)", packagesOrDefault(opts.Packages), opts.Bench)
	}

	if f.out == "" {
		if err := ignoreProfilesDir(); err != nil {
			return fail(err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(err)
	}
	var (
		entries []profileEntry
		names   slugs
	)
	for i, l := range leaves {
		base := names.file(slug(l.pkg.ImportPath), slug(strings.TrimPrefix(l.name, "Benchmark")))
		e := profileEntry{Pkg: l.pkg.ImportPath, Benchmark: l.name, CPU: base + ".cpu.pprof"}
		if *mem {
			e.Alloc = base + ".alloc.pprof"
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(path.Dir(base))), 0o755); err != nil {
			return fail(err)
		}
		prog.logf("[%d/%d] profiling %s %s (two runs, to subtract what does not grow with b.N)", i+1, len(leaves), l.pkg.ImportPath, l.name)
		if err := profileTimed(ctx, stderr, l.pkg, opts, dir, base, &e); err != nil {
			return fail(err)
		}
		entries = append(entries, e)
	}
	if err := writeProfileIndex(dir, entries); err != nil {
		return fail(err)
	}
	prog.logf("wrote %d profiles to %s (index.txt, index.json)", len(entries), dir)
	return nil
}

// inDir returns the path of rel, slash-separated and relative to dir, or ""
// for "".
func inDir(dir, rel string) string {
	if rel == "" {
		return ""
	}
	return filepath.Join(dir, filepath.FromSlash(rel))
}

// profilesDir is the directory, under the current one, of the default
// output of profile and of compare -profile.
const profilesDir = "netbench-profiles"

// ignoreProfilesDir creates profilesDir with a .gitignore of "*" in it,
// unless it has a .gitignore already, as go's and pytest's caches do: the
// profiles are not part of the work tree they measure, and untracked they
// would make it dirty, so that the next run's commit ended in "-dirty" and
// the next profile of the same commit went to another directory.
func ignoreProfilesDir() error {
	if err := os.MkdirAll(profilesDir, 0o755); err != nil {
		return err
	}
	name := filepath.Join(profilesDir, ".gitignore")
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = f.WriteString("# Written by netbench: profiles are not part of the work tree they measure.\n*\n")
	return errors.Join(err, f.Close())
}

// defaultProfileDir returns netbench-profiles/<commit> under the current
// directory: the first 12 digits of HEAD, with "-dirty" when the work
// tree has changes. The directory is ignored by git (ignoreProfilesDir).
func defaultProfileDir(ctx context.Context) (string, error) {
	config, err := benchrun.Config(ctx, "")
	if err != nil {
		return "", fmt.Errorf("%w (outside a git repository, name the directory with -o)", err)
	}
	for _, line := range config {
		if c, ok := strings.CutPrefix(line, "commit: "); ok {
			hash, dirty := strings.CutSuffix(c, "-dirty")
			name := hash[:min(12, len(hash))]
			if dirty {
				name += "-dirty"
			}
			return filepath.Join(profilesDir, name), nil
		}
	}
	return "", errors.New("no commit line in the configuration")
}

// checkProfileDir refuses a directory that exists and is not empty, unless
// force: its old profiles would mix with the new ones. It is checked
// before anything is built.
func checkProfileDir(dir string, force bool) error {
	ents, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fail(err)
	case len(ents) > 0 && !force:
		return usageError("%s is not empty: remove it, choose another -o, or give -force to overwrite the profiles it holds", dir)
	}
	return nil
}

// findLeaves runs the benchmarks of each package once (-benchtime 1x) and
// returns those that printed a result, in the order they ran, at every
// -cpu value.
func findLeaves(ctx context.Context, opts benchrun.Options, pkgs []benchrun.Package) ([]leaf, error) {
	quick := opts
	quick.Count, quick.Benchtime = 1, "1x"
	var leaves []leaf
	for _, p := range pkgs {
		var out bytes.Buffer
		if err := p.Run(ctx, quick, &out, nil); err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for line := range strings.Lines(out.String()) {
			if !strings.HasPrefix(line, "Benchmark") {
				continue // a configuration line: Run writes no others
			}
			name := strings.Fields(line)[0]
			if !seen[name] {
				seen[name] = true
				leaves = append(leaves, leaf{p, name})
			}
		}
	}
	return leaves, nil
}

// writeProfileIndex writes index.json and index.txt, which list the
// profiles of dir.
func writeProfileIndex(dir string, entries []profileEntry) error {
	js, err := json.MarshalIndent(entries, "", "\t")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "index.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	var txt bytes.Buffer
	fmt.Fprintf(&txt, "# Profiles of one benchmark each; open one with: go tool pprof -http=: FILE\n")
	tw := tabwriter.NewWriter(&txt, 0, 8, 2, ' ', 0)
	fmt.Fprintf(&txt, "# Flame graphs per operation: the difference of two runs, what does not grow with b.N subtracted.\n")
	fmt.Fprintf(&txt, "# outside: the share of the plain CPU profile outside the timed region (of the drawn difference).\n")
	fmt.Fprintln(tw, "package\tbenchmark\tcpu\talloc\tflame\toutside")
	for _, e := range entries {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.Pkg, e.Benchmark, e.CPU, dash(e.Alloc), dash(e.Flame), outsideCell(e))
	}
	tw.Flush()
	return os.WriteFile(filepath.Join(dir, "index.txt"), txt.Bytes(), 0o644)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
