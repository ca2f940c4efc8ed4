package hpackpeers

import (
	"flag"
	"testing"

	"github.com/netkit/netkit/internal/peers/readmetable"
)

var update = flag.Bool("update", false, "rewrite the tables of README.md from the tests' tables")

// TestReadme checks that README.md holds the table of differences as the
// tests state it; -update rewrites it.
func TestReadme(t *testing.T) {
	readmetable.Check(t, "README.md", *update,
		readmetable.Table{Name: "differences", Body: differencesMarkdown()})
}
