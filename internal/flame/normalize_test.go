package flame

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNormalizeName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// Type arguments, as the runtime names instantiations.
		{"github.com/google/btree.(*node[go.shape.int]).get", "github.com/google/btree.(*node).get"},
		{"github.com/google/btree.(*node[...]).get", "github.com/google/btree.(*node).get"},
		{"github.com/google/btree.(*node[T]).get", "github.com/google/btree.(*node).get"},
		{"github.com/google/btree.(*BTreeG[go.shape.interface { Less(github.com/google/btree.Item) bool }]).Get", "github.com/google/btree.(*BTreeG).Get"},
		{"m.Map[go.shape.string,go.shape.int]", "m.Map"},
		{"m.Keys[go.shape.map[string][]int]", "m.Keys"},
		{"m.Sum[go.shape.[4]int].func1", "m.Sum.func*"},
		{"m.(*Set[go.shape.struct { a [2]int }]).Add", "m.(*Set).Add"},
		// Closures, however numbered and nested.
		{"m.F.func1", "m.F.func*"},
		{"m.F.func12", "m.F.func*"},
		{"m.F.func2.1", "m.F.func*"},
		{"m.F.func2.1.3", "m.F.func*"},
		{"m.F.gowrap1", "m.F.func*"},
		{"m.F.deferwrap2", "m.F.func*"},
		{"m.F-range1", "m.F.func*"},
		{"m.F.gowrap1.func1", "m.F.func*"},
		{"m.(*T).M.func3", "m.(*T).M.func*"},
		{"m.(*T[go.shape.int]).M.func3.2", "m.(*T).M.func*"},
		// Method values and inlining marks.
		{"m.(*T).M-fm", "m.(*T).M"},
		{"m.F (inline)", "m.F"},
		{"m.F[inlined]", "m.F"},
		{"m.F_[i]", "m.F"},
		// Left alone.
		{"runtime.mallocgc", "runtime.mallocgc"},
		{"m.functional", "m.functional"},
		{"m.F.funcs", "m.F.funcs"},
		{"m.F.func", "m.F.func"},
		{"gopkg.in/yaml.v3.Unmarshal", "gopkg.in/yaml.v3.Unmarshal"},
		{"m.F.1", "m.F.1"},
		{"[unknown]", "[unknown]"},
		{"m.F[unbalanced", "m.F[unbalanced"},
		{"0x4a2f10", "0x4a2f10"},
		{"all", "all"},
	} {
		assert.Equal(t, c.want, NormalizeName(c.in), "NormalizeName(%q)", c.in)
	}
}

func TestRename(t *testing.T) {
	r, err := ParseRename("BTree=BTreeG")
	require.NoError(t, err)
	assert.Equal(t, Rename{"BTree", "BTreeG"}, r)
	assert.Equal(t, "BTree=BTreeG", r.String())
	for _, c := range []struct{ in, want string }{
		{"btree.(*BTree).Get", "btree.(*BTreeG).Get"},
		{"btree.BTree.Len", "btree.BTreeG.Len"},
		{"btree.BTree", "btree.BTreeG"},
		{"BTree", "BTreeG"},
		{"btree.BTreeLike", "btree.BTreeLike"},
		{"btree.MyBTree", "btree.MyBTree"},
		{"btree.(*BTreeG).Get", "btree.(*BTreeG).Get"},
		{"x.BTree.BTree", "x.BTreeG.BTreeG"},
	} {
		assert.Equal(t, c.want, r.apply(c.in), "%v applied to %q", r, c.in)
	}
	for _, bad := range []string{"", "BTree", "=BTreeG", "BTree=", "a b=c", "a=b;c"} {
		_, err := ParseRename(bad)
		assert.Error(t, err, "ParseRename(%q)", bad)
	}
}

// TestDiffMatchesRefactoredNames diffs two graphs whose frame names differ
// only as a generic rewrite and renumbered closures make them differ: every
// frame is matched (no function is on one side only, no frame on one
// side's paths only), and the colors follow the planted changes: get
// doubled, the closure halved, everything else the same.
func TestDiffMatchesRefactoredNames(t *testing.T) {
	base := synth(t, []string{"samples"}, map[string][]int64{
		"main.main;btree.(*BTree).Get;btree.(*node).get":                        {100},
		"main.main;btree.(*BTree).Get;btree.(*node).get;btree.items.find":       {100},
		"main.main;btree.(*BTree).Ascend;btree.(*node).iterate;main.main.func1": {200},
		"main.main;main.main.gowrap1;main.work":                                 {100},
	})
	new := synth(t, []string{"samples"}, map[string][]int64{
		// The wrapper of the instantiation, inlined, then its shape.
		"main.main;btree.(*BTree[int]).Get+btree.(*BTree[go.shape.int]).Get;btree.(*node[go.shape.int]).get": {200},
		"main.main;btree.(*BTree[go.shape.int]).Get;btree.(*node[...]).get;btree.items[go.shape.int].find":   {100},
		"main.main;btree.(*BTree[go.shape.int]).Ascend;btree.(*node[T]).iterate;main.main.func3":             {100},
		"main.main;main.main.gowrap2;main.work":                                                              {100},
	})
	gb, err := FromProfiles([]*profile.Profile{base}, Options{})
	require.NoError(t, err)
	gn, err := FromProfiles([]*profile.Profile{new}, Options{})
	require.NoError(t, err)
	d, err := DiffPerOp(gb, gn, 1000, 1000)
	require.NoError(t, err)

	changes := map[string]string{}
	for i := 1; i < len(d.nodes); i++ {
		n := &d.nodes[i]
		path := strings.Join(d.path(int32(i)), ";")
		assert.NotZero(t, n.total, "frame %s has no new value: not matched", path)
		assert.NotZero(t, n.baseTotal, "frame %s has no base value: not matched", path)
		changes[path] = fmt.Sprintf("%+.3f", d.change(int32(i)))
	}
	want := map[string]string{
		"main.main":                    "+0.000",
		"main.main;btree.(*BTree).Get": "+0.000",
		"main.main;btree.(*BTree).Get;btree.(*node).get":                        "+0.200", // 100 → 200 of 500
		"main.main;btree.(*BTree).Get;btree.(*node).get;btree.items.find":       "+0.000",
		"main.main;btree.(*BTree).Ascend":                                       "+0.000",
		"main.main;btree.(*BTree).Ascend;btree.(*node).iterate":                 "+0.000",
		"main.main;btree.(*BTree).Ascend;btree.(*node).iterate;main.main.func*": "-0.200", // 200 → 100
		"main.main;main.main.func*":                                             "+0.000",
		"main.main;main.main.func*;main.work":                                   "+0.000",
	}
	assert.Equal(t, want, changes, "frames matched, by path, and their changes")
	for _, f := range d.Functions() {
		assert.Equal(t, Both, f.Side, "function %s", f.Name)
	}

	page := pageOf(t, d)
	steps := map[string]int{}
	for i, n := range page.Name {
		assert.Equal(t, Both, page.Side[i], "frame %s drawn as on one side only", page.Names[n])
		steps[fmt.Sprintf("%s@%d", page.Names[n], page.Depth[i])] = page.Color[i]
	}
	assert.Equal(t, diffSteps, steps["btree.(*node).get@3"], "get's color step: the largest red")
	assert.Equal(t, -diffSteps, steps["main.main.func*@4"], "the closure's color step: the largest blue")
	assert.Equal(t, 0, steps["btree.items.find@4"], "find's color step: unchanged")
	// The frame keeps its names in either profile for the page to show.
	for i, n := range page.Name {
		if page.Names[n] == "main.main.func*" && page.Depth[i] == 4 {
			assert.Equal(t, "main.main.func3", page.Names[page.RawNew[i]], "the closure's name in new")
			assert.Equal(t, "main.main.func1", page.Names[page.RawBase[i]], "the closure's name in base")
		}
	}

	// Exact matching finds nothing in common below main.main.
	exact, err := DiffWith(gb, gn, DiffOptions{Exact: true})
	require.NoError(t, err)
	sides := map[Side]int{}
	for _, f := range exact.Functions() {
		sides[f.Side]++
	}
	assert.Equal(t, map[Side]int{Both: 2, BaseOnly: 7, NewOnly: 9}, sides, "functions by side, exact names")
}

// TestDiffRenamedType: a type renamed by the rewrite (BTree to BTreeG)
// with the old name kept as a wrapper that calls the new one matches once
// told of the renaming; without it, both are on one side only.
func TestDiffRenamedType(t *testing.T) {
	base := synth(t, []string{"samples"}, map[string][]int64{
		"main.main;btree.(*BTree).Get;btree.(*node).get": {100},
	})
	new := synth(t, []string{"samples"}, map[string][]int64{
		"main.main;btree.(*BTree).Get;btree.(*BTreeG[go.shape.interface {}]).Get;btree.(*node[go.shape.interface {}]).get": {300},
	})
	gb, err := FromProfiles([]*profile.Profile{base}, Options{})
	require.NoError(t, err)
	gn, err := FromProfiles([]*profile.Profile{new}, Options{})
	require.NoError(t, err)

	plain, err := Diff(gb, gn)
	require.NoError(t, err)
	sides := map[string]Side{}
	for _, f := range plain.Functions() {
		sides[f.Name] = f.Side
	}
	assert.Equal(t, map[string]Side{"main.main": Both, "btree.(*BTree).Get": Both, "btree.(*BTreeG).Get": NewOnly, "btree.(*node).get": Both}, sides, "sides without the renaming")

	d, err := DiffWith(gb, gn, DiffOptions{Renames: []Rename{{"BTree", "BTreeG"}}})
	require.NoError(t, err)
	var paths []string
	for i := 1; i < len(d.nodes); i++ {
		n := &d.nodes[i]
		paths = append(paths, fmt.Sprintf("%s %d/%d", strings.Join(d.path(int32(i)), ";"), n.baseTotal, n.total))
	}
	assert.Equal(t, []string{
		"main.main 100/300",
		"main.main;btree.(*BTreeG).Get 100/300",
		"main.main;btree.(*BTreeG).Get;btree.(*node).get 100/300",
	}, paths, "the wrapper and the renamed type are one frame")
}
