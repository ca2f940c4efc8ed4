package benchcmp

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	if err != nil {
		t.Fatal(err)
	}
	return Judge(rows, Gate{Alpha: 0.05, Threshold: 0.05})
}

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run go test -update to rewrite it)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
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
			if err := tt.write(&b); err != nil {
				t.Fatal(err)
			}
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
	if len(rows) != len(tests) {
		t.Errorf("%d rows, want %d", len(rows), len(tests))
	}
	for _, tt := range tests {
		var j *Judged
		for i := range rows {
			if rows[i].Name == tt.name && rows[i].Unit == tt.unit {
				j = &rows[i]
			}
		}
		if j == nil {
			t.Errorf("no row %s %s", tt.name, tt.unit)
			continue
		}
		if j.Verdict != tt.verdict || j.Fails != tt.fails {
			t.Errorf("%s %s: %q fails %v, want %q fails %v (Δ %.4f, p %.4g)", tt.name, tt.unit, j.Verdict, j.Fails, tt.verdict, tt.fails, j.Delta, j.P)
		}
	}
	// Units in the order they first appear in the old file.
	wantUnits := []string{"sec/op", "B/op", "allocs/op", "B/s", "widgets/op"}
	var got []string
	for _, tb := range tables(rows) {
		got = append(got, tb.unit)
	}
	if fmt.Sprint(got) != fmt.Sprint(wantUnits) {
		t.Errorf("units %v, want %v", got, wantUnits)
	}
}

func TestWriteJSON(t *testing.T) {
	rows := goldenRows(t)
	var b bytes.Buffer
	if err := WriteJSON(&b, rows); err != nil {
		t.Fatal(err)
	}
	type jside struct {
		Center float64
		Lo, Hi *float64
		N      int
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
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if len(got) != len(rows) {
		t.Fatalf("%d JSON rows, want %d", len(got), len(rows))
	}
	for i, g := range got {
		r := rows[i]
		if g.Name != r.Name || g.Unit != r.Unit || g.Verdict != r.Verdict || g.Fails != r.Fails {
			t.Errorf("row %d: %s %s %q %v, want %s %s %q %v", i, g.Name, g.Unit, g.Verdict, g.Fails, r.Name, r.Unit, r.Verdict, r.Fails)
		}
		switch r.Verdict {
		case Added:
			if g.Old != nil || g.New == nil || g.New.N != 10 || g.DeltaPct != nil || g.P != nil {
				t.Errorf("added row %s: old %v new %v delta %v p %v, want only new", r.Name, g.Old, g.New, g.DeltaPct, g.P)
			}
		case Removed:
			if g.New != nil || g.Old == nil || g.Old.N != 10 || g.DeltaPct != nil || g.P != nil {
				t.Errorf("removed row %s: old %v new %v delta %v p %v, want only old", r.Name, g.Old, g.New, g.DeltaPct, g.P)
			}
		default:
			if g.Old == nil || g.New == nil || g.DeltaPct == nil || g.P == nil {
				t.Errorf("row %s %s: old %v new %v delta %v p %v, want all", r.Name, r.Unit, g.Old, g.New, g.DeltaPct, g.P)
				continue
			}
			if g.Old.Center != r.Old.Center || g.Old.Lo == nil || *g.Old.Lo != r.Old.Lo || g.Old.Hi == nil || *g.Old.Hi != r.Old.Hi || g.Old.N != r.Old.N ||
				g.New.Center != r.New.Center || g.New.N != r.New.N {
				t.Errorf("row %s %s: sides %+v %+v, want %+v %+v", r.Name, r.Unit, *g.Old, *g.New, r.Old, r.New)
			}
			if math.Abs(*g.DeltaPct-100*r.Delta) > 1e-9 || *g.P != r.PAdj {
				t.Errorf("row %s %s: delta_pct %v p %v, want %v %v", r.Name, r.Unit, *g.DeltaPct, *g.P, 100*r.Delta, r.PAdj)
			}
		}
		if r.Name == "Get/size=64/impl=pool-2" && r.Unit == "sec/op" {
			if !g.Fails || math.Abs(*g.DeltaPct-20) > 1 || g.Old.Center < 99e-9 || g.Old.Center > 101e-9 {
				t.Errorf("Get sec/op: %+v, want a failing +20%% change from 100ns", g)
			}
		}
	}
}

func TestWriteCSV(t *testing.T) {
	rows := goldenRows(t)
	var b bytes.Buffer
	if err := WriteCSV(&b, rows); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header := "pkg name unit old_center old_lo old_hi old_n new_center new_lo new_hi new_n delta_pct p verdict fails_gate"
	if len(recs) == 0 || strings.Join(recs[0], " ") != header {
		t.Fatalf("header %q, want %q", recs[0], header)
	}
	if len(recs) != len(rows)+1 {
		t.Fatalf("%d records, want a header and %d rows", len(recs), len(rows))
	}
	field := map[string]int{}
	for i, f := range recs[0] {
		field[f] = i
	}
	for i, rec := range recs[1:] {
		r := rows[i]
		get := func(f string) string { return rec[field[f]] }
		if get("name") != r.Name || get("unit") != r.Unit || get("verdict") != r.Verdict || get("fails_gate") != fmt.Sprint(r.Fails) {
			t.Errorf("record %d: %q, want %s %s %s %v", i, rec, r.Name, r.Unit, r.Verdict, r.Fails)
		}
		if get("old_n") != fmt.Sprint(r.Old.N) || get("new_n") != fmt.Sprint(r.New.N) {
			t.Errorf("record %d: n %s+%s, want %d+%d", i, get("old_n"), get("new_n"), r.Old.N, r.New.N)
		}
		switch r.Verdict {
		case Added, Removed:
			if get("delta_pct") != "" || get("p") != "" {
				t.Errorf("%s row %s: delta_pct %q p %q, want empty", r.Verdict, r.Name, get("delta_pct"), get("p"))
			}
			missing := "old_center"
			if r.Verdict == Removed {
				missing = "new_center"
			}
			if get(missing) != "" {
				t.Errorf("%s row %s: %s %q, want empty for the side that did not run", r.Verdict, r.Name, missing, get(missing))
			}
		default:
			if get("delta_pct") == "" || get("p") == "" || get("old_center") == "" || get("new_center") == "" {
				t.Errorf("record %d: %q, want every number", i, rec)
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
	if err != nil {
		t.Fatal(err)
	}
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
		t.Fatalf("%d rows, want %d", len(rows), len(tests))
	}
	for i, tt := range tests {
		r := rows[i]
		if r.Name != tt.name || r.Unit != tt.unit {
			t.Errorf("row %d: %s %s, want %s %s", i, r.Name, r.Unit, tt.name, tt.unit)
			continue
		}
		check := func(what string, s Side, want float64) {
			if want == 0 {
				if s.N != 0 {
					t.Errorf("%s %s %s: %+v, want missing", r.Name, r.Unit, what, s)
				}
				return
			}
			if s.N != 1 || math.Abs(s.Center-want) > 1e-9*want {
				t.Errorf("%s %s %s: %+v, want one sample of %g", r.Name, r.Unit, what, s, want)
			}
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
				if err != nil || len(rows) != 1 {
					t.Errorf("Compare = %+v, %v; want one row", rows, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Compare = %+v, nil; want a syntax error", rows)
			}
			if rows != nil {
				t.Errorf("rows %+v with error %v, want none", rows, err)
			}
			var se *benchfmt.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v (%T), want a *benchfmt.SyntaxError", err, err)
			}
			if se.FileName != tt.file || se.Line != tt.line || !strings.Contains(se.Msg, tt.msg) {
				t.Errorf("syntax error %s:%d: %s, want %s:%d: …%s…", se.FileName, se.Line, se.Msg, tt.file, tt.line, tt.msg)
			}
			if !strings.HasPrefix(err.Error(), tt.wrap) {
				t.Errorf("error %q, want prefix %q", err, tt.wrap)
			}
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
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Errorf("%d rows, want one per package", len(rows))
	}
	for _, r := range rows {
		near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*b }
		if r.Old.N != 10 || r.New.N != 10 || !near(r.Old.Center, 100e-9) && !near(r.Old.Center, 1000e-9) {
			t.Errorf("row %s %s: old %d samples, median %g; new %d samples: the packages' samples are pooled", r.Name, r.Unit, r.Old.N, r.Old.Center, r.New.N)
		}
	}
}

// TestWriteJSONFewSamples writes rows of five samples a side, whose 95%
// intervals are infinite: JSON has no infinities, so the bounds must come
// out as null rather than fail the encoder ("unsupported value: -Inf").
func TestWriteJSONFewSamples(t *testing.T) {
	old := "BenchmarkX-2 1 100 ns/op\n"
	nu := "BenchmarkX-2 1 120 ns/op\n"
	rows, err := Compare(strings.NewReader(strings.Repeat(old, 5)), strings.NewReader(strings.Repeat(nu, 5)), DefaultConfidence)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 || !math.IsInf(rows[0].Old.Lo, -1) && !math.IsInf(rows[0].Old.Hi, 1) {
		t.Fatalf("rows %+v: want an infinite interval at n=5 for this test to mean anything", rows)
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, Judge(rows, Gate{Alpha: DefaultAlpha, Threshold: 0.05})); err != nil {
		t.Fatalf("WriteJSON: %v", err)
	}
	var got []struct {
		Old struct {
			Center float64
			Lo, Hi *float64
			N      int
		}
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if len(got) == 0 || got[0].Old.N != 5 || math.Abs(got[0].Old.Center-100e-9) > 1e-15 || (got[0].Old.Lo != nil && got[0].Old.Hi != nil) {
		t.Errorf("JSON %s: want n 5, center 1e-7 and a null bound", b.String())
	}
}
