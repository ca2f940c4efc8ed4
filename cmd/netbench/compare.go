package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"golang.org/x/perf/benchunit"

	"github.com/netkit/netkit/internal/benchcmp"
	"github.com/netkit/netkit/internal/benchinstr"
	"github.com/netkit/netkit/internal/benchrun"
)

// exitRegression is the exit status of a comparison with a gated
// regression.
const exitRegression = 1

// revision is one side of a comparison.
type revision struct {
	arg    string // as given: a revision or "." for the work tree
	commit string
	src    string // module directory the packages are listed from
	pkgs   []benchrun.Package
	out    bytes.Buffer
}

func compareCmd(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("netbench compare", flag.ContinueOnError)
	var f runFlags
	addRunFlags(fs, &f, 10)
	threshold := percent(5)
	fs.Var(&threshold, "threshold", "smallest gated slowdown, in percent (5 or 5%)")
	var (
		alpha      = fs.Float64("alpha", benchcmp.DefaultAlpha, "significance level")
		gateUnits  = fs.String("gate", "", "comma-separated units gated besides sec/op (e.g. B/s)")
		correct    = fs.String("correct", "", `multiple-comparison correction: "" or holm`)
		format     = fs.String("format", "text", "output: text, csv, json, markdown or html")
		seed       = fs.Uint64("seed", uint64(time.Now().UnixNano()), "seed of the run order")
		interleave = fs.Bool("interleave", true, "alternate the revisions round by round; false runs every round of OLD, then of NEW (for measuring what interleaving buys)")
		allowLow   = fs.Bool("allow-low-count", false, "compare even when -count is too low for any p-value to reach -alpha")
		keep       = fs.String("keep", "", "directory to keep each revision's raw results in (old.txt, new.txt)")
		profile    profileFlag
	)
	instr := addInstrFlag(fs)
	fs.Var(&profile, "profile", "profile benchmarks that fail the gate on both revisions, into -profile=dir")
	var renames renameFlags
	fs.Var(&renames, "rename", "with -profile: old=new, a name in OLD's code that is new in NEW's, for the flame graphs (repeatable)")
	help, err := parseFlags(fs, args, stdout)
	if help || err != nil {
		return err
	}
	if fs.NArg() < 2 {
		return usageError("compare needs two revisions: netbench compare OLD NEW [packages]")
	}
	if len(renames) > 0 && !profile.on {
		return usageError("-rename needs -profile")
	}
	if err := checkReportFlags(*format, *correct, *alpha); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	nz, err := newNoise(f.cpuList)
	if err != nil {
		return err
	}
	opts := f.opts
	gate := benchcmp.Gate{Alpha: *alpha, Threshold: float64(threshold) / 100, Holm: *correct == "holm"}
	if gate.Units, err = parseGateUnits(*gateUnits); err != nil {
		return err
	}
	if slices.Contains(gate.Units, benchinstr.Unit) && !instr.on {
		return fail(errInstrUnit)
	}
	warned := false
	if w := benchcmp.SampleWarning(opts.Count, opts.Count, gate.Alpha); w != "" {
		warned = true
		if !*allowLow {
			return usageError("%s, or -allow-low-count to compare anyway (then only allocs/op and B/op can fail the gate)", w)
		}
		fmt.Fprintln(stderr, "netbench: warning:", w)
	}
	opts.Packages = fs.Args()[2:]
	out, err := f.create(stdout)
	if err != nil {
		return err
	}
	defer out.abort()

	cwd, err := os.Getwd()
	if err != nil {
		return fail(err)
	}
	top, err := benchrun.Toplevel(ctx, cwd)
	if err != nil {
		return fail(err)
	}
	if _, err := benchrun.Commit(ctx, top, "HEAD"); errors.Is(err, benchrun.ErrNoCommits) {
		return fail(err)
	}
	rel, err := benchrun.Prefix(ctx, cwd)
	if err != nil {
		return fail(err)
	}
	cache, err := benchrun.CacheDir()
	if err != nil {
		return fail(err)
	}
	prog := newProgress(stderr)
	meter, err := newInstrMeter(*instr, opts.Timeout, prog)
	if err != nil {
		return err
	}
	revs := []*revision{{arg: fs.Arg(0)}, {arg: fs.Arg(1)}}
	for _, r := range revs {
		remove, err := prepare(ctx, r, opts, top, rel, cache, prog)
		if remove != nil {
			defer remove()
		}
		if err != nil {
			return fail(fmt.Errorf("revision %s: %w", r.arg, err))
		}
		nz.pinAll(r.pkgs)
	}
	if len(revs[0].pkgs)+len(revs[1].pkgs) == 0 {
		return usageError("no benchmarks match -bench %q in either revision", opts.Bench)
	}
	revConfigs := make([][]string, len(revs))
	for i, r := range revs {
		if revConfigs[i], err = revisionConfig(ctx, r, opts.CPU); err != nil {
			return fail(fmt.Errorf("revision %s: %w", r.arg, err))
		}
	}
	// The report's environment is taken before the runs, as run's is, so
	// that its load average is the machine's and not netbench's.
	var config []string
	if *format == "html" {
		if config, err = benchrun.Config(ctx, top); err != nil {
			return fail(err)
		}
		config = nz.config(withCPUList(config, opts.CPU), opts.CPU)
	}

	// Interleave: round i runs every package of both revisions once, in
	// the order old-new or new-old, alternating (ABBA) from a random start,
	// so that drift of the machine during the run hits both sides alike.
	rng := rand.New(rand.NewPCG(*seed, 0x6e6574))
	flip := rng.IntN(2) == 1
	once := opts
	once.Count = 1
	start := time.Now()
	nz.mon.Start()
	defer nz.mon.Halt()
	for order := range schedule(revs, opts.Count, *interleave, flip) {
		prog.logf("round %d/%d: %s then %s (elapsed %s)", order.round+1, opts.Count, order.revs[0].arg, order.revs[len(order.revs)-1].arg, time.Since(start).Round(time.Second))
		if err := runRound(ctx, order.revs, once, meter); err != nil {
			keepPartial(stderr, *keep, cache, revs, revConfigs)
			return fail(err)
		}
	}
	if revs[0].commit == revs[1].commit {
		meter.reportSpread(stderr, "A/A (both revisions are "+label(revs[0])+")")
	}

	nz.mon.Stop()
	keptDir, err := keepDir(*keep, cache, revs)
	if err != nil {
		return fail(fmt.Errorf("keeping the results: %w", err))
	}
	// The busy warnings go into the kept files as configuration lines
	// (noise-busy-1: …), so that stat marks the rows as this compare does.
	for i := range revConfigs {
		for k, w := range nz.busy() {
			revConfigs[i] = append(revConfigs[i], fmt.Sprintf("%s%d: %s", busyConfigKey, k+1, w))
		}
	}
	cols, err := keepResults(stderr, keptDir, revs, revConfigs)
	if err != nil {
		return fail(err)
	}
	env := environment(config, revs[0].out.Bytes(), revs[1].out.Bytes())
	rows, err := benchcmp.Compare(&revs[0].out, &revs[1].out, benchcmp.DefaultConfidence)
	if err != nil {
		return fail(err)
	}
	judged := benchcmp.Judge(rows, gate)
	// Both sides the same commit (or both the work tree) is an A/A run.
	diag := nz.diagnose(judged, gate, revs[0].commit == revs[1].commit)
	if *format == "html" || *format == "json" {
		env = append(env, "load: "+nz.mon.Summary())
	}
	// The up-front check knew the count, not how many rows Holm would
	// correct over; a count too low for those is refused after the report
	// is written, so that the runs are not lost.
	lowCount := benchcmp.GateWarning(rows, gate)
	if lowCount != "" && *allowLow && !warned {
		fmt.Fprintln(stderr, "netbench: warning:", lowCount)
	}
	// flameLinks maps the Pkg+"\t"+Name of each row of a profiled
	// benchmark to its differential flame graph, relative to the report's
	// directory: the links of the HTML report.
	var flameLinks map[string]string
	if profile.on {
		dir, linkBase := profile.dir, "."
		if dir == "" {
			dir = compareProfileDir(f.out, revs)
			if f.out == "" && slices.ContainsFunc(judged, profiled) {
				if err := ignoreProfilesDir(); err != nil {
					return fail(err)
				}
			}
		}
		if f.out != "" {
			linkBase = filepath.Dir(f.out)
		}
		if flameLinks, err = profileFailures(ctx, stderr, prog, opts, judged, revs, dir, linkBase, renames); err != nil {
			return fail(err)
		}
	}
	oldName, newName := label(revs[0]), label(revs[1])
	switch *format {
	case "text":
		err = benchcmp.WriteText(out, oldName, newName, judged)
	case "markdown":
		err = benchcmp.WriteMarkdown(out, oldName, newName, judged)
	case "json":
		err = benchcmp.WriteJSONReport(out, benchcmp.JSONReport{Old: cols[0], New: cols[1], Gate: gate, Rows: judged, Environment: env})
	case "csv":
		err = benchcmp.WriteCSV(out, judged)
	case "html":
		err = benchcmp.WriteHTML(out, benchcmp.Report{OldName: oldName, NewName: newName, Env: env, Gate: gate, Rows: judged, Flames: flameLinks})
	}
	if err == nil {
		err = out.commit()
	}
	if err != nil {
		return fail(fmt.Errorf("writing the comparison: %w", err))
	}
	writeCompareNotes(stderr, judged, diag)
	compared := reportOneSided(stderr, judged, revs[0].arg, revs[1].arg)
	if compared == 0 {
		return fail(fmt.Errorf("nothing was compared: no benchmark has results in both %s and %s", revs[0].arg, revs[1].arg))
	}
	if err := checkGateUnits(gate.Units, rows); err != nil {
		return err
	}
	if lowCount != "" && !*allowLow {
		return usageError("this comparison cannot gate a slowdown: %s, or -allow-low-count to accept it (then only allocs/op and B/op can fail the gate)", lowCount)
	}
	return gateError(judged, threshold, *alpha)
}

// environment returns the environment lines of an HTML report: config
// without its commit line (that is the HEAD of the repository netbench runs
// in, not either compared revision, which the report names), then the goos,
// goarch, pkg and cpu lines the test binaries printed in outs, each line
// once.
func environment(config []string, outs ...[]byte) []string {
	env := slices.DeleteFunc(slices.Clone(config), func(l string) bool { return strings.HasPrefix(l, "commit: ") })
	seen := map[string]bool{}
	for _, out := range outs {
		for line := range strings.Lines(string(out)) {
			line = strings.TrimRight(line, "\r\n")
			key, _, ok := strings.Cut(line, ": ")
			if ok && slices.Contains([]string{"goos", "goarch", "pkg", "cpu"}, key) && !seen[line] {
				seen[line] = true
				env = append(env, line)
			}
		}
	}
	return env
}

// parseGateUnits parses -gate: units separated by commas, with spaces
// around each ignored, tidied as benchstat tidies the units of results
// (ns/op is sec/op, MB/s is B/s), so that a unit written as go test prints
// it matches the rows. An empty unit is a usage error.
func parseGateUnits(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var units []string
	for u := range strings.SplitSeq(s, ",") {
		u = strings.TrimSpace(u)
		if u == "" || strings.ContainsFunc(u, unicode.IsSpace) {
			return nil, usageError("-gate %q: empty unit or unit with spaces (want units separated by commas, such as B/s,allocs/op)", s)
		}
		_, u = benchunit.Tidy(1, u)
		if !slices.Contains(units, u) {
			units = append(units, u)
		}
	}
	return units, nil
}

// checkGateUnits returns a usage error when a -gate unit was measured by
// no benchmark in either revision: it gated nothing, most likely through a
// typo, and a comparison that passes by gating nothing must not pass. The
// error lists the units that were measured.
func checkGateUnits(units []string, rows []benchcmp.Row) error {
	var measured, missing []string
	for _, r := range rows {
		if !slices.Contains(measured, r.Unit) {
			measured = append(measured, r.Unit)
		}
	}
	for _, u := range units {
		if !slices.Contains(measured, u) {
			missing = append(missing, strconv.Quote(u))
		}
	}
	switch len(missing) {
	case 0:
		return nil
	case 1:
		return usageError("-gate unit %s was not measured by any benchmark (measured: %s)", missing[0], strings.Join(measured, ", "))
	}
	return usageError("-gate units %s were not measured by any benchmark (measured: %s)", strings.Join(missing, ", "), strings.Join(measured, ", "))
}

// percent is the value of -threshold: a percentage written "5" or "5%",
// finite and not negative.
type percent float64

func (p *percent) String() string { return strconv.FormatFloat(float64(*p), 'g', -1, 64) }

func (p *percent) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return fmt.Errorf("want a percentage such as 5 or 5%%, not %q", s)
	}
	*p = percent(v)
	return nil
}

// step is one round of a schedule: the revisions to run, in order.
type step struct {
	round int
	revs  []*revision
}

// schedule yields the order of the runs, one step at a time (a -count of
// a million allocates nothing up front). Interleaved, round i runs both
// revisions, old-new and new-old alternating (ABBA) from flip. Otherwise
// every round of the old revision comes first, then every round of the new
// one, as running the two back to back by hand would.
func schedule(revs []*revision, count int, interleave, flip bool) iter.Seq[step] {
	return func(yield func(step) bool) {
		if !interleave {
			for _, r := range revs {
				for round := range count {
					if !yield(step{round, []*revision{r}}) {
						return
					}
				}
			}
			return
		}
		for round := range count {
			order := []*revision{revs[0], revs[1]}
			if (round%2 == 1) != flip {
				order[0], order[1] = order[1], order[0]
			}
			if !yield(step{round, order}) {
				return
			}
		}
	}
}

// label names a revision in the table: the commit's first 12 digits, after
// what the user typed when that is not a prefix of it.
func label(r *revision) string {
	short := r.commit
	if len(short) > 12 {
		short = short[:12]
	}
	switch {
	case r.arg == ".":
		return "work tree (" + short + "+)"
	case strings.HasPrefix(r.commit, r.arg):
		return short
	}
	return r.arg + " (" + short + ")"
}

// prepare resolves r, checks it out (a worktree of its own under
// $cache/wt, or the work tree itself for "."), lists its packages there and
// builds or loads their test binaries (cached for a commit, in a temporary
// directory for the work tree). rel is the slash-separated directory of the
// invocation inside the repository. The returned function removes what
// prepare made; call it even when err != nil.
func prepare(ctx context.Context, r *revision, opts benchrun.Options, top, rel, cache string, prog *progress) (remove func(), err error) {
	if r.arg == "." {
		head, err := benchrun.Commit(ctx, top, "HEAD")
		if err != nil {
			return nil, err
		}
		r.commit, r.src = head+"+worktree", filepath.Join(top, filepath.FromSlash(rel))
		binDir, err := os.MkdirTemp("", "netbench-wt-")
		if err != nil {
			return nil, err
		}
		prog.logf("building the work tree")
		opts.Dir = r.src
		pkgs, err := benchrun.List(ctx, opts)
		if err == nil {
			r.pkgs, err = benchrun.Build(ctx, opts, pkgs, binDir)
		}
		return func() { os.RemoveAll(binDir) }, err
	}
	commit, err := benchrun.Commit(ctx, top, r.arg)
	if err != nil {
		if errors.Is(err, benchrun.ErrNotGitRepo) || ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("unknown revision %q", r.arg)
	}
	r.commit = commit
	wt, remove, err := benchrun.AddWorktree(ctx, top, commit, filepath.Join(cache, "wt"))
	if err != nil {
		return nil, err
	}
	r.src = filepath.Join(wt, filepath.FromSlash(rel))
	opts.Dir = r.src
	pkgs, err := benchrun.List(ctx, opts)
	if err != nil {
		return remove, err
	}
	env, err := benchrun.BuildEnv(ctx, r.src, wt)
	if err != nil {
		return remove, err
	}
	in := benchrun.BuildInputs{Commit: commit, Env: env}
	bins := benchrun.Cache{Dir: filepath.Join(cache, "bin")}
	missing := 0
	for _, p := range pkgs {
		in.ImportPath = p.ImportPath
		if !bins.Has(in) {
			missing++
		}
	}
	if missing == 0 {
		prog.logf("%s: test binaries cached", r.arg)
	} else {
		prog.logf("%s: building %d of %d test binaries", r.arg, missing, len(pkgs))
	}
	r.pkgs, err = bins.Build(ctx, opts, in, pkgs)
	return remove, err
}

// checkReportFlags checks the flags that compare and stat share: the
// output format, the correction and alpha.
func checkReportFlags(format, correct string, alpha float64) error {
	switch format {
	case "text", "csv", "json", "markdown", "html":
	default:
		return usageError("unknown -format %q (want text, csv, json, markdown or html)", format)
	}
	if correct != "" && correct != "holm" {
		return usageError("unknown -correct %q (want holm)", correct)
	}
	if !(alpha > 0 && alpha < 1) {
		return usageError("-alpha must be between 0 and 1, not %v", alpha)
	}
	return nil
}
