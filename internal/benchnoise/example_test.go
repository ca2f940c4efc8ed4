package benchnoise_test

import (
	"fmt"

	"github.com/netkit/netkit/internal/benchnoise"
)

func ExampleParseCPUList() {
	cpus, err := benchnoise.ParseCPUList("0-2,5")
	fmt.Println(cpus, err)
	_, err = benchnoise.ParseCPUList("3-1")
	fmt.Println(err)
	// Output:
	// [0 1 2 5] <nil>
	// CPU list "3-1": range 3-1 ends before it starts
}

func ExampleMonitor() {
	// A reader that replays load averages, as a loaded machine shows them.
	loads := []float64{0.4, 6.5, 7.0, 7.2, 6.8}
	read := func() (float64, error) {
		v := loads[0]
		if len(loads) > 1 {
			loads = loads[1:]
		}
		return v, nil
	}
	m := &benchnoise.Monitor{Read: read, CPUs: 2}
	m.Before()
	// Start and Stop read every second around the runs; Stop alone takes
	// the reading after them.
	m.Stop()
	fmt.Println(m.Summary())
	for _, w := range m.Warnings() {
		fmt.Println(w)
	}
	// Output:
	// before 0.40, after 6.50 on 2 CPUs
	// machine busy after the runs: 1-min load average 6.50 on 2 CPUs, above 2; other processes competed with the benchmarks, and wall-clock results may not hold
}
