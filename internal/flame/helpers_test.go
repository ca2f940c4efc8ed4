package flame

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/require"
)

// synth makes a profile with the sample types types (units "count") and
// one sample per stack: stacks maps "a;b;c" (root first) to the sample's
// values. A frame written "outer+inner" is one location whose lines are
// inner inlined into outer.
func synth(t *testing.T, types []string, stacks map[string][]int64) *profile.Profile {
	t.Helper()
	p := &profile.Profile{PeriodType: &profile.ValueType{Type: "cpu", Unit: "count"}}
	for _, ty := range types {
		p.SampleType = append(p.SampleType, &profile.ValueType{Type: ty, Unit: "count"})
	}
	funcs := map[string]*profile.Function{}
	locs := map[string]*profile.Location{}
	fn := func(name string) *profile.Function {
		if f, ok := funcs[name]; ok {
			return f
		}
		f := &profile.Function{ID: uint64(len(funcs) + 1), Name: name, SystemName: name}
		funcs[name] = f
		p.Function = append(p.Function, f)
		return f
	}
	for stack, values := range stacks {
		require.Len(t, values, len(types), "stack %q: a value per sample type", stack)
		s := &profile.Sample{Value: values}
		frames := strings.Split(stack, ";")
		for i := len(frames) - 1; i >= 0; i-- { // leaf first
			loc, ok := locs[frames[i]]
			if !ok {
				loc = &profile.Location{ID: uint64(len(locs) + 1), Address: uint64(0x1000 + len(locs))}
				names := strings.Split(frames[i], "+")
				for j := len(names) - 1; j >= 0; j-- { // innermost first
					loc.Line = append(loc.Line, profile.Line{Function: fn(names[j])})
				}
				locs[frames[i]] = loc
				p.Location = append(p.Location, loc)
			}
			s.Location = append(s.Location, loc)
		}
		p.Sample = append(p.Sample, s)
	}
	require.NoError(t, p.CheckValid())
	return p
}

// cpuProfile writes a throwaway module with the given files into a
// temporary directory, runs its benchmarks with a CPU profile and returns
// the profile's path.
func cpuProfile(t *testing.T, files map[string]string) string {
	t.Helper()
	return cpuProfileFor(t, files, "1s")
}

// cpuProfileFor is cpuProfile with the benchmark's -benchtime. A fixed
// iteration count ("200000x") gives a fixed amount of CPU work, hence about
// as many samples on a loaded machine as on a quiet one; a duration gives
// fewer samples the less CPU the process gets.
func cpuProfileFor(t *testing.T, files map[string]string, benchtime string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.26\n"
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	prof := filepath.Join(dir, "cpu.prof")
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", ".", "-benchtime", benchtime, "-cpuprofile", prof)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-buildvcs=false")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go test\n%s", out)
	return prof
}

// readProfile parses the profile at path.
func readProfile(t *testing.T, path string) *profile.Profile {
	t.Helper()
	ps, err := ReadProfiles(path)
	require.NoError(t, err)
	return ps[0]
}

// pathTotals returns every frame's total by path ("a;b;c", root first; the
// root is "").
func pathTotals(g *Graph) map[string]int64 {
	m := map[string]int64{}
	for i := range g.nodes {
		m[strings.Join(g.path(int32(i)), ";")] += g.nodes[i].total
	}
	return m
}

// functionSums returns each function's flat and cum values as pprof
// counts them: flat is the sum of the function's self values, cum the
// sum of the totals of its frames that have no caller frame of the same
// function (a recursive call is counted once).
func functionSums(g *Graph) (flat, cum map[string]int64) {
	flat, cum = map[string]int64{}, map[string]int64{}
	for i := 1; i < len(g.nodes); i++ {
		n := &g.nodes[i]
		name := g.names[n.name]
		flat[name] += n.self
		outer := true
		for p := n.parent; p > 0; p = g.nodes[p].parent {
			if g.nodes[p].name == n.name {
				outer = false
				break
			}
		}
		if outer {
			cum[name] += n.total
		}
	}
	return flat, cum
}
