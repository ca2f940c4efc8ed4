package http1_test

import (
	"fmt"
	"time"

	"github.com/netkit/netkit/codec/http1"
)

func ExampleDateCache() {
	var dates http1.DateCache
	// An event loop calls Update from a 1-second timer...
	dates.Update(time.Date(2026, 11, 25, 18, 0, 0, 0, time.UTC))
	// ...and AppendCached per response, without reading the clock.
	fmt.Printf("%s\n", dates.AppendCached(nil))

	// Other callers pass the time: formatted once per second.
	var d [29]byte
	fmt.Printf("%s\n", dates.Append(d[:0], time.Date(2026, 11, 25, 18, 0, 1, 0, time.UTC)))
	// Output:
	// Wed, 25 Nov 2026 18:00:00 GMT
	// Wed, 25 Nov 2026 18:00:01 GMT
}
