package flame

import (
	"errors"
	"fmt"
	"math"
)

// DiffOptions choose how a differential graph matches the frames of its
// two profiles and what its colors show.
type DiffOptions struct {
	// BaseOps and NewOps, when both are set, are the iteration counts of
	// the two profiled runs of one benchmark: the graph is per operation
	// (see DiffPerOp).
	BaseOps, NewOps int64
	// Exact matches frames by their names as the profiles have them;
	// otherwise names are normalized first (see NormalizeName).
	Exact bool
	// Renames are applied, in order, to both profiles' names after the
	// normalization (see Rename).
	Renames []Rename
}

// Diff joins base and new by call path into a differential graph, with
// the default DiffOptions: frames are matched by their normalized names.
// Each frame holds both values; its change is its share of new's total
// minus its share of base's total, so that a frame that takes a larger
// part of the time (or of the allocations) shows red, a smaller part
// blue, however the totals differ. Widths are the new profile's values,
// plus room for the frames found on base's call paths only, drawn at
// their base value put on new's scale. The minimum share of the drawn
// frames is new's.
//
// Diff returns an error when the graphs' sample types or units differ,
// when either is itself a diff, or when either total is zero.
func Diff(base, new *Graph) (*Graph, error) { return DiffWith(base, new, DiffOptions{}) }

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
	return DiffWith(base, new, DiffOptions{BaseOps: baseOps, NewOps: newOps})
}

// DiffWith is Diff, or DiffPerOp when o has iteration counts, with the
// frame matching of o.
//
// Unless o.Exact, a frame's name is normalized (NormalizeName) and then
// renamed (o.Renames) before the two profiles are joined, and a frame
// whose name then equals its caller's while their names in the profile
// differ is merged into its caller: the wrapper of a generic function
// and the shape instantiation it calls (both "pkg.(*T).M" once
// normalized), or a wrapper kept under its old name that calls the
// renamed function it wraps. A recursive call, the same name in the
// profile, stays two frames. runtime.asyncPreempt, the frame a preemption
// signal pushes onto the function it interrupts, is folded with the frames
// below it into that function's own value: how often a signal lands where
// depends on the machine's load, not on the code. The frames keep their names in either
// profile for the page to show.
func DiffWith(base, new *Graph, o DiffOptions) (*Graph, error) {
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
	if (o.BaseOps != 0 || o.NewOps != 0) && (o.BaseOps <= 0 || o.NewOps <= 0) {
		return nil, fmt.Errorf("flame: iteration counts %d and %d, want both positive", o.BaseOps, o.NewOps)
	}
	b := newBuilder(new.sample, new.unit, new.minShare)
	b.g.diff = true
	m := &matcher{exact: o.Exact, renames: o.Renames, names: map[string]string{}}
	b.merge(new, 0, 0, false, true, m)
	b.merge(base, 0, 0, true, true, m)
	g := b.finish()
	g.baseOps, g.newOps = o.BaseOps, o.NewOps
	return g, nil
}

// asyncPreempt is the frame of Go's asynchronous preemption.
const asyncPreempt = "runtime.asyncPreempt"

// matcher maps a profile's frame names to the names a diff matches.
type matcher struct {
	exact   bool
	renames []Rename
	names   map[string]string
}

func (m *matcher) name(raw string) string {
	if s, ok := m.names[raw]; ok {
		return s
	}
	s := raw
	if !m.exact {
		s = NormalizeName(s)
	}
	for _, r := range m.renames {
		s = r.apply(s)
	}
	m.names[raw] = s
	return s
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
// frame at, as base values when base is set; addTotal is false for a
// frame merged into its caller (see DiffWith), whose total its caller's
// already holds. Frames are named by m.
func (b *builder) merge(src *Graph, n, at int32, base, addTotal bool, m *matcher) {
	sn := &src.nodes[n]
	dn := &b.g.nodes[at]
	raw := src.names[sn.name]
	if addTotal {
		dn.addTotal(sn.total, base)
	}
	if base {
		dn.baseSelf += sn.self
		if dn.baseRaw == 0 {
			dn.baseRaw = b.intern(raw) + 1
		}
	} else {
		dn.self += sn.self
		if dn.newRaw == 0 {
			dn.newRaw = b.intern(raw) + 1
		}
	}
	for _, k := range sn.kids {
		kraw := src.names[src.nodes[k].name]
		if at != 0 && !m.exact && kraw == asyncPreempt {
			// Where a preemption signal interrupted the caller: its
			// samples, and those of the scheduler it entered, are the
			// caller's own.
			if base {
				dn.baseSelf += src.nodes[k].total
			} else {
				dn.self += src.nodes[k].total
			}
			continue
		}
		name := m.name(kraw)
		if at != 0 && kraw != raw && name == b.g.names[b.g.nodes[at].name] {
			b.merge(src, k, at, base, false, m)
			continue
		}
		c := b.child(at, b.intern(name))
		b.merge(src, k, c, base, true, m)
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

// widths returns every frame's drawn width. A frame of a single graph,
// or of a diff that has a new value, is as wide as its new value plus
// the widths of the frames below it that have a base value only; such a
// frame, found on base's call paths only, is as wide as its base value
// put on the new scale (rounded down, so that frames nest). The root is
// then wider than the new total by the base-only frames.
func (g *Graph) widths() []int64 {
	w := make([]int64, len(g.nodes))
	if !g.diff {
		for i := range g.nodes {
			w[i] = g.nodes[i].total
		}
		return w
	}
	scale := g.baseScale()
	extra := make([]int64, len(g.nodes))
	for i := len(g.nodes) - 1; i >= 0; i-- { // children follow their parent
		n := &g.nodes[i]
		if n.total == 0 {
			w[i] = int64(scale * float64(n.baseTotal))
		} else {
			w[i] = n.total + extra[i]
		}
		if i > 0 {
			if n.total == 0 {
				extra[n.parent] += w[i]
			} else {
				extra[n.parent] += extra[i]
			}
		}
	}
	return w
}
