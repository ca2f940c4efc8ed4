package benchcmp

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// statFixture returns two result files with configuration lines that
// differ between them (commit, loadavg), two packages, and sub-benchmark
// keys: in new, impl=tree is 30% slower, size=64 of impl=map 10% faster,
// and Put unchanged.
func statFixture() (old, new string) {
	rng := rand.New(rand.NewPCG(3, 4))
	write := func(commit, load string, tree, map64 float64) string {
		var b strings.Builder
		fmt.Fprintf(&b, "commit: %s\ngo: go1.26.0\nloadavg: %s\ngoos: linux\ngoarch: amd64\npkg: example.com/m/a\ncpu: Test CPU\n", commit, load)
		noise := func(v float64) float64 { return v * (0.98 + 0.04*rng.Float64()) }
		for range 10 {
			for _, size := range []int{8, 64} {
				m := 1.0
				if size == 64 {
					m = map64
				}
				fmt.Fprintf(&b, "BenchmarkGet/impl=map/size=%d-2 \t 1000 \t %.2f ns/op \t 16 B/op \t 1 allocs/op\n", size, noise(float64(size)*m))
				fmt.Fprintf(&b, "BenchmarkGet/impl=tree/size=%d-2 \t 1000 \t %.2f ns/op \t 0 B/op \t 0 allocs/op\n", size, noise(float64(2*size)*tree))
			}
		}
		b.WriteString("pkg: example.com/m/b\n")
		for range 10 {
			fmt.Fprintf(&b, "BenchmarkPut-2 \t 1000 \t %.2f ns/op\n", noise(500))
		}
		return b.String()
	}
	return write("1111111111111111111111111111111111111111", "0.10 0.20 0.30", 1, 1),
		write("2222222222222222222222222222222222222222", "6.00 5.00 4.00", 1.3, 0.9)
}

func statInputs(t *testing.T) []Input {
	old, new := statFixture()
	return []Input{{"old.txt", strings.NewReader(old)}, {"new.txt", strings.NewReader(new)}}
}

// TestProjectDefaultIsCompare: with the default projection, Project gives
// Compare's rows, in Compare's order, and names the columns after the
// inputs, with their commits and configuration lines.
func TestProjectDefaultIsCompare(t *testing.T) {
	old, new := statFixture()
	want, err := Compare(strings.NewReader(old), strings.NewReader(new), DefaultConfidence)
	require.NoError(t, err)
	p, err := Project(statInputs(t), Projection{}, DefaultConfidence)
	require.NoError(t, err)
	assert.Equal(t, want, p.Rows)
	assert.Equal(t, "old.txt", p.Columns[0].Name)
	assert.Equal(t, "new.txt", p.Columns[1].Name)
	assert.Equal(t, strings.Repeat("2", 40), p.Columns[1].Commit)
	assert.Equal(t, []string{"commit: " + strings.Repeat("1", 40), "go: go1.26.0", "loadavg: 0.10 0.20 0.30", "goos: linux", "goarch: amd64", "pkg: example.com/m/a", "cpu: Test CPU", "pkg: example.com/m/b"}, p.Columns[0].Config)
}

// TestProjectFlags: -col, -row, -filter and -ignore each change the rows
// as benchstat's do.
func TestProjectFlags(t *testing.T) {
	names := func(p *Projected) []string {
		var out []string
		for _, r := range p.Rows {
			if r.Unit == "sec/op" {
				out = append(out, r.Name)
			}
		}
		return out
	}
	project := func(p Projection) *Projected {
		got, err := Project(statInputs(t), p, DefaultConfidence)
		require.NoError(t, err, "%+v", p)
		return got
	}

	byImpl := project(Projection{Col: "/impl", Filter: ".file:new.txt"})
	assert.Equal(t, [2]string{"map", "tree"}, [2]string{byImpl.Columns[0].Name, byImpl.Columns[1].Name})
	assert.Equal(t, []string{"Get/size=8-2", "Get/size=64-2"}, names(byImpl), "-col /impl takes impl out of the row names; Put has no impl")
	if r, ok := find(byImpl.Rows, "Get/size=8-2", "sec/op"); assert.True(t, ok) {
		assert.InDelta(t, 2*1.3, 1+r.Delta, 0.1, "tree is 2x map and 30%% slower in new: %+v", r)
	}

	byName := project(Projection{Row: ".name"})
	assert.Equal(t, []string{"Get", "Put"}, names(byName))
	if r, ok := find(byName.Rows, "Get", "sec/op"); assert.True(t, ok) {
		assert.Equal(t, 40, r.Old.N, "-row .name pools the four sub-benchmarks")
		assert.Contains(t, r.Warnings, "benchmarks vary in .fullname")
	}
	ignored := project(Projection{Row: ".name", Ignore: ".fullname"})
	if r, ok := find(ignored.Rows, "Get", "sec/op"); assert.True(t, ok) {
		assert.NotContains(t, r.Warnings, "benchmarks vary in .fullname", "-ignore .fullname")
	}

	tree := project(Projection{Filter: "/impl:tree"})
	assert.Equal(t, []string{"Get/impl=tree/size=8-2", "Get/impl=tree/size=64-2"}, names(tree))

	byCommit := project(Projection{Col: "commit"})
	assert.Equal(t, strings.Repeat("1", 40), byCommit.Columns[0].Name)
	assert.Equal(t, names(project(Projection{})), names(byCommit), "-col commit splits as the files do")

	bySize := project(Projection{Col: "/size"})
	assert.Equal(t, 20, bySize.Dropped, "Put has no size: left out")
	_, err := Project(statInputs(t), Projection{Col: "/impl,/size"}, DefaultConfidence)
	assert.ErrorContains(t, err, `"tree 64"`, "four columns")
	_, err = Project(statInputs(t), Projection{Row: "/size@"}, DefaultConfidence)
	assert.ErrorContains(t, err, "-row")
	_, err = Project(statInputs(t), Projection{Filter: "("}, DefaultConfidence)
	assert.ErrorContains(t, err, "-filter")
	_, err = Project([]Input{{"x", strings.NewReader("BenchmarkX 1 2 ns/op\nBenchmarkY 1\n")}, {"y", strings.NewReader("")}}, Projection{}, DefaultConfidence)
	assert.Error(t, err, "a syntax error in the results")
}

// TestProjectMatchesBenchstat runs the real benchstat with -table pkg and
// the same -col, -row, -filter and -ignore on the same files, and checks
// every row's medians, intervals, change (or ~), p-value and sample counts,
// and the "benchmarks vary in" warnings, against Project's.
func TestProjectMatchesBenchstat(t *testing.T) {
	if testing.Short() {
		t.Skip("builds benchstat")
	}
	dir := t.TempDir()
	old, new := statFixture()
	oldPath, newPath := filepath.Join(dir, "old.txt"), filepath.Join(dir, "new.txt")
	require.NoError(t, os.WriteFile(oldPath, []byte(old), 0o644))
	require.NoError(t, os.WriteFile(newPath, []byte(new), 0o644))
	bin := filepath.Join(dir, "benchstat")
	build := exec.Command("go", "build", "-o", bin, "golang.org/x/perf/cmd/benchstat")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "building benchstat\n%s", out)

	for _, p := range []Projection{
		{},
		{Col: "/impl", Filter: ".file:new.txt"},
		{Col: "/impl", Row: "/size"},
		{Row: ".name"},
		{Row: ".name", Ignore: ".fullname"},
		{Row: ".name", Ignore: ".fullname,commit,loadavg"},
		{Filter: "/impl:tree"},
		{Filter: "/size:64 .unit:sec/op"},
		{Col: "commit"},
	} {
		t.Run(fmt.Sprintf("col=%s,row=%s,filter=%s,ignore=%s", p.Col, p.Row, p.Filter, p.Ignore), func(t *testing.T) {
			args := []string{"-table", "pkg", "-format", "csv"}
			for _, f := range [][2]string{{"-col", p.Col}, {"-row", p.Row}, {"-filter", p.Filter}, {"-ignore", p.Ignore}} {
				if f[1] != "" {
					args = append(args, f[0], f[1])
				}
			}
			cmd := exec.Command(bin, append(args, "old.txt", "new.txt")...)
			cmd.Dir = dir
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			csvOut, err := cmd.Output()
			require.NoError(t, err, "benchstat %v\n%s", args, stderr.String())
			want := benchstatCells(t, string(csvOut), stderr.String())

			got, err := Project(statInputs(t), p, DefaultConfidence)
			require.NoError(t, err)
			require.Len(t, got.Rows, len(want), "rows: benchstat's %v", want)
			for _, r := range got.Rows {
				w, ok := want[r.Pkg+" "+r.Unit+" "+r.Name]
				if !assert.True(t, ok, "benchstat has no row %s %s %s: %v", r.Pkg, r.Unit, r.Name, want) {
					continue
				}
				for i, s := range []Side{r.Old, r.New} {
					col := got.Columns[i].Name
					if s.N == 0 {
						assert.NotContains(t, w.centers, col, "%s %s: benchstat has a %s cell", r.Name, r.Unit, col)
						continue
					}
					if assert.Contains(t, w.centers, col, "%s %s: benchstat has no %s cell", r.Name, r.Unit, col) {
						checkNum(t, r.Name+" "+r.Unit+" "+col, w.centers[col], s.Center)
						assert.Equal(t, w.ranges[col], s.PctRange(), "%s %s %s: interval", r.Name, r.Unit, col)
					}
				}
				if r.Old.N > 0 && r.New.N > 0 {
					if w.delta == "~" {
						assert.False(t, r.Significant(DefaultAlpha), "%s %s: benchstat finds no change, p=%v", r.Name, r.Unit, r.P)
					} else {
						assert.Equal(t, w.delta, fmt.Sprintf("%+.2f%%", 100*r.Delta), "%s %s: change", r.Name, r.Unit)
					}
					n := strconv.Itoa(r.New.N)
					if r.Old.N != r.New.N {
						n = strconv.Itoa(r.Old.N) + "+" + n
					}
					assert.Equal(t, w.p, fmt.Sprintf("p=%.3f n=%s", r.P, n), "%s %s: p", r.Name, r.Unit)
				}
				var vary []string
				for _, x := range r.Warnings {
					if strings.HasPrefix(x, "benchmarks vary in") {
						vary = append(vary, x)
					}
				}
				assert.ElementsMatch(t, w.vary, vary, "%s %s: warnings", r.Name, r.Unit)
			}
		})
	}
}

// A benchstatRow is one row of benchstat's CSV output: the median and
// interval of each column by name, the change and the p-value column, and
// the distinct "benchmarks vary in" warnings of its cells.
type benchstatRow struct {
	centers, ranges map[string]string
	delta, p        string
	vary            []string
}

// benchstatCells parses benchstat -format csv output and its warnings on
// stderr ("D4: benchmarks vary in commit", by spreadsheet cell) into rows
// keyed by package, unit and row name.
func benchstatCells(t *testing.T, out, stderr string) map[string]*benchstatRow {
	t.Helper()
	rows := map[string]*benchstatRow{}
	byLine := map[int]*benchstatRow{}
	var pkg, unit string
	var cols []string // column name of each CSV field, "" for none
	// benchstat shows the results without a value of -col in a table of
	// their own; Project leaves them out.
	skip, skipped := false, map[int]bool{}
	// A table is a header of column names, a line of units, then rows.
	const (
		header = iota
		units
		body
	)
	state := header
	for i, line := range strings.Split(out, "\n") {
		if p, ok := strings.CutPrefix(line, "pkg: "); ok {
			pkg, state = p, header
			continue
		}
		if line == "" {
			state = header
			continue
		}
		rec, err := csv.NewReader(strings.NewReader(line)).Read()
		require.NoError(t, err, "benchstat csv line %q", line)
		switch {
		case state == header:
			cols, state = rec, units
			skip = !slices.ContainsFunc(cols, func(c string) bool { return c != "" })
		case state == units:
			unit, state = rec[1], body
		case rec[0] == "geomean":
		case skip:
			skipped[i+1] = true
		default:
			r := &benchstatRow{centers: map[string]string{}, ranges: map[string]string{}}
			for j := 1; j+1 < len(rec) && j < len(cols); j += 2 {
				if cols[j] != "" && rec[j] != "" {
					r.centers[cols[j]], r.ranges[cols[j]] = rec[j], rec[j+1]
				}
			}
			if len(rec) >= 6 && len(cols) >= 4 {
				r.delta, r.p = rec[len(rec)-2], rec[len(rec)-1]
			}
			rows[pkg+" "+unit+" "+rec[0]] = r
			byLine[i+1] = r
		}
	}
	for line := range strings.Lines(stderr) {
		cell, msg, ok := strings.Cut(strings.TrimSpace(line), ": ")
		if !ok || !strings.HasPrefix(msg, "benchmarks vary in") {
			continue
		}
		n, err := strconv.Atoi(strings.TrimLeft(cell, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
		require.NoError(t, err, "benchstat warning %q", line)
		if skipped[n] {
			continue
		}
		if r := byLine[n]; assert.NotNil(t, r, "benchstat warning %q names no row", line) && !slices.Contains(r.vary, msg) {
			r.vary = append(r.vary, msg)
		}
	}
	return rows
}

// TestWriteJSONReport: the JSON report carries both revisions with their
// full commits and configuration lines, the gate, and every row's samples.
func TestWriteJSONReport(t *testing.T) {
	p, err := Project(statInputs(t), Projection{}, DefaultConfidence)
	require.NoError(t, err)
	gate := Gate{Alpha: 0.01, Threshold: 0.1, Units: []string{"B/op"}}
	var b bytes.Buffer
	require.NoError(t, WriteJSONReport(&b, JSONReport{Old: p.Columns[0], New: p.Columns[1], Gate: gate, Rows: Judge(p.Rows, gate)}))
	var got struct {
		Revisions []struct {
			Name   string   `json:"name"`
			Commit string   `json:"commit"`
			Config []string `json:"config"`
		} `json:"revisions"`
		Gate struct {
			Alpha        float64  `json:"alpha"`
			ThresholdPct float64  `json:"threshold_pct"`
			Units        []string `json:"units"`
		} `json:"gate"`
		Rows []struct {
			Name string `json:"name"`
			Unit string `json:"unit"`
			Old  struct {
				N       int       `json:"n"`
				Samples []float64 `json:"samples"`
			} `json:"old"`
			New struct {
				N       int       `json:"n"`
				Samples []float64 `json:"samples"`
			} `json:"new"`
		} `json:"rows"`
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &got), "%s", b.String())
	require.Len(t, got.Revisions, 2)
	for i, c := range p.Columns {
		assert.Equal(t, c.Name, got.Revisions[i].Name)
		assert.Equal(t, strings.Repeat(strconv.Itoa(i+1), 40), got.Revisions[i].Commit)
		assert.Contains(t, got.Revisions[i].Config, "cpu: Test CPU")
		assert.Contains(t, got.Revisions[i].Config, "commit: "+got.Revisions[i].Commit)
	}
	assert.Contains(t, got.Revisions[1].Config, "loadavg: 6.00 5.00 4.00")
	assert.Equal(t, 0.01, got.Gate.Alpha)
	assert.InDelta(t, 10, got.Gate.ThresholdPct, 1e-9)
	assert.Equal(t, []string{"sec/op", "B/op"}, got.Gate.Units)
	require.Len(t, got.Rows, len(p.Rows))
	for i, r := range got.Rows {
		assert.Equal(t, p.Rows[i].Old.Values, r.Old.Samples, "%s %s: old samples", r.Name, r.Unit)
		assert.Equal(t, p.Rows[i].New.Values, r.New.Samples, "%s %s: new samples", r.Name, r.Unit)
		assert.Len(t, r.New.Samples, r.New.N, "%s %s", r.Name, r.Unit)
	}
}
