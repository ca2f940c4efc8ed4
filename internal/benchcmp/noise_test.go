package benchcmp

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestQuartiles(t *testing.T) {
	// Ranks (n-1)p of 1..8: 1.75, 3.5, 5.25.
	q1, m, q3 := Quartiles([]float64{8, 1, 7, 2, 6, 3, 5, 4})
	assert.InDelta(t, 2.75, q1, 1e-12)
	assert.InDelta(t, 4.5, m, 1e-12)
	assert.InDelta(t, 6.25, q3, 1e-12)
	q1, m, q3 = Quartiles([]float64{3})
	assert.Equal(t, []float64{3, 3, 3}, []float64{q1, m, q3})
	q1, _, _ = Quartiles(nil)
	assert.True(t, math.IsNaN(q1))
}

func TestTukeyOutliers(t *testing.T) {
	tests := []struct {
		name   string
		values []float64
		want   int
		lo, hi float64
	}{
		// Sorted, ranks 2.25 and 6.75: Q1 100.25, Q3 102, IQR 1.75:
		// fences 97.625 and 104.625.
		{"one high", []float64{100, 101, 102, 101, 100, 102, 103, 101, 100, 150}, 1, 97.625, 104.625},
		{"one each side", []float64{100, 101, 102, 101, 100, 102, 103, 101, 50, 150}, 2, 97.625, 104.625},
		{"just inside", []float64{100, 101, 102, 101, 100, 102, 103, 101, 100, 104.6}, 0, 97.625, 104.625},
		// Q1 2, Q3 4: fences -1 and 7; on the fence is inside.
		{"on the fence", []float64{1, 2, 3, 4, 7}, 0, -1, 7},
		{"past the fence", []float64{1, 2, 3, 4, 7.01}, 1, -1, 7},
		{"none", []float64{10, 11, 12, 13, 14, 15}, 0, 7.5, 17.5},
		// A constant side: any other value is out.
		{"constant but one", []float64{0, 0, 0, 0, 0, 1}, 1, 0, 0},
		// Almost constant (instructions/op): the IQR is raised to 0.5%
		// of the median, 5 here, so a sample 0.2% off is in and 2% off
		// is out: fences 1000 ∓ 7.5.
		{"near constant", []float64{1000, 1000, 1000, 1000, 1000, 1002}, 0, 992.5, 1007.5},
		{"near constant, one far", []float64{1000, 1000, 1000, 1000, 1000, 1020}, 1, 992.5, 1007.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, lo, hi := TukeyOutliers(tt.values)
			assert.Equal(t, tt.want, n)
			assert.InDelta(t, tt.lo, lo, 1e-9)
			assert.InDelta(t, tt.hi, hi, 1e-9)
		})
	}
	n, lo, hi := TukeyOutliers([]float64{1, 2, 1000})
	assert.Equal(t, 0, n, "fewer than MinTukeySamples")
	assert.True(t, math.IsInf(lo, -1) && math.IsInf(hi, 1))
}

func TestSpreadRatio(t *testing.T) {
	// IQR 2.5 (Q1 101.25, Q3 103.75) over median 102.5.
	a := Spread([]float64{100, 101, 102, 103, 104, 105})
	assert.InDelta(t, 2.5/102.5, a, 1e-12)
	// IQR 25 over 102.5: ten times a.
	b := Spread([]float64{50, 90, 100, 105, 120, 150})
	q1, m, q3 := Quartiles([]float64{50, 90, 100, 105, 120, 150})
	assert.InDelta(t, (q3-q1)/m, b, 1e-12)
	r := SpreadRatio(a, b)
	assert.InDelta(t, b/a, r, 1e-12)
	assert.Greater(t, r, float64(MaxSpreadRatio))
	assert.Equal(t, r, SpreadRatio(b, a), "symmetric")
	// A constant side is raised to the floor.
	assert.InDelta(t, 0.03/SpreadFloor, SpreadRatio(0, 0.03), 1e-12)
	assert.InDelta(t, 0, SpreadRatio(0, 0), 1e-12)
	assert.True(t, math.IsNaN(SpreadRatio(math.NaN(), 1)))
	assert.True(t, math.IsNaN(Spread([]float64{1, 2, 3})), "too few")
	assert.True(t, math.IsNaN(Spread([]float64{0, 0, 0, 0})), "median 0")
}

// noisyRows returns judged rows of three benchmarks: Quiet (same tight
// samples on both sides), Outlier (one wild sample in new) and Uneven
// (old tight, new spread ten times wider).
func noisyRows(t *testing.T) []Judged {
	t.Helper()
	var old, new strings.Builder
	for _, b := range []*strings.Builder{&old, &new} {
		b.WriteString("pkg: example.com/m\n")
	}
	tight := []float64{100, 101, 102, 103, 104, 105, 100, 101, 102, 103}
	wide := []float64{70, 90, 100, 105, 130, 140, 80, 95, 110, 120}
	for i := range 10 {
		fmt.Fprintf(&old, "BenchmarkQuiet 1000 %g ns/op\nBenchmarkOutlier 1000 %g ns/op\nBenchmarkUneven 1000 %g ns/op\n", tight[i], tight[i], tight[i])
		out := tight[(i+3)%10]
		if i == 4 {
			out = 400
		}
		fmt.Fprintf(&new, "BenchmarkQuiet 1000 %g ns/op\nBenchmarkOutlier 1000 %g ns/op\nBenchmarkUneven 1000 %g ns/op\n", tight[(i+3)%10], out, wide[i])
	}
	rows, err := Compare(strings.NewReader(old.String()), strings.NewReader(new.String()), DefaultConfidence)
	require.NoError(t, err)
	return Judge(rows, Gate{Alpha: DefaultAlpha, Threshold: 0.05})
}

func TestDiagnose(t *testing.T) {
	rows := noisyRows(t)
	run := &Diagnosis{}
	Diagnose(rows, run)
	require.Len(t, rows, 3)
	marks := map[string][]string{}
	for _, r := range rows {
		assert.True(t, r.Noise.Diagnosed)
		assert.Same(t, run, r.Noise.Run)
		marks[r.Name] = NoiseMarks(r)
	}
	assert.Empty(t, marks["Quiet"])
	assert.Equal(t, []string{"outliers 0+1"}, marks["Outlier"])
	require.Len(t, marks["Uneven"], 1)
	assert.Contains(t, marks["Uneven"][0], "spread ")
	assert.Len(t, NoiseNotes(rows), 2, "%q", NoiseNotes(rows))

	run.Busy = []string{"the machine was busy"}
	assert.Equal(t, []string{"busy"}, NoiseMarks(rows[0]))
	for _, unit := range []string{"instructions/op", "allocs/op", "B/op"} {
		r := rows[0]
		r.Unit = unit
		assert.Empty(t, NoiseMarks(r), "%s: a count the load does not change is not marked busy", unit)
	}
	assert.Equal(t, "the machine was busy", NoiseNotes(rows)[0])

	// Not diagnosed: no marks, no notes.
	plain := noisyRows(t)
	assert.Empty(t, NoiseMarks(plain[1]))
	assert.Empty(t, NoiseNotes(plain))
}

func TestCountAA(t *testing.T) {
	rows := goldenRows(t)
	a := CountAA(rows, Gate{Alpha: 0.05, Threshold: 0.05})
	// The golden rows: 16 rows of which 2 are one-sided.
	compared, significant, gated, failed := 0, 0, 0, 0
	for _, r := range rows {
		if r.Old.N > 0 && r.New.N > 0 {
			compared++
			if r.Verdict == Better || r.Verdict == Worse {
				significant++
			}
			if r.Unit == "sec/op" || r.Unit == "allocs/op" || r.Unit == "B/op" {
				gated++
			}
			if r.Fails {
				failed++
			}
		}
	}
	assert.Equal(t, AA{Alpha: 0.05, Compared: compared, Significant: significant, Gated: gated, Failed: failed}, a)
	assert.Positive(t, a.Significant)
	assert.InDelta(t, float64(significant)/float64(compared), a.Rate(), 1e-12)
	assert.Contains(t, a.String(), fmt.Sprintf("(%d of %d compared rows judged significant at alpha 0.05)", significant, compared))
	assert.True(t, math.IsNaN(AA{}.Rate()))
}

// TestNoiseMarksInEveryFormat checks that the busy warning, the A/A rate
// and the row marks appear in each format.
func TestNoiseMarksInEveryFormat(t *testing.T) {
	rows := noisyRows(t)
	g := Gate{Alpha: DefaultAlpha, Threshold: 0.05}
	aa := CountAA(rows, g)
	Diagnose(rows, &Diagnosis{Busy: []string{"machine busy: load average 7.5 on 2 CPUs"}, AA: &aa})
	write := map[string]func(*bytes.Buffer) error{
		"text":     func(b *bytes.Buffer) error { return WriteText(b, "old", "new", rows) },
		"markdown": func(b *bytes.Buffer) error { return WriteMarkdown(b, "old", "new", rows) },
		"json":     func(b *bytes.Buffer) error { return WriteJSON(b, rows) },
		"csv":      func(b *bytes.Buffer) error { return WriteCSV(b, rows) },
		"html": func(b *bytes.Buffer) error {
			return WriteHTML(b, Report{OldName: "old", NewName: "new", Gate: g, Rows: rows})
		},
	}
	for name, w := range write {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, w(&b))
			out := b.String()
			if name != "csv" { // CSV has the row marks only
				assert.Contains(t, out, "load average 7.5 on 2 CPUs")
			}
			assert.Regexp(t, `outliers 0(\+|&#43;)1`, out)
			assert.Contains(t, out, "spread ")
			assert.Contains(t, out, "busy")
			if name != "csv" {
				assert.Contains(t, out, "false", "A/A")
			}
		})
	}

	var b bytes.Buffer
	require.NoError(t, WriteText(&b, "old", "new", rows))
	assert.Regexp(t, `(?m)^Outlier .*\[busy; outliers 0\+1`, b.String())
	assert.Contains(t, b.String(), "\nnoise: A/A comparison")

	b.Reset()
	require.NoError(t, WriteJSON(&b, rows))
	var got []struct {
		Name  string
		Noise struct {
			Marks       []string
			OldOutliers int `json:"outliers_old"`
			NewOutliers int `json:"outliers_new"`
			Busy        []string
			AA          *struct {
				Rate     *float64 `json:"false_positive_rate"`
				Compared int
			}
		}
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &got))
	require.Len(t, got, 3)
	assert.Equal(t, 1, got[1].Noise.NewOutliers)
	assert.Equal(t, []string{"machine busy: load average 7.5 on 2 CPUs"}, got[1].Noise.Busy)
	require.NotNil(t, got[1].Noise.AA)
	require.NotNil(t, got[1].Noise.AA.Rate)
	assert.InDelta(t, aa.Rate(), *got[1].Noise.AA.Rate, 1e-12)

	b.Reset()
	require.NoError(t, WriteCSV(&b, rows))
	recs, err := csv.NewReader(&b).ReadAll()
	require.NoError(t, err)
	assert.Equal(t, "busy; outliers 0+1", recs[2][len(recs[2])-1])

	b.Reset()
	require.NoError(t, WriteHTML(&b, Report{OldName: "old", NewName: "new", Gate: g, Rows: rows}))
	assert.Contains(t, b.String(), `<div class="noise-banner" role="alert">`)
	assert.Contains(t, b.String(), `<span class="noise-mark" title="noise">⚠ busy; outliers 0&#43;1</span>`)
}

// TestFalsePositiveMark: in an A/A comparison every row judged better or
// worse is marked a false positive, and no other row is.
func TestFalsePositiveMark(t *testing.T) {
	rows := goldenRows(t)
	a := CountAA(rows, Gate{Alpha: 0.05, Threshold: 0.05})
	Diagnose(rows, &Diagnosis{AA: &a})
	marked := 0
	for _, r := range rows {
		fp := slices.Contains(NoiseMarks(r), "false positive")
		assert.Equal(t, r.Verdict == Better || r.Verdict == Worse, fp, "%s %s: verdict %s, marks %q", r.Name, r.Unit, r.Verdict, NoiseMarks(r))
		if fp {
			marked++
		}
	}
	assert.Equal(t, a.Significant, marked)

	// Not A/A: no such mark.
	Diagnose(rows, &Diagnosis{})
	for _, r := range rows {
		assert.NotContains(t, NoiseMarks(r), "false positive")
	}
}
