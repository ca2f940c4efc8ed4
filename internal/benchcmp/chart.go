package benchcmp

import (
	"math"
	"strconv"

	"golang.org/x/perf/benchunit"
)

// Geometry of a chart, in SVG user units (pixels at 100%).
const (
	chartWidth  = 640
	chartHeight = 112
	chartLeft   = 44  // left end of the axis; the lane labels are left of it
	chartRight  = 620 // right end of the axis
	chartAxisY  = 88  // the axis line
	laneOld     = 30  // centre of the old revision's lane
	laneNew     = 62  // centre of the new revision's lane
	laneHalf    = 12  // half the height of a lane's band and median mark
)

// geometry hands the constants to the page's template.
type geometry struct{ Width, Height, Left, Right, AxisY int }

var chartGeometry = geometry{chartWidth, chartHeight, chartLeft, chartRight, chartAxisY}

// jitter spreads a lane's points vertically so that equal samples stay
// visible: the i-th point is drawn jitter[i%len(jitter)] below the lane's
// centre.
var jitter = [...]float64{0, -6, 6, -3, 3, -9, 9}

// A chart is the strip plot of one row, drawn as inline SVG: every sample
// of each revision as a point in a lane of its own, the median as a mark
// across the lane and the confidence interval as a band behind the points,
// over an axis in the row's unit. Its fields are what the page's template
// draws; lo and hi are the values at the two ends of the axis.
type chart struct {
	Unit   string
	Lanes  []lane
	Ticks  []tick
	lo, hi float64
}

// A lane is one revision's samples.
type lane struct {
	Label  string // "old" or "new"; also the CSS class
	Y      float64
	Points []point
	Median *mark // nil without samples
	Band   *band // nil when the interval is not finite (too few samples)
}

// A point is one sample.
type point struct {
	X, Y  float64
	Title string // the value, for hovering
}

// A mark is the median of a lane.
type mark struct {
	X, Y1, Y2 float64
	Title     string
}

// A band is the confidence interval of a lane.
type band struct {
	X, Y, W, H float64
	Title      string
}

// A tick is a labelled position on the axis.
type tick struct {
	X     float64
	Label string
}

// newChart lays out r's samples on an axis that spans every sample and
// every finite interval bound of both sides, with a margin.
func newChart(r Judged) chart {
	c := chart{Unit: r.Unit}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range []Side{r.Old, r.New} {
		if s.N == 0 {
			continue // its zero interval is no value
		}
		for _, v := range append([]float64{s.Lo, s.Hi}, s.Values...) {
			if !math.IsInf(v, 0) && !math.IsNaN(v) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	switch {
	case lo > hi: // no values at all
		lo, hi = 0, 1
	case lo == hi:
		pad := math.Abs(lo) * 0.1
		if pad == 0 {
			pad = 1
		}
		lo, hi = lo-pad, hi+pad
	default:
		pad := (hi - lo) * 0.06
		lo, hi = lo-pad, hi+pad
	}
	c.lo, c.hi = lo, hi
	class := benchunit.ClassOf(r.Unit)
	c.Ticks = c.ticks(class)
	for _, l := range []struct {
		label string
		y     float64
		s     Side
	}{{"old", laneOld, r.Old}, {"new", laneNew, r.New}} {
		ln := lane{Label: l.label, Y: l.y}
		for i, v := range l.s.Values {
			ln.Points = append(ln.Points, point{c.x(v), l.y + jitter[i%len(jitter)], benchunit.Scale(v, class) + " " + r.Unit})
		}
		if l.s.N > 0 {
			title := "median " + benchunit.Scale(l.s.Center, class) + " " + r.Unit
			if finiteInterval(l.s) {
				x0, x1 := c.x(l.s.Lo), c.x(l.s.Hi)
				ln.Band = &band{x0, l.y - laneHalf, x1 - x0, 2 * laneHalf,
					"interval " + benchunit.Scale(l.s.Lo, class) + " – " + benchunit.Scale(l.s.Hi, class) + " " + r.Unit}
			} else {
				title += " (too few samples for a confidence interval)"
			}
			ln.Median = &mark{c.x(l.s.Center), l.y - laneHalf, l.y + laneHalf, title}
		}
		c.Lanes = append(c.Lanes, ln)
	}
	return c
}

func finiteInterval(s Side) bool {
	return !math.IsInf(s.Lo, 0) && !math.IsInf(s.Hi, 0) && !math.IsNaN(s.Lo) && !math.IsNaN(s.Hi)
}

// x returns the horizontal position of value v.
func (c chart) x(v float64) float64 {
	return chartLeft + (v-c.lo)/(c.hi-c.lo)*(chartRight-chartLeft)
}

// ticks returns about five ticks at round values (1, 2 or 5 times a power
// of ten apart) inside the axis, labelled with one common scale.
func (c chart) ticks(class benchunit.Class) []tick {
	raw := (c.hi - c.lo) / 5
	base := math.Pow(10, math.Floor(math.Log10(raw)))
	step := base
	for _, m := range []float64{2, 5, 10} {
		if step >= raw {
			break
		}
		step = base * m
	}
	first := math.Ceil(c.lo / step)
	var vals []float64
	for i := 0; ; i++ {
		v := (first + float64(i)) * step
		if v > c.hi {
			break
		}
		vals = append(vals, v)
	}
	sc := benchunit.CommonScale(vals, class)
	ts := make([]tick, len(vals))
	for i, v := range vals {
		if math.Abs(v) < step*1e-9 {
			v = 0 // not -0 or 1e-17 from the multiplication
		}
		ts[i] = tick{c.x(v), sc.Format(v)}
	}
	return ts
}

// px formats a coordinate for the page: one decimal, which is finer than a
// screen pixel and keeps the golden file stable.
func px(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
