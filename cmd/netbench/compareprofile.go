package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/netkit/netkit/internal/benchcmp"
	"github.com/netkit/netkit/internal/benchprof"
	"github.com/netkit/netkit/internal/benchrun"
)

// profileFlag is the value of compare's -profile: off, on with the default
// directory (-profile), or on with a directory (-profile=dir). As a
// boolean flag it takes no separate argument: "-profile dir" would read
// dir as a revision.
type profileFlag struct {
	on  bool
	dir string // "" is the default
}

func (p *profileFlag) String() string {
	switch {
	case p == nil || !p.on:
		return "false"
	case p.dir == "":
		return "true"
	}
	return p.dir
}

// Set takes "true" and "false" as a boolean flag does; anything else is
// the directory (write ./true for a directory of that name).
func (p *profileFlag) Set(s string) error {
	switch s {
	case "true":
		p.on, p.dir = true, ""
	case "false":
		p.on, p.dir = false, ""
	case "":
		return errors.New("want -profile or -profile=dir")
	default:
		p.on, p.dir = true, s
	}
	return nil
}

// IsBoolFlag lets -profile stand alone.
func (p *profileFlag) IsBoolFlag() bool { return true }

// profiled reports whether compare -profile profiles the benchmark of row
// j: it fails the gate in a unit of time (sec/op, or a -gate unit such as
// B/s). allocs/op and B/op failures get no profile: a CPU profile does not
// explain them, and an allocation profile is what netbench profile is for.
func profiled(j benchcmp.Judged) bool {
	return j.Fails && j.Unit != "allocs/op" && j.Unit != "B/op"
}

// compareProfileDir returns the default directory of compare -profile:
// beside the -o file (report.html gives report-profiles), or
// netbench-profiles/compare-<old>-<new> under the current directory, which
// git ignores (ignoreProfilesDir).
func compareProfileDir(out string, revs []*revision) string {
	if out != "" {
		return strings.TrimSuffix(out, filepath.Ext(out)) + "-profiles"
	}
	return filepath.Join(profilesDir, "compare-"+shortCommit(revs[0])+"-"+shortCommit(revs[1]))
}

// shortCommit names a revision in a file name: the first 12 digits of its
// commit, "-worktree" added for the work tree.
func shortCommit(r *revision) string {
	c, wt := strings.CutSuffix(r.commit, "+worktree")
	c = c[:min(12, len(c))]
	if wt {
		c += "-worktree"
	}
	return c
}

// profileFailures profiles, for every benchmark with a row that profiled
// accepts, its timed region (benchprof.Run, two runs) with the old
// revision's binary and with the new one's, writing
// <dir>/<package>/<benchmark>.old.cpu.pprof, .old.cpu.small.pprof,
// .new.cpu.pprof and .new.cpu.small.pprof, and then the differential flame
// graph of the two per-operation differences, <benchmark>.diff.html. It runs nothing and
// creates no directory when no row fails.
//
// It returns the flame graphs written, keyed by Pkg + "\t" + Name of the
// failing rows (every failing row of a benchmark, whatever its unit, maps
// to the benchmark's graph), as paths relative to linkBase, slash-separated:
// the links of an HTML report written in linkBase. A benchmark that
// cannot be profiled is reported on w and skipped, so that a failed
// profile never hides the verdict; only a cancelled ctx is an error.
func profileFailures(ctx context.Context, w io.Writer, prog *progress, opts benchrun.Options, judged []benchcmp.Judged, revs []*revision, dir, linkBase string, renames renameFlags) (map[string]string, error) {
	type bench struct{ pkg, name string }
	var (
		todo []bench
		rows = map[bench][]string{} // the keys of the failing rows of each
	)
	for _, j := range judged {
		if !profiled(j) {
			continue
		}
		b := bench{j.Pkg, "Benchmark" + j.Name}
		if rows[b] == nil {
			todo = append(todo, b)
		}
		rows[b] = append(rows[b], j.Pkg+"\t"+j.Name)
	}
	links := map[string]string{}
	if len(todo) == 0 {
		return links, nil
	}
	popts := profileOptions(opts)
	prog.logf("profiling %d benchmark(s) that fail the gate, on both revisions, into %s", len(todo), dir)
	var names slugs
	for i, b := range todo {
		base := inDir(dir, names.file(slug(b.pkg), slug(strings.TrimPrefix(b.name, "Benchmark"))))
		prog.logf("[%d/%d] profiling %s %s", i+1, len(todo), b.pkg, b.name)
		var perOp [2]*benchprof.Result
		err := os.MkdirAll(filepath.Dir(base), 0o755)
		for k, r := range revs {
			if err != nil {
				break
			}
			p, ok := findPackage(r.pkgs, b.pkg)
			if !ok {
				err = fmt.Errorf("revision %s has no package %s", r.arg, b.pkg)
				break
			}
			perOp[k], err = profilePerOpSide(ctx, p, popts, b.name, base+"."+[2]string{"old", "new"}[k])
		}
		if ctx.Err() != nil {
			return links, context.Cause(ctx)
		}
		if err != nil {
			fmt.Fprintf(w, "netbench: warning: no profile of %s %s: %v\n", b.pkg, b.name, err)
			continue
		}
		flame := base + ".diff.html"
		err = writePerOpDiff(perOp[0], perOp[1], renames, flame, fmt.Sprintf("%s %s: %s → %s (CPU)", b.pkg, b.name, label(revs[0]), label(revs[1])))
		if err != nil {
			fmt.Fprintf(w, "netbench: warning: no flame graph of %s %s: %v\n", b.pkg, b.name, err)
			continue
		}
		href, err := relPath(linkBase, flame)
		if err != nil {
			return links, err
		}
		for _, key := range rows[b] {
			links[key] = href
		}
	}
	return links, nil
}

// minProfileTime is the shortest -benchtime of compare's profiling: the
// time of the timed loop that the difference of the two profiled runs
// holds, enough samples for a flame graph.
const minProfileTime = time.Second

// profileOptions returns the options of compare's profiling runs: opts,
// with a time -benchtime shorter than minProfileTime raised to it (a count
// such as 1000x is kept: it says how much work to do).
func profileOptions(opts benchrun.Options) benchrun.Options {
	if d, err := time.ParseDuration(opts.Benchtime); opts.Benchtime == "" || err == nil && d < minProfileTime {
		opts.Benchtime = minProfileTime.String()
	}
	return opts
}

// relPath returns the slash-separated path of target relative to base.
func relPath(base, target string) (string, error) {
	b, err := filepath.Abs(base)
	if err != nil {
		return "", err
	}
	t, err := filepath.Abs(target)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(b, t)
	return filepath.ToSlash(rel), err
}

// findPackage returns the package of pkgs with the import path importPath.
func findPackage(pkgs []benchrun.Package, importPath string) (benchrun.Package, bool) {
	for _, p := range pkgs {
		if p.ImportPath == importPath {
			return p, true
		}
	}
	return benchrun.Package{}, false
}
