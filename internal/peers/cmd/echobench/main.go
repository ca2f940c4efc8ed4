// Command echobench is netkit's echo benchmark (make bench-echo): echo
// servers on netkit, net, gnet, netpoll and nbio, one load generator, and
// a runner that pins them to separate CPUs and prints a markdown table.
//
//	go run ./cmd/echobench run -runs 5 -duration 3s -json echo-results.json
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/netkit/netkit/internal/peers/echobench"
)

func main() {
	if err := run(os.Stdout, os.Stderr, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "echobench:", err)
		os.Exit(1)
	}
}

func run(stdout, stderr io.Writer, args []string) error {
	return echobench.Main(stdout, stderr, args)
}
