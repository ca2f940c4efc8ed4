// Command netbench runs the testing.B benchmarks of every package of a Go
// module and writes the results in the Go benchmark format, ready for
// benchstat.
//
// Usage:
//
//	netbench run [flags] [packages]
//	netbench help
//
// Run "netbench help" for the flags.
package main

import (
	"errors"
	"fmt"
	"os"
)

func main() {
	err := run(os.Stdout, os.Stderr, os.Args[1:])
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, "netbench:", err)
	var se *statusError
	if errors.As(err, &se) {
		os.Exit(se.code)
	}
	os.Exit(2)
}
