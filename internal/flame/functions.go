package flame

import (
	"cmp"
	"math"
	"slices"
)

// Side says in which profiles of a diff a function has samples.
type Side int8

// The sides of a function. Both is also the side of every function of a
// graph that is not a diff.
const (
	Both     Side = 0
	BaseOnly Side = 1
	NewOnly  Side = 2
)

// String returns "both", "only in base" or "only in new".
func (s Side) String() string {
	switch s {
	case BaseOnly:
		return "only in base"
	case NewOnly:
		return "only in new"
	}
	return "both"
}

// Function is one function's values in a graph, summed over its frames
// as pprof's top does: Flat is its own (self) value, Cum the value of the
// samples with the function on their stack, a recursive call counted
// once. The Base values are a diff's base profile's (zero otherwise), on
// its own scale.
type Function struct {
	Name                string   `json:"n"`
	Flat                int64    `json:"f"`
	Cum                 int64    `json:"c"`
	BaseFlat            int64    `json:"bf"`
	BaseCum             int64    `json:"bc"`
	Side                Side     `json:"side"`
	Callers             []Caller `json:"cl,omitempty"` // largest first; not set by Functions
	flatChange, cumSize float64
}

// Caller is a function that calls another, with the part of the callee's
// Cum (and BaseCum) that runs under it. The caller of a root frame is
// named "all".
type Caller struct {
	Name string `json:"n"`
	V    int64  `json:"v"`
	Base int64  `json:"b"`
}

// Functions returns every function of g with its flat and cumulative
// values, for a diff with its base values and side, largest change of
// flat value first (base values put on the new scale as the colors are),
// then largest Cum first.
func (g *Graph) Functions() []Function {
	return g.functions(false)
}

// functions returns g's functions (see Functions) and, when withCallers
// is set, fills their Callers.
func (g *Graph) functions(withCallers bool) []Function {
	index := map[int32]int{}
	var fs []Function
	type key struct{ fn, caller int32 }
	callers := map[key]*Caller{}
	for i := 1; i < len(g.nodes); i++ {
		n := &g.nodes[i]
		fi, ok := index[n.name]
		if !ok {
			fi = len(fs)
			index[n.name] = fi
			fs = append(fs, Function{Name: g.names[n.name]})
		}
		f := &fs[fi]
		f.Flat += n.self
		f.BaseFlat += n.baseSelf
		outer := true
		for p := n.parent; p > 0; p = g.nodes[p].parent {
			if g.nodes[p].name == n.name {
				outer = false
				break
			}
		}
		if !outer {
			continue
		}
		f.Cum += n.total
		f.BaseCum += n.baseTotal
		if withCallers {
			k := key{n.name, g.nodes[n.parent].name}
			c := callers[k]
			if c == nil {
				c = &Caller{Name: g.names[k.caller]}
				callers[k] = c
			}
			c.V += n.total
			c.Base += n.baseTotal
		}
	}
	scale := 1.0
	if g.diff {
		scale = g.baseScale()
	}
	for i := range fs {
		f := &fs[i]
		switch {
		case !g.diff:
		case f.Cum == 0:
			f.Side = BaseOnly
		case f.BaseCum == 0:
			f.Side = NewOnly
		}
		f.flatChange = math.Abs(float64(f.Flat) - scale*float64(f.BaseFlat))
		f.cumSize = max(float64(f.Cum), scale*float64(f.BaseCum))
	}
	if withCallers {
		for k, c := range callers {
			f := &fs[index[k.fn]]
			f.Callers = append(f.Callers, *c)
		}
		for i := range fs {
			slices.SortFunc(fs[i].Callers, func(a, b Caller) int {
				return cmp.Or(cmp.Compare(float64(b.V)+scale*float64(b.Base), float64(a.V)+scale*float64(a.Base)), cmp.Compare(a.Name, b.Name))
			})
		}
	}
	slices.SortStableFunc(fs, func(a, b Function) int {
		return cmp.Or(cmp.Compare(b.flatChange, a.flatChange), cmp.Compare(b.cumSize, a.cumSize), cmp.Compare(a.Name, b.Name))
	})
	return fs
}
