package benchcmp_test

import (
	"fmt"
	"strings"

	"github.com/netkit/netkit/internal/benchcmp"
)

// ExampleProject compares the two implementations of one file's
// sub-benchmarks (benchstat -table pkg -col /impl new.txt).
func ExampleProject() {
	results := `pkg: example.com/m
BenchmarkGet/impl=map-2    1000   100 ns/op
BenchmarkGet/impl=tree-2   1000   210 ns/op
BenchmarkGet/impl=map-2    1000   101 ns/op
BenchmarkGet/impl=tree-2   1000   205 ns/op
BenchmarkGet/impl=map-2    1000    99 ns/op
BenchmarkGet/impl=tree-2   1000   208 ns/op
`
	p, err := benchcmp.Project([]benchcmp.Input{{Label: "new.txt", R: strings.NewReader(results)}},
		benchcmp.Projection{Col: "/impl"}, benchcmp.DefaultConfidence)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range p.Rows {
		fmt.Printf("%s %s: %s %.0fns, %s %.0fns (%+.0f%%)\n", r.Name, r.Unit,
			p.Columns[0].Name, r.Old.Center*1e9, p.Columns[1].Name, r.New.Center*1e9, 100*r.Delta)
	}
	// Output:
	// Get-2 sec/op: map 100ns, tree 208ns (+108%)
}
