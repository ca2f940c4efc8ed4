// Command httpbench is netkit's HTTP/1.1 server benchmark (make
// bench-http): the TechEmpower plaintext and JSON endpoints and a 1 ms
// handler served by netkit's eventloop/httpserver, fasthttp and net/http,
// each a process pinned to CPU 0, loaded by wrk or httpbench's latency
// generator pinned to CPU 1, with a markdown table on stdout.
//
//	go run ./cmd/httpbench run -runs 3 -duration 5s -json http-results.json
//	go run ./cmd/httpbench run -smoke
//	go run ./cmd/httpbench serve -impl netkit -addr 127.0.0.1:8080
//	go run ./cmd/httpbench load -addr 127.0.0.1:8080 -depth 16
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/netkit/netkit/internal/peers/httpbench"
)

func main() {
	if err := run(os.Stdout, os.Stderr, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "httpbench:", err)
		os.Exit(1)
	}
}

func run(stdout, stderr io.Writer, args []string) error {
	return httpbench.Main(stdout, stderr, args)
}
