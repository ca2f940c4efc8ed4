// Package flame builds flame graphs from pprof profiles and writes them as
// a self-contained HTML page or as folded stacks.
//
// A Graph aggregates the samples of one or more profiles by call path:
// every frame is one function on one path from the root, its value (its
// width) the sum of the samples whose stack passes through it, its self
// value the part of that in which it is the leaf. Inlined calls are
// expanded as pprof does, so an inlined function is a frame of its own.
// Diff joins two graphs by path, matching frames by normalized names (see
// NormalizeName) so that a mechanical renaming such as a generic rewrite
// does not make them differ, and records, per frame, the change in its
// share of the total.
//
// The HTML page draws only frames whose value is at least a minimum share
// of the total (Options.MinShare, by default DefaultMinShare); a narrower
// frame stays part of its parent's value and shows as its parent's self.
// The folded stacks and the graph itself are always exact.
package flame

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
)

// DefaultMinShare is the smallest share of the total, 0.05%, that a frame
// needs to be drawn in the HTML page when Options.MinShare is zero. At
// that share no frame is narrower than 0.6 pixels on a 1200-pixel-wide
// page, and at most 2,000 frames share one level of the graph.
const DefaultMinShare = 0.0005

// rootName is the name of the root frame, which spans the whole graph.
const rootName = "all"

// Options select what a Graph holds and draws.
type Options struct {
	// Sample is the sample type, one of the profile's own type names:
	// "cpu" or "samples" for a CPU profile, "alloc_space",
	// "alloc_objects", "inuse_space" or "inuse_objects" for a heap
	// profile. Empty means cpu when the profile has it, else alloc_space
	// when it has it, else the profile's default sample type (or its last,
	// as pprof does).
	Sample string
	// Focus, when not nil, keeps only the samples with a function on
	// their stack whose name it matches; Ignore drops the samples with
	// one. Both act as pprof's -focus and -ignore on function names.
	Focus, Ignore *regexp.Regexp
	// MinShare is the smallest share of the total that a frame needs to
	// be drawn in the HTML page. Zero means DefaultMinShare; a negative
	// value draws every frame.
	MinShare float64
	// Keep, when not nil, keeps only the samples for whose stack (the
	// function names, root first, inlined calls expanded) it returns
	// true, after Focus and Ignore. BenchmarkStack is one.
	Keep func(stack []string) bool
	// KeepLabels, when not nil, keeps only the samples for whose labels
	// (string labels, key to values; nil for none) it returns true. CPU
	// profiles carry the labels of the goroutine that was sampled
	// (runtime/pprof.SetGoroutineLabels); allocation profiles carry none.
	KeepLabels func(labels map[string][]string) bool
	// Weight, when not nil, scales the value of each sample kept by the
	// filters above by what it returns for the sample's labels and stack
	// (rounded to the unit; zero or less drops the sample): a share of
	// the samples that belong to more than one part of a run, such as
	// the garbage collector's background work, can be attributed in
	// proportion.
	Weight func(labels map[string][]string, stack []string) float64
}

// ErrNoSamples is the error of FromProfiles when the profiles hold no
// sample of the chosen type: a CPU profile of a run too short for the
// profiler's 100 Hz clock to tick, say.
var ErrNoSamples = errors.New("flame: the profiles have no samples")

// Graph is a flame graph: frames aggregated by call path. A Graph made by
// Diff also holds, per frame, the base profile's value. A Graph is not
// modified after it is made and may be used from several goroutines.
type Graph struct {
	sample, unit string
	names        []string // string table: frame names
	nodes        []node   // nodes[0] is the root; children follow their parent in preorder
	diff         bool
	minShare     float64
	// quantum is the value of one sample when the profiles' period is in
	// the unit of the graph's values (a CPU profile's 10ms), else 0.
	quantum int64
	// baseOps and newOps are the iteration counts of the two profiled
	// runs of a diff made by DiffPerOp (0 otherwise).
	baseOps, newOps int64
}

// node is one frame.
type node struct {
	name      int32 // index in Graph.names
	parent    int32 // -1 for the root
	depth     int32
	total     int64 // self and children
	self      int64
	baseTotal int64 // diff only: the base profile's total and self
	baseSelf  int64
	kids      []int32 // sorted by name
	// diff only: 1 + the index in Graph.names of the frame's name in the
	// new and in the base profile (0 when absent from it), which can
	// differ from its name when names are normalized.
	newRaw, baseRaw int32
}

// builder adds call paths to a Graph.
type builder struct {
	g     *Graph
	names map[string]int32
	kids  map[edge]int32
}

// edge names a child: its parent and its name.
type edge struct{ parent, name int32 }

func newBuilder(sample, unit string, minShare float64) *builder {
	b := &builder{
		g:     &Graph{sample: sample, unit: unit, minShare: minShare},
		names: map[string]int32{},
		kids:  map[edge]int32{},
	}
	b.g.nodes = append(b.g.nodes, node{name: b.intern(rootName), parent: -1})
	return b
}

func (b *builder) intern(s string) int32 {
	if i, ok := b.names[s]; ok {
		return i
	}
	i := int32(len(b.g.names))
	b.g.names = append(b.g.names, s)
	b.names[s] = i
	return i
}

// child returns the child of parent named name, adding it when missing.
func (b *builder) child(parent, name int32) int32 {
	e := edge{parent, name}
	if i, ok := b.kids[e]; ok {
		return i
	}
	i := int32(len(b.g.nodes))
	b.g.nodes = append(b.g.nodes, node{name: name, parent: parent, depth: b.g.nodes[parent].depth + 1})
	b.g.nodes[parent].kids = append(b.g.nodes[parent].kids, i)
	b.kids[e] = i
	return i
}

// add adds v to every frame of path (root first, names interned) and to
// the leaf's self; base adds to the base values instead.
func (b *builder) add(path []int32, v int64, base bool) {
	n := int32(0)
	b.g.nodes[0].addTotal(v, base)
	for _, name := range path {
		n = b.child(n, name)
		b.g.nodes[n].addTotal(v, base)
	}
	if base {
		b.g.nodes[n].baseSelf += v
	} else {
		b.g.nodes[n].self += v
	}
}

func (n *node) addTotal(v int64, base bool) {
	if base {
		n.baseTotal += v
	} else {
		n.total += v
	}
}

// finish sorts every frame's children by name and renumbers the frames
// in preorder, so that each frame's children follow it, left to right.
func (b *builder) finish() *Graph {
	g := b.g
	for i := range g.nodes {
		slices.SortFunc(g.nodes[i].kids, func(x, y int32) int {
			return strings.Compare(g.names[g.nodes[x].name], g.names[g.nodes[y].name])
		})
	}
	order := make([]int32, 0, len(g.nodes))
	stack := []int32{0}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		order = append(order, n)
		kids := g.nodes[n].kids
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, kids[i])
		}
	}
	renum := make([]int32, len(g.nodes))
	for newIdx, old := range order {
		renum[old] = int32(newIdx)
	}
	nodes := make([]node, len(g.nodes))
	for newIdx, old := range order {
		n := g.nodes[old]
		if n.parent >= 0 {
			n.parent = renum[n.parent]
		}
		for i, k := range n.kids {
			n.kids[i] = renum[k]
		}
		nodes[newIdx] = n
	}
	g.nodes = nodes
	return g
}

// FromProfiles merges the profiles, which must have the same sample types,
// and aggregates the samples of the type o.Sample into a Graph. It returns
// an error when the profiles cannot be merged, when the sample type is
// not one of theirs (the error lists theirs), or when no sample is left
// (none in the profiles, or none after o.Focus and o.Ignore).
func FromProfiles(ps []*profile.Profile, o Options) (*Graph, error) {
	if len(ps) == 0 {
		return nil, errors.New("flame: no profiles")
	}
	for _, p := range ps {
		if p == nil {
			return nil, errors.New("flame: nil profile")
		}
	}
	// Merge copies, so pruning below leaves the callers' profiles alone.
	p, err := profile.Merge(ps)
	if err != nil {
		return nil, fmt.Errorf("flame: the profiles cannot be merged: %w", err)
	}
	if err := p.RemoveUninteresting(); err != nil {
		return nil, fmt.Errorf("flame: %w", err)
	}
	idx, err := sampleIndex(p, o.Sample)
	if err != nil {
		return nil, err
	}
	st := p.SampleType[idx]
	b := newBuilder(st.Type, st.Unit, o.MinShare)
	if p.PeriodType != nil && p.PeriodType.Unit == st.Unit && p.Period > 0 {
		b.g.quantum = p.Period
	}
	var names []string
	var path []int32
	samples := 0
	for _, s := range p.Sample {
		v := s.Value[idx]
		if v == 0 {
			continue
		}
		samples++
		if o.KeepLabels != nil && !o.KeepLabels(s.Label) {
			continue
		}
		names = stackNames(names[:0], s)
		if !keep(names, o) {
			continue
		}
		if o.Weight != nil {
			w := o.Weight(s.Label, names)
			if w <= 0 {
				continue
			}
			if v = int64(math.Round(float64(v) * w)); v == 0 {
				continue
			}
		}
		path = path[:0]
		for _, name := range names {
			path = append(path, b.intern(name))
		}
		b.add(path, v, false)
	}
	g := b.finish()
	if g.nodes[0].total == 0 {
		if samples > 0 && (o.Keep != nil || o.KeepLabels != nil || o.Weight != nil) {
			return nil, fmt.Errorf("%w of type %s left after -focus, -ignore and the stack and label filters", ErrNoSamples, st.Type)
		}
		if samples > 0 && (o.Focus != nil || o.Ignore != nil) {
			return nil, fmt.Errorf("flame: no samples of type %s left after -focus and -ignore", st.Type)
		}
		return nil, fmt.Errorf("%w of type %s", ErrNoSamples, st.Type)
	}
	return g, nil
}

// stackNames appends the function names of s's stack to dst, root first,
// with inlined calls expanded: a location's lines run innermost first.
// A location without lines (not symbolized) is named by its address.
func stackNames(dst []string, s *profile.Sample) []string {
	for i := len(s.Location) - 1; i >= 0; i-- {
		loc := s.Location[i]
		if len(loc.Line) == 0 {
			dst = append(dst, fmt.Sprintf("0x%x", loc.Address))
			continue
		}
		for j := len(loc.Line) - 1; j >= 0; j-- {
			name := "?"
			if f := loc.Line[j].Function; f != nil && f.Name != "" {
				name = f.Name
			}
			dst = append(dst, name)
		}
	}
	return dst
}

// keep reports whether a sample with the stack names passes o's Focus
// and Ignore.
func keep(names []string, o Options) bool {
	if o.Ignore != nil && slices.ContainsFunc(names, o.Ignore.MatchString) {
		return false
	}
	if o.Focus != nil && !slices.ContainsFunc(names, o.Focus.MatchString) {
		return false
	}
	return o.Keep == nil || o.Keep(names)
}

// sampleIndex returns the index of the sample type named want in p, or
// of the default type when want is empty.
func sampleIndex(p *profile.Profile, want string) (int, error) {
	if len(p.SampleType) == 0 {
		return 0, errors.New("flame: the profile has no sample types")
	}
	find := func(name string) int {
		return slices.IndexFunc(p.SampleType, func(st *profile.ValueType) bool { return st.Type == name })
	}
	if want != "" {
		if i := find(want); i >= 0 {
			return i, nil
		}
		var valid []string
		for _, st := range p.SampleType {
			valid = append(valid, st.Type)
		}
		return 0, fmt.Errorf("flame: unknown sample type %q (the profile has %s)", want, strings.Join(valid, ", "))
	}
	for _, name := range []string{"cpu", "alloc_space", p.DefaultSampleType} {
		if i := find(name); name != "" && i >= 0 {
			return i, nil
		}
	}
	return len(p.SampleType) - 1, nil
}

// Sample returns the graph's sample type, such as "cpu" or "alloc_space".
func (g *Graph) Sample() string { return g.sample }

// Unit returns the unit of the graph's values, such as "nanoseconds".
func (g *Graph) Unit() string { return g.unit }

// Total returns the sum of all samples: the root frame's value. For a
// diff it is the new profile's total.
func (g *Graph) Total() int64 { return g.nodes[0].total }

// BaseTotal returns the base profile's total for a diff, and zero
// otherwise.
func (g *Graph) BaseTotal() int64 { return g.nodes[0].baseTotal }

// IsDiff reports whether g was made by Diff.
func (g *Graph) IsDiff() bool { return g.diff }

// minValue returns the smallest value of a drawn frame.
func (g *Graph) minValue() int64 {
	share := g.minShare
	switch {
	case share == 0:
		share = DefaultMinShare
	case share < 0:
		return 1
	}
	return max(1, int64(share*float64(g.Total())+0.999999))
}

// drawn returns, in preorder, the frames the HTML page draws, the root
// first: every frame whose width (see widths) is at least the minimum
// share of the total, when its parent is drawn too.
func (g *Graph) drawn() []int32 {
	minV := g.minValue()
	w := g.widths()
	var out []int32
	var walk func(n int32)
	walk = func(n int32) {
		out = append(out, n)
		for _, k := range g.nodes[n].kids {
			if w[k] >= minV {
				walk(k)
			}
		}
	}
	walk(0)
	return out
}

// Frames returns the number of frames drawn in the HTML page, not
// counting the root.
func (g *Graph) Frames() int { return len(g.drawn()) - 1 }

// path returns the names of the frames from the root's child to n.
func (g *Graph) path(n int32) []string {
	var p []string
	for ; n > 0; n = g.nodes[n].parent {
		p = append(p, g.names[g.nodes[n].name])
	}
	slices.Reverse(p)
	return p
}
