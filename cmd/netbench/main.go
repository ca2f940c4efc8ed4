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
