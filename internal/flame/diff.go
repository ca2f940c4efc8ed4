package flame

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
)

// Diff joins base and new by call path into a differential graph. Each
// frame holds both values; its change is its share of new's total minus
// its share of base's total, so that a frame that takes a larger part of
// the time (or of the allocations) shows red, a smaller part blue, however
// the totals differ. Widths are the new profile's values: a frame found
// only in base has no width and is not drawn, and the HTML page lists the
// outermost such frames beside the graph. The minimum share of the drawn
// frames is new's.
//
// Diff returns an error when the graphs' sample types or units differ,
// when either is itself a diff, or when either total is zero.
func Diff(base, new *Graph) (*Graph, error) {
	if base == nil || new == nil {
		return nil, errors.New("flame: diff of a nil graph")
	}
	if base.diff || new.diff {
		return nil, errors.New("flame: cannot diff a differential graph")
	}
	if base.sample != new.sample || base.unit != new.unit {
		return nil, fmt.Errorf("flame: sample types differ: base has %s (%s), new has %s (%s)", base.sample, base.unit, new.sample, new.unit)
	}
	if base.Total() <= 0 || new.Total() <= 0 {
		return nil, errors.New("flame: diff of an empty graph")
	}
	b := newBuilder(new.sample, new.unit, new.minShare)
	b.g.diff = true
	b.merge(new, 0, 0, false)
	b.merge(base, 0, 0, true)
	return b.finish(), nil
}

// DiffPerOp is Diff for two profiles of one benchmark that ran baseOps and
// newOps iterations: the base values are scaled to newOps iterations
// before they are compared, and a frame's change is the change of its own
// (self) time, or allocations, per operation, as a share of the new
// profile's total. A benchmark that got slower throughout then shows red
// exactly where the time went, which a change of shares cannot show: a
// benchmark runs for about -benchtime whatever its speed, so its loop keeps
// its share of the profile. Callers whose own time did not change stay
// grey although they include the slower frame. (Set-up outside the loop is
// in both profiles too; scaled per operation it shows as slower when the
// new run did fewer iterations, in proportion to its small share of a long
// enough run.)
func DiffPerOp(base, new *Graph, baseOps, newOps int64) (*Graph, error) {
	if baseOps <= 0 || newOps <= 0 {
		return nil, fmt.Errorf("flame: iteration counts %d and %d, want both positive", baseOps, newOps)
	}
	d, err := Diff(base, new)
	if err != nil {
		return nil, err
	}
	d.baseOps, d.newOps = baseOps, newOps
	return d, nil
}

// perOp reports whether g is a diff made by DiffPerOp.
func (g *Graph) perOp() bool { return g.baseOps > 0 }

// baseScale is the factor that puts a base value on the new profile's
// scale: the ratio of the iteration counts for DiffPerOp, else of the
// totals (so that the change is one of shares).
func (g *Graph) baseScale() float64 {
	if g.perOp() {
		return float64(g.newOps) / float64(g.baseOps)
	}
	return float64(g.Total()) / float64(g.BaseTotal())
}

// merge adds src's frame n, and the frames below it, to the builder's
// frame at, as base values when base is set.
func (b *builder) merge(src *Graph, n, at int32, base bool) {
	sn := &src.nodes[n]
	dn := &b.g.nodes[at]
	dn.addTotal(sn.total, base)
	if base {
		dn.baseSelf += sn.self
	} else {
		dn.self += sn.self
	}
	for _, k := range sn.kids {
		c := b.child(at, b.intern(src.names[src.nodes[k].name]))
		b.merge(src, k, c, base)
	}
}

// change returns frame n's new value minus its base value put on the new
// scale (see baseScale), as a share of the new total: for Diff, its share
// of the new total minus its share of the base total, between -1 and 1;
// for DiffPerOp, the change of its own (self) cost per operation.
func (g *Graph) change(n int32) float64 {
	nd := &g.nodes[n]
	if g.perOp() {
		return (float64(nd.self) - g.baseScale()*float64(nd.baseSelf)) / float64(g.Total())
	}
	return (float64(nd.total) - g.baseScale()*float64(nd.baseTotal)) / float64(g.Total())
}

// Diff colors: a frame's change is scaled by the largest change of a drawn
// frame (at least minColorScale), rounded to one of diffSteps steps either
// way, and changes smaller than deadZone show as unchanged (grey).
const (
	diffSteps     = 10
	minColorScale = 0.01  // one percentage point
	deadZone      = 0.001 // a tenth of a percentage point
)

// colorSteps returns, for the frames drawn (in the order given), their
// color step: 0 for unchanged, 1 to diffSteps for a larger share, -1 to
// -diffSteps for a smaller one. diffPalette maps a step to its color.
func (g *Graph) colorSteps(drawn []int32) []int {
	scale := minColorScale
	for _, n := range drawn {
		scale = max(scale, math.Abs(g.change(n)))
	}
	steps := make([]int, len(drawn))
	for i, n := range drawn {
		c := g.change(n)
		if math.Abs(c) < deadZone {
			continue
		}
		s := int(math.Round(c / scale * diffSteps))
		if s == 0 {
			s = int(math.Copysign(1, c))
		}
		steps[i] = max(-diffSteps, min(diffSteps, s))
	}
	return steps
}

// diffPalette returns the colors of the steps -diffSteps to diffSteps, at
// index step+diffSteps: blue through grey to red.
func diffPalette() []string {
	pal := make([]string, 2*diffSteps+1)
	for s := -diffSteps; s <= diffSteps; s++ {
		t := math.Abs(float64(s)) / diffSteps
		strong, weak := 255-25*(1-t), 225*(1-t)+30*t // the step's own channel, the two others
		r, g, b := strong, weak, weak
		switch {
		case s == 0:
			r, g, b = 224, 224, 224
		case s < 0:
			r, b = weak, strong
		}
		pal[s+diffSteps] = fmt.Sprintf("#%02x%02x%02x", int(r), int(g), int(b))
	}
	return pal
}

// baseOnly returns the outermost frames that have a value in base only,
// largest first, at most limit of them, with base shares of at least the
// graph's minimum share.
func (g *Graph) baseOnly(limit int) []int32 {
	if !g.diff {
		return nil
	}
	minShare := g.minShare
	if minShare == 0 {
		minShare = DefaultMinShare
	}
	var out []int32
	for i := 1; i < len(g.nodes); i++ {
		n := &g.nodes[i]
		if n.total == 0 && n.baseTotal > 0 && g.nodes[n.parent].total > 0 &&
			float64(n.baseTotal) >= minShare*float64(g.BaseTotal()) {
			out = append(out, int32(i))
		}
	}
	slices.SortStableFunc(out, func(a, b int32) int {
		return cmp.Compare(g.nodes[b].baseTotal, g.nodes[a].baseTotal)
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}
