package benchcmp

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/perf/benchfmt"
)

var update = flag.Bool("update", false, "rewrite golden files")

// noise is the spread of the ten samples of every benchmark, as fractions.
var noise = [10]float64{-0.02, 0.01, 0, 0.015, -0.01, 0.005, -0.005, 0.02, -0.015, 0.012}

// goldenInput returns the old and new results the golden files are made
// from, in the Go benchmark format with ten runs of every benchmark:
//
//	Get/size=64/impl=pool-2  20% slower: fails the gate; B/op, allocs/op constant, unchanged
//	a -cpu pair: X-1 unchanged, X-4 20% faster
//	Copy/size=4096-2         3% slower (worse, under the threshold), MB/s 3% lower
//	Widgets-2                12.5 → 13.5 widgets/op (a custom unit, not gated)
//	Alloc-2                  allocs/op 2 → 3 (fails), B/op 128 → 96
//	Removed-2                old only
//	Added-2                  new only
func goldenInput() (old, new string) {
	write := func(isNew bool) string {
		var b strings.Builder
		b.WriteString("goos: linux\ngoarch: amd64\npkg: example.com/m\ncpu: AMD EPYC 7B13\n")
		d := func(i int) float64 { return noise[i] }
		if isNew {
			// Another order of the noise, slightly shifted, so that
			// unchanged benchmarks are not identical.
			d = func(i int) float64 { return noise[(i+3)%10] + 0.001 }
		}
		pick := func(o, n float64) float64 { // the old or the new value
			if isNew {
				return n
			}
			return o
		}
		for i := range 10 {
			fmt.Fprintf(&b, "BenchmarkGet/size=64/impl=pool-2 \t 1000000 \t %.2f ns/op \t 64 B/op \t 1 allocs/op\n", pick(100, 120)*(1+d(i)))
			fmt.Fprintf(&b, "BenchmarkX-1 \t 500000 \t %.2f ns/op\n", 200*(1+d(i)))
			fmt.Fprintf(&b, "BenchmarkX-4 \t 2000000 \t %.2f ns/op\n", pick(60, 48)*(1+d(i)))
			ns := pick(41000, 42230) * (1 + d(i))
			fmt.Fprintf(&b, "BenchmarkCopy/size=4096-2 \t 30000 \t %.0f ns/op \t %.2f MB/s \t 0 B/op \t 0 allocs/op\n", ns, 4096/ns*1000)
			fmt.Fprintf(&b, "BenchmarkWidgets-2 \t 2000 \t %.1f ns/op \t %.1f widgets/op\n", 500*(1+d(i)), pick(12.5, 13.5))
			fmt.Fprintf(&b, "BenchmarkAlloc-2 \t 100000 \t %.2f ns/op \t %.0f B/op \t %.0f allocs/op\n", 80*(1+d(i)), pick(128, 96), pick(2, 3))
			if isNew {
				fmt.Fprintf(&b, "BenchmarkAdded-2 \t 100000 \t %.3f ns/op\n", 5*(1+d(i)))
			} else {
				fmt.Fprintf(&b, "BenchmarkRemoved-2 \t 100000 \t %.3f ns/op\n", 10*(1+d(i)))
			}
		}
		b.WriteString("PASS\nok  \texample.com/m\t12.345s\n")
		return b.String()
	}
	return write(false), write(true)
}

func goldenRows(t *testing.T) []Judged {
	t.Helper()
	old, new := goldenInput()
	rows, err := Compare(strings.NewReader(old), strings.NewReader(new), DefaultConfidence)
	require.NoError(t, err)
	return Judge(rows, Gate{Alpha: 0.05, Threshold: 0.05})
}

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to create it")
	assert.Equal(t, want, got, "output differs from %s (run go test -update to rewrite it)", path)
}

func TestWriteGolden(t *testing.T) {
	rows := goldenRows(t)
	tests := []struct {
		file  string
		write func(*bytes.Buffer) error
	}{
		{"text.golden", func(b *bytes.Buffer) error { return WriteText(b, "old", "new", rows) }},
		{"markdown.golden", func(b *bytes.Buffer) error { return WriteMarkdown(b, "old", "new", rows) }},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, tt.write(&b))
			golden(t, tt.file, b.Bytes())
		})
	}
}

// TestGoldenVerdicts states what the golden files should show, so that a
// rewrite with -update that changes a verdict does not go unnoticed.
func TestGoldenVerdicts(t *testing.T) {
	rows := goldenRows(t)
	tests := []struct {
		name, unit string
		verdict    string
		fails      bool
	}{
		{"Get/size=64/impl=pool-2", "sec/op", Worse, true},
		{"X-1", "sec/op", Unchanged, false},
		{"X-4", "sec/op", Better, false},
		{"Copy/size=4096-2", "sec/op", Worse, false},
		{"Widgets-2", "sec/op", Unchanged, false},
		{"Alloc-2", "sec/op", Unchanged, false},
		{"Removed-2", "sec/op", Removed, false},
		{"Added-2", "sec/op", Added, false},
		{"Get/size=64/impl=pool-2", "B/op", Unchanged, false},
		{"Copy/size=4096-2", "B/op", Unchanged, false},
		{"Alloc-2", "B/op", Better, false},
		{"Get/size=64/impl=pool-2", "allocs/op", Unchanged, false},
		{"Copy/size=4096-2", "allocs/op", Unchanged, false},
		{"Alloc-2", "allocs/op", Worse, true},
		{"Copy/size=4096-2", "B/s", Worse, false},
		{"Widgets-2", "widgets/op", Worse, false},
	}
	assert.Len(t, rows, len(tests), "judged rows")
	for _, tt := range tests {
		var j *Judged
		for i := range rows {
			if rows[i].Name == tt.name && rows[i].Unit == tt.unit {
				j = &rows[i]
			}
		}
		if !assert.NotNil(t, j, "no row %s %s", tt.name, tt.unit) {
			continue
		}
		assert.Equal(t, tt.verdict, j.Verdict, "%s %s: verdict (Δ %.4f, p %.4g)", tt.name, tt.unit, j.Delta, j.P)
		assert.Equal(t, tt.fails, j.Fails, "%s %s: fails the gate (Δ %.4f, p %.4g)", tt.name, tt.unit, j.Delta, j.P)
	}
	// Units in the order they first appear in the old file.
	wantUnits := []string{"sec/op", "B/op", "allocs/op", "B/s", "widgets/op"}
	var got []string
	for _, tb := range tables(rows) {
		got = append(got, tb.unit)
	}
	assert.Equal(t, wantUnits, got, "units")
}

func TestWriteJSON(t *testing.T) {
	rows := goldenRows(t)
	var b bytes.Buffer
	require.NoError(t, WriteJSON(&b, rows))
	type jside struct {
		Center  float64
		Lo, Hi  *float64
		N       int
		Samples []float64
	}
	var got []struct {
		Pkg      string   `json:"pkg"`
		Name     string   `json:"name"`
		Unit     string   `json:"unit"`
		Old      *jside   `json:"old"`
		New      *jside   `json:"new"`
		DeltaPct *float64 `json:"delta_pct"`
		P        *float64 `json:"p"`
		Verdict  string   `json:"verdict"`
		Fails    bool     `json:"fails_gate"`
		Warnings []string `json:"warnings"`
	}
	dec := json.NewDecoder(&b)
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&got), "%s", b.String())
	require.Len(t, got, len(rows), "JSON rows")
	for i, g := range got {
		r := rows[i]
		assert.Equal(t, r.Name, g.Name, "row %d: name", i)
		assert.Equal(t, r.Unit, g.Unit, "row %d (%s): unit", i, r.Name)
		assert.Equal(t, r.Verdict, g.Verdict, "row %d (%s %s): verdict", i, r.Name, r.Unit)
		assert.Equal(t, r.Fails, g.Fails, "row %d (%s %s): fails_gate", i, r.Name, r.Unit)
		switch r.Verdict {
		case Added:
			assert.Nil(t, g.Old, "added row %s: old", r.Name)
			if assert.NotNil(t, g.New, "added row %s: new", r.Name) {
				assert.Equal(t, 10, g.New.N, "added row %s: new samples", r.Name)
			}
			assert.Nil(t, g.DeltaPct, "added row %s: delta_pct", r.Name)
			assert.Nil(t, g.P, "added row %s: p", r.Name)
		case Removed:
			assert.Nil(t, g.New, "removed row %s: new", r.Name)
			if assert.NotNil(t, g.Old, "removed row %s: old", r.Name) {
				assert.Equal(t, 10, g.Old.N, "removed row %s: old samples", r.Name)
			}
			assert.Nil(t, g.DeltaPct, "removed row %s: delta_pct", r.Name)
			assert.Nil(t, g.P, "removed row %s: p", r.Name)
		default:
			if !assert.NotNil(t, g.Old, "row %s %s: old", r.Name, r.Unit) || !assert.NotNil(t, g.New, "row %s %s: new", r.Name, r.Unit) ||
				!assert.NotNil(t, g.DeltaPct, "row %s %s: delta_pct", r.Name, r.Unit) || !assert.NotNil(t, g.P, "row %s %s: p", r.Name, r.Unit) {
				continue
			}
			assert.Equal(t, jside{r.Old.Center, &r.Old.Lo, &r.Old.Hi, r.Old.N, r.Old.Values}, *g.Old, "row %s %s: old side", r.Name, r.Unit)
			assert.Equal(t, r.New.Center, g.New.Center, "row %s %s: new center", r.Name, r.Unit)
			assert.Equal(t, r.New.Values, g.New.Samples, "row %s %s: new samples", r.Name, r.Unit)
			assert.Len(t, g.New.Samples, g.New.N, "row %s %s: new samples", r.Name, r.Unit)
			assert.Equal(t, r.New.N, g.New.N, "row %s %s: new samples", r.Name, r.Unit)
			assert.InDelta(t, 100*r.Delta, *g.DeltaPct, 1e-9, "row %s %s: delta_pct", r.Name, r.Unit)
			assert.Equal(t, r.PAdj, *g.P, "row %s %s: p", r.Name, r.Unit)
		}
		if r.Name == "Get/size=64/impl=pool-2" && r.Unit == "sec/op" {
			assert.True(t, g.Fails, "Get sec/op: %+v, want a failing change", g)
			assert.InDelta(t, 20, *g.DeltaPct, 1, "Get sec/op: want a +20%% change")
			assert.InDelta(t, 100e-9, g.Old.Center, 1e-9, "Get sec/op: want a change from 100ns")
		}
	}
}

func TestWriteCSV(t *testing.T) {
	rows := goldenRows(t)
	var b bytes.Buffer
	require.NoError(t, WriteCSV(&b, rows))
	recs, err := csv.NewReader(&b).ReadAll()
	require.NoError(t, err)
	header := "pkg name unit old_center old_lo old_hi old_n new_center new_lo new_hi new_n delta_pct p verdict fails_gate noise"
	require.NotEmpty(t, recs, "CSV records")
	require.Equal(t, header, strings.Join(recs[0], " "), "CSV header")
	require.Len(t, recs, len(rows)+1, "%d records, want a header and %d rows", len(recs), len(rows))
	field := map[string]int{}
	for i, f := range recs[0] {
		field[f] = i
	}
	for i, rec := range recs[1:] {
		r := rows[i]
		get := func(f string) string { return rec[field[f]] }
		for f, want := range map[string]string{"name": r.Name, "unit": r.Unit, "verdict": r.Verdict, "fails_gate": fmt.Sprint(r.Fails), "old_n": fmt.Sprint(r.Old.N), "new_n": fmt.Sprint(r.New.N)} {
			assert.Equal(t, want, get(f), "record %d (%s %s): %s", i, r.Name, r.Unit, f)
		}
		switch r.Verdict {
		case Added, Removed:
			missing := "old_center"
			if r.Verdict == Removed {
				missing = "new_center"
			}
			for _, f := range []string{"delta_pct", "p", missing} {
				assert.Empty(t, get(f), "%s row %s: %s, want empty", r.Verdict, r.Name, f)
			}
		default:
			for _, f := range []string{"delta_pct", "p", "old_center", "new_center"} {
				assert.NotEmpty(t, get(f), "record %d (%s %s): %s, want a number", i, r.Name, r.Unit, f)
			}
		}
	}
}

// parserOld and parserNew exercise the parts of the format Compare must
// understand: configuration lines, custom units, -cpu suffixes,
// key=value sub-benchmark names, the bare names of go test -v, and lines
// that are not results at all.
const parserOld = `goos: linux
goarch: amd64
pkg: example.com/m
cpu: AMD EPYC 7B13
BenchmarkGet/size=64/impl=pool-2     	 1000000	       100.0 ns/op	      64 B/op	       1 allocs/op
BenchmarkX
BenchmarkX-1   	  500000	       200 ns/op	  12.5 widgets/op
BenchmarkX-4   	 2000000	        60 ns/op	  12.5 widgets/op
BenchmarkCopy/size=4096-2   	   30000	     41000 ns/op	  99.90 MB/s
BenchmarkA/k=v-1-2   	 100	 7 ns/op
--- FAIL: BenchmarkBroken
    x_test.go:3: broken
some log line
PASS
ok  	example.com/m	1.234s
`

const parserNew = `pkg: example.com/m
BenchmarkGet/size=64/impl=pool-2     	 1000000	       120.0 ns/op	      64 B/op	       1 allocs/op
BenchmarkX-1   	  500000	       210 ns/op	  13.5 widgets/op
`

func TestCompareParse(t *testing.T) {
	rows, err := Compare(strings.NewReader(parserOld), strings.NewReader(parserNew), DefaultConfidence)
	require.NoError(t, err)
	tests := []struct {
		name, unit string
		old, new   float64 // 0: side missing
	}{
		{"Get/size=64/impl=pool-2", "sec/op", 100e-9, 120e-9},
		{"Get/size=64/impl=pool-2", "B/op", 64, 64},
		{"Get/size=64/impl=pool-2", "allocs/op", 1, 1},
		{"X-1", "sec/op", 200e-9, 210e-9},
		{"X-1", "widgets/op", 12.5, 13.5},
		{"X-4", "sec/op", 60e-9, 0},
		{"X-4", "widgets/op", 12.5, 0},
		{"Copy/size=4096-2", "sec/op", 41000e-9, 0},
		{"Copy/size=4096-2", "B/s", 99.9e6, 0},
		{"A/k=v-1-2", "sec/op", 7e-9, 0},
	}
	if len(rows) != len(tests) {
		for _, r := range rows {
			t.Logf("%s %s %+v %+v", r.Name, r.Unit, r.Old, r.New)
		}
	}
	require.Len(t, rows, len(tests), "rows (listed above when the count differs)")
	for i, tt := range tests {
		r := rows[i]
		if !assert.Equal(t, tt.name, r.Name, "row %d: name", i) || !assert.Equal(t, tt.unit, r.Unit, "row %d: unit", i) {
			continue
		}
		check := func(what string, s Side, want float64) {
			if want == 0 {
				assert.Zero(t, s.N, "%s %s %s: %+v, want missing", r.Name, r.Unit, what, s)
				return
			}
			assert.Equal(t, 1, s.N, "%s %s %s: %+v, want one sample", r.Name, r.Unit, what, s)
			assert.InDelta(t, want, s.Center, 1e-9*want, "%s %s %s: %+v", r.Name, r.Unit, what, s)
		}
		check("old", r.Old, tt.old)
		check("new", r.New, tt.new)
	}
}

func TestCompareSyntaxError(t *testing.T) {
	good := "BenchmarkA-2 \t 100 \t 5 ns/op\n"
	tests := []struct {
		name      string
		old, new  string
		file      string // "" for no error
		line      int
		msg, wrap string
	}{
		{"missing units", good + "BenchmarkA-2 \t 100 \t 5\n", good, "old", 2, "missing units", "benchcmp: old results: "},
		{"bad value", good, "goos: linux\n" + good + good + "BenchmarkA-2 \t 100 \t fast ns/op\n", "new", 4, "parsing measurement", "benchcmp: new results: "},
		{"bad iterations", good, "BenchmarkA-2 \t many \t 5 ns/op\n", "new", 1, "parsing iteration count", "benchcmp: new results: "},
		{"failed benchmark on the name line", "BenchmarkA-2 \t--- FAIL: BenchmarkA-2\n", good, "old", 1, "parsing iteration count", "benchcmp: old results: "},
		{"no measurements", "BenchmarkA-2 \t 100\n", good, "old", 1, "missing measurements", "benchcmp: old results: "},
		{"bare name is skipped", "BenchmarkA-2\n" + good, good, "", 0, "", ""},
		{"other lines are skipped", "PASS\nok  \tx\t1s\n--- FAIL: BenchmarkA\n" + good, good, "", 0, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, err := Compare(strings.NewReader(tt.old), strings.NewReader(tt.new), DefaultConfidence)
			if tt.file == "" {
				assert.NoError(t, err, "Compare")
				assert.Len(t, rows, 1, "Compare")
				return
			}
			require.Error(t, err, "Compare = %+v, nil; want a syntax error", rows)
			assert.Nil(t, rows, "rows %+v with error %v, want none", rows, err)
			var se *benchfmt.SyntaxError
			require.ErrorAs(t, err, &se, "error %v (%T), want a *benchfmt.SyntaxError", err, err)
			assert.Equal(t, tt.file, se.FileName, "syntax error: file")
			assert.Equal(t, tt.line, se.Line, "syntax error: line")
			assert.Contains(t, se.Msg, tt.msg, "syntax error: message")
			assert.True(t, strings.HasPrefix(err.Error(), tt.wrap), "error %q, want prefix %q", err, tt.wrap)
		})
	}
}

// TestComparePackages checks that benchmarks of the same name in two
// packages (netbench runs every package of ./... into one result stream,
// each binary printing its own "pkg:" line) are compared separately, as
// benchstat does, and not pooled into one sample whose median neither
// package measured.
func TestComparePackages(t *testing.T) {
	results := func(fast, slow int) string {
		var b strings.Builder
		b.WriteString("goos: linux\npkg: example.com/m/a\n")
		for range 10 {
			fmt.Fprintf(&b, "BenchmarkGet-2 \t 1000 \t %d ns/op\n", fast)
		}
		b.WriteString("pkg: example.com/m/b\n")
		for range 10 {
			fmt.Fprintf(&b, "BenchmarkGet-2 \t 1000 \t %d ns/op\n", slow)
		}
		return b.String()
	}
	rows, err := Compare(strings.NewReader(results(100, 1000)), strings.NewReader(results(100, 1000)), DefaultConfidence)
	require.NoError(t, err)
	assert.Len(t, rows, 2, "%d rows, want one per package", len(rows))
	for _, r := range rows {
		near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*b }
		assert.Equal(t, 10, r.Old.N, "row %s %s: old samples: the packages' samples are pooled", r.Name, r.Unit)
		assert.Equal(t, 10, r.New.N, "row %s %s: new samples: the packages' samples are pooled", r.Name, r.Unit)
		assert.True(t, near(r.Old.Center, 100e-9) || near(r.Old.Center, 1000e-9), "row %s %s: median %g, neither package's: the packages' samples are pooled", r.Name, r.Unit, r.Old.Center)
	}
}

// TestWriteJSONFewSamples writes rows of five samples a side, whose 95%
// intervals are infinite: JSON has no infinities, so the bounds must come
// out as null rather than fail the encoder ("unsupported value: -Inf").
func TestWriteJSONFewSamples(t *testing.T) {
	old := "BenchmarkX-2 1 100 ns/op\n"
	nu := "BenchmarkX-2 1 120 ns/op\n"
	rows, err := Compare(strings.NewReader(strings.Repeat(old, 5)), strings.NewReader(strings.Repeat(nu, 5)), DefaultConfidence)
	require.NoError(t, err)
	require.NotEmpty(t, rows, "rows %+v: want an infinite interval at n=5 for this test to mean anything", rows)
	require.True(t, math.IsInf(rows[0].Old.Lo, -1) || math.IsInf(rows[0].Old.Hi, 1), "rows %+v: want an infinite interval at n=5 for this test to mean anything", rows)
	var b bytes.Buffer
	require.NoError(t, WriteJSON(&b, Judge(rows, Gate{Alpha: DefaultAlpha, Threshold: 0.05})), "WriteJSON")
	var got []struct {
		Old struct {
			Center float64
			Lo, Hi *float64
			N      int
		}
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &got), "%s", b.String())
	require.NotEmpty(t, got, "JSON %s", b.String())
	assert.Equal(t, 5, got[0].Old.N, "JSON %s: samples", b.String())
	assert.InDelta(t, 100e-9, got[0].Old.Center, 1e-15, "JSON %s: center", b.String())
	assert.True(t, got[0].Old.Lo == nil || got[0].Old.Hi == nil, "JSON %s: want a null bound", b.String())
}
