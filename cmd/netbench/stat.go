package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/netkit/netkit/internal/benchcmp"
	"github.com/netkit/netkit/internal/benchrun"
)

// statCmd re-runs the statistics of compare on files of results, grouped
// by benchstat's projections.
func statCmd(stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("netbench stat", flag.ContinueOnError)
	threshold := percent(5)
	fs.Var(&threshold, "threshold", "smallest gated slowdown, in percent (5 or 5%)")
	var (
		proj       benchcmp.Projection
		alpha      = fs.Float64("alpha", benchcmp.DefaultAlpha, "significance level")
		confidence = fs.Float64("confidence", benchcmp.DefaultConfidence, "confidence level of the intervals")
		gateUnits  = fs.String("gate", "", "comma-separated units gated besides sec/op (e.g. B/s)")
		correct    = fs.String("correct", "", `multiple-comparison correction: "" or holm`)
		format     = fs.String("format", "text", "output: text, csv, json, markdown or html")
		allowLow   = fs.Bool("allow-low-count", false, "judge even when the samples are too few for any p-value to reach -alpha")
		outName    = fs.String("o", "", "write the comparison to file instead of standard output")
	)
	fs.StringVar(&proj.Col, "col", ".file", "split the results into the two compared columns by `keys`, as benchstat")
	fs.StringVar(&proj.Row, "row", ".fullname", "split the results into rows by `keys`, as benchstat")
	fs.StringVar(&proj.Filter, "filter", "*", "use only the results matching benchfilter `query`, as benchstat")
	fs.StringVar(&proj.Ignore, "ignore", "", "ignore variations in `keys`, as benchstat")
	help, err := parseFlags(fs, args, stdout)
	if help || err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError("stat needs files of results: netbench stat [flags] FILE...")
	}
	if err := checkReportFlags(*format, *correct, *alpha); err != nil {
		return err
	}
	if !(*confidence > 0 && *confidence < 1) {
		return usageError("-confidence must be between 0 and 1, not %v", *confidence)
	}
	gate := benchcmp.Gate{Alpha: *alpha, Threshold: float64(threshold) / 100, Holm: *correct == "holm"}
	if gate.Units, err = parseGateUnits(*gateUnits); err != nil {
		return err
	}
	var inputs []benchcmp.Input
	for _, arg := range fs.Args() {
		// As benchstat: label=path names the file's column label.
		label, path := arg, arg
		if l, p, ok := strings.Cut(arg, "="); ok {
			label, path = l, p
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return fail(err)
		}
		inputs = append(inputs, benchcmp.Input{Label: label, R: bytes.NewReader(data)})
	}
	out, err := createOutput(*outName, stdout)
	if err != nil {
		return err
	}
	defer out.abort()

	p, err := benchcmp.Project(inputs, proj, *confidence)
	if err != nil {
		return usageError("%v", err)
	}
	if p.Dropped > 0 {
		fmt.Fprintf(stderr, "netbench: warning: %d result(s) have no value of -col %s and were left out\n", p.Dropped, proj.Col)
	}
	judged := benchcmp.Judge(p.Rows, gate)
	diag := statDiagnosis(p.Columns, proj.Col, judged, gate)
	lowCount := benchcmp.GateWarning(p.Rows, gate)
	if lowCount != "" && *allowLow {
		fmt.Fprintln(stderr, "netbench: warning:", lowCount)
	}
	oldCol, newCol := p.Columns[0], p.Columns[1]
	switch *format {
	case "text":
		err = benchcmp.WriteText(out, oldCol.Name, newCol.Name, judged)
	case "markdown":
		err = benchcmp.WriteMarkdown(out, oldCol.Name, newCol.Name, judged)
	case "json":
		err = benchcmp.WriteJSONReport(out, benchcmp.JSONReport{Old: oldCol, New: newCol, Gate: gate, Rows: judged})
	case "csv":
		err = benchcmp.WriteCSV(out, judged)
	case "html":
		env := statEnvironment(oldCol, newCol)
		err = benchcmp.WriteHTML(out, benchcmp.Report{OldName: oldCol.Name, NewName: newCol.Name, Env: env, Gate: gate, Rows: judged})
	}
	if err == nil {
		err = out.commit()
	}
	if err != nil {
		return fail(fmt.Errorf("writing the comparison: %w", err))
	}
	for _, j := range judged {
		for _, w := range j.Warnings {
			if strings.HasPrefix(w, "benchmarks vary in ") {
				fmt.Fprintf(stderr, "netbench: warning: %s %s: %s\n", j.Name, j.Unit, w)
			}
		}
	}
	writeCompareNotes(stderr, judged, diag)
	compared := reportOneSided(stderr, judged, oldCol.Name, newCol.Name)
	if compared == 0 {
		return fail(fmt.Errorf("nothing was compared: no row has results in both %s and %s", oldCol.Name, newCol.Name))
	}
	if err := checkGateUnits(gate.Units, p.Rows); err != nil {
		return err
	}
	if lowCount != "" && !*allowLow {
		return usageError("these results cannot gate a slowdown: %s, or -allow-low-count to accept it (then only allocs/op and B/op can fail the gate)", lowCount)
	}
	return gateError(judged, threshold, *alpha)
}

// statEnvironment returns the environment lines of stat's HTML report:
// each configuration line of both columns once, a line of one column only
// with the column's name after its key ("loadavg (new.txt): 6.00 5.00
// 4.00"), so that the two sides' differences show.
func statEnvironment(cols ...benchcmp.Column) []string {
	var env []string
	for i, c := range cols {
		for _, l := range c.Config {
			if i > 0 && slices.Contains(cols[0].Config, l) {
				continue
			}
			if !slices.ContainsFunc(cols, func(o benchcmp.Column) bool { return !slices.Contains(o.Config, l) }) {
				env = append(env, l)
				continue
			}
			k, v, _ := strings.Cut(l, ": ")
			env = append(env, k+" ("+c.Name+"): "+v)
		}
	}
	return env
}

// reportOneSided lists on stderr the benchmarks with results on one side
// only, naming the side, and returns how many rows were compared.
func reportOneSided(stderr io.Writer, judged []benchcmp.Judged, oldName, newName string) (compared int) {
	compared, oneSided := benchcmp.Coverage(judged)
	if len(oneSided) > 0 {
		fmt.Fprintf(stderr, "netbench: warning: %d benchmark(s) ran in one revision only and were not compared:\n", len(oneSided))
		for _, o := range oneSided {
			side := oldName
			if o.Verdict == benchcmp.Added {
				side = newName
			}
			fmt.Fprintf(stderr, "\t%s (only in %s)\n", o.Name, side)
		}
	}
	return compared
}

// gateError returns the error of exit status 1 that lists the rows that
// fail the gate, or nil when none does.
func gateError(judged []benchcmp.Judged, threshold percent, alpha float64) error {
	var failed []string
	for _, j := range judged {
		if j.Fails {
			change := fmt.Sprintf("%+.1f%%", 100*j.Delta)
			if math.IsNaN(j.Delta) || math.IsInf(j.Delta, 0) {
				change = fmt.Sprintf("%g -> %g", j.Old.Center, j.New.Center)
			}
			failed = append(failed, fmt.Sprintf("%s %s %s", j.Name, j.Unit, change))
		}
	}
	if len(failed) > 0 {
		return &statusError{exitRegression, fmt.Errorf("%d regression(s) beyond the gate (threshold %v%%, alpha %g): %s",
			len(failed), threshold, alpha, strings.Join(failed, ", "))}
	}
	return nil
}

// revisionConfig returns the configuration lines of r's kept results, as
// run writes them for a run of r's tree: its commit, the go version that
// builds in it, gomaxprocs (the -cpu list under -cpu), the kernel and
// governor, and the load average now, before the runs.
func revisionConfig(ctx context.Context, r *revision, cpu string) ([]string, error) {
	config, err := benchrun.Config(ctx, r.src)
	if err != nil {
		return nil, err
	}
	return withCPUList(config, cpu), nil
}

// keepDir returns the directory compare keeps its raw results in: -keep
// when given, or else a new directory under the cache's results directory,
// named after the time and the two commits, unique even for two
// comparisons started at once. The default is not beside -o: a directory
// appearing beside every report would clutter the user's tree (and make a
// git work tree dirty).
func keepDir(keep, cache string, revs []*revision) (string, error) {
	if keep != "" {
		return keep, os.MkdirAll(keep, 0o755)
	}
	base := filepath.Join(cache, "results")
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", err
	}
	prefix := time.Now().UTC().Format("20060102T150405Z") + "-" + shortCommit(revs[0]) + "-" + shortCommit(revs[1]) + "-"
	return os.MkdirTemp(base, prefix)
}

// keepResults writes each revision's configuration lines and results in
// the Go benchmark format to dir/old.txt and dir/new.txt, says on stderr
// where they went and how to re-analyse them, and returns the column of
// each file: its label, commit and configuration lines.
func keepResults(stderr io.Writer, dir string, revs []*revision, configs [][]string) ([2]benchcmp.Column, error) {
	var cols [2]benchcmp.Column
	var paths [2]string
	for i, r := range revs {
		var b bytes.Buffer
		for _, line := range configs[i] {
			fmt.Fprintln(&b, line)
		}
		b.Write(r.out.Bytes())
		paths[i] = filepath.Join(dir, []string{"old.txt", "new.txt"}[i])
		if err := os.WriteFile(paths[i], b.Bytes(), 0o644); err != nil {
			return cols, fmt.Errorf("keeping the results: %w", err)
		}
		col, err := benchcmp.ColumnOf(label(r), &b)
		if err != nil {
			return cols, fmt.Errorf("keeping the results of %s: %w", r.arg, err)
		}
		cols[i] = col
	}
	fmt.Fprintf(stderr, "netbench: results kept in %s and %s; re-analysed by: netbench stat %s %s\n",
		paths[0], paths[1], shellQuote(cols[0].Name+"="+paths[0]), shellQuote(cols[1].Name+"="+paths[1]))
	if keys := differingKeys(cols[0].Config, cols[1].Config); len(keys) > 0 {
		fmt.Fprintf(stderr, "netbench: (benchstat splits tables by %s unless given -ignore %s)\n", strings.Join(keys, ", "), strings.Join(keys, ","))
	}
	return cols, nil
}

// keepPartial keeps the results of the runs that finished before a
// compare was interrupted or a run failed, when there are any, so that
// they are not lost; a failure to keep them is reported and otherwise
// ignored, as the compare is failing already.
func keepPartial(stderr io.Writer, keep, cache string, revs []*revision, configs [][]string) {
	if revs[0].out.Len()+revs[1].out.Len() == 0 {
		return
	}
	fmt.Fprintln(stderr, "netbench: keeping the results of the runs that finished")
	dir, err := keepDir(keep, cache, revs)
	if err == nil {
		_, err = keepResults(stderr, dir, revs, configs)
	}
	if err != nil {
		fmt.Fprintln(stderr, "netbench:", err)
	}
}

// differingKeys returns the configuration keys whose values differ
// between the two sets of lines, in a's order, then b's.
func differingKeys(a, b []string) []string {
	values := func(lines []string) map[string][]string {
		m := map[string][]string{}
		for _, l := range lines {
			k, v, _ := strings.Cut(l, ": ")
			m[k] = append(m[k], v)
		}
		return m
	}
	va, vb := values(a), values(b)
	var keys []string
	for _, l := range append(slices.Clone(a), b...) {
		k, _, _ := strings.Cut(l, ": ")
		if !slices.Equal(va[k], vb[k]) && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and -_./=+:@,.
func shellQuote(s string) string {
	safe := func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=+:@,", r)
	}
	if s != "" && strings.IndexFunc(s, func(r rune) bool { return !safe(r) }) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// busyConfigKey, numbered from 1, is the key of the configuration line
// that a compare writes into its kept files for each way it found the
// machine busy (a key each, as a later line of one key replaces an
// earlier one).
const busyConfigKey = "noise-busy-"

// statDiagnosis marks the rows' noise as compare does: outliers and uneven
// spread from the samples, the busy warnings that the files'
// noise-busy-N configuration lines carry (a compare writes them into the
// files it keeps), and, when the two columns are two files of one commit
// (-col .file), the A/A counts.
func statDiagnosis(cols [2]benchcmp.Column, col string, judged []benchcmp.Judged, gate benchcmp.Gate) *benchcmp.Diagnosis {
	d := &benchcmp.Diagnosis{}
	seen := map[string]bool{}
	for _, c := range cols {
		for _, line := range c.Config {
			key, w, ok := strings.Cut(line, ": ")
			if ok && strings.HasPrefix(key, busyConfigKey) && !seen[w] {
				seen[w] = true
				d.Busy = append(d.Busy, w)
			}
		}
	}
	if col == ".file" && cols[0].Commit != "" && cols[0].Commit == cols[1].Commit {
		a := benchcmp.CountAA(judged, gate)
		d.AA = &a
	}
	benchcmp.Diagnose(judged, d)
	return d
}
