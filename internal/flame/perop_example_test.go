package flame_test

import (
	"fmt"
	"os"

	"github.com/google/pprof/profile"

	"github.com/netkit/netkit/internal/flame"
)

// cpuGraph makes the graph of a CPU profile with one sample per stack
// (leaf last) of the given nanoseconds.
func cpuGraph(stacks map[string][]string, ns map[string]int64) *flame.Graph {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:     10_000_000,
	}
	for key, frames := range stacks {
		s := &profile.Sample{Value: []int64{ns[key]}}
		for i := len(frames) - 1; i >= 0; i-- {
			id := uint64(len(p.Function) + 1)
			f := &profile.Function{ID: id, Name: frames[i]}
			loc := &profile.Location{ID: id, Line: []profile.Line{{Function: f}}}
			p.Function, p.Location = append(p.Function, f), append(p.Location, loc)
			s.Location = append(s.Location, loc)
		}
		p.Sample = append(p.Sample, s)
	}
	g, err := flame.FromProfiles([]*profile.Profile{p}, flame.Options{})
	if err != nil {
		panic(err)
	}
	return g
}

// Two CPU profiles of one benchmark, run a million and three million
// iterations: its set-up (build) takes 400ms in both, its loop (get) 1µs
// per iteration. The difference holds the loop alone.
func ExampleSubtract() {
	stacks := map[string][]string{
		"build": {"m.BenchmarkGet", "m.build"},
		"get":   {"m.BenchmarkGet", "m.get"},
	}
	small := cpuGraph(stacks, map[string]int64{"build": 400e6, "get": 1e9})
	large := cpuGraph(stacks, map[string]int64{"build": 400e6, "get": 3e9})
	d, s, err := flame.Subtract(small, large, 1e6, 3e6)
	if err != nil {
		panic(err)
	}
	d.WriteFolded(os.Stdout)
	timed, _ := flame.NewTimedRegion(d, s.Ops, 1000, 0)
	fmt.Println(timed)
	plain, _ := flame.NewTimedRegion(large, 3e6, 1000, 0)
	fmt.Println(plain)
	// Output:
	// m.BenchmarkGet;m.get 2000000000
	// profile: 1000 ns/op of samples, measured: 1000 ns/op: 0% outside the timed region
	// profile: 1133 ns/op of samples (±5%, sampling), measured: 1000 ns/op: 12% outside the timed region
}
