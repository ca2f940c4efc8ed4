package benchinstr_test

import (
	"fmt"
	"strings"

	"github.com/netkit/netkit/internal/benchinstr"
)

// Two runs of one benchmark under callgrind, at 200000 and 400000
// iterations: the difference of their totals per extra iteration is the
// benchmark's instructions per operation.
func ExampleParseCallgrind() {
	at := func(out string) uint64 {
		c, err := benchinstr.ParseCallgrind(strings.NewReader(out))
		if err != nil {
			panic(err)
		}
		return c.Instructions
	}
	n := at("events: Ir\nsummary: 17225158\n")
	twoN := at("events: Ir\nsummary: 27853992\ntotals: 27853992\n")
	fmt.Printf("%.2f %s\n", float64(twoN-n)/200000, benchinstr.Unit)
	// Output: 53.14 instructions/op
}
