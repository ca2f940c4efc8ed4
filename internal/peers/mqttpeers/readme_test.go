package mqttpeers

import (
	"flag"
	"testing"

	"github.com/netkit/netkit/internal/peers/readmetable"
)

var update = flag.Bool("update", false, "rewrite the tables of README.md from the tests' tables")

// TestReadme checks that README.md holds the tables of differences and
// forbidden inputs as the tests state them; -update rewrites them.
func TestReadme(t *testing.T) {
	readmetable.Check(t, "README.md", *update,
		readmetable.Table{Name: "differences", Body: differencesMarkdown()},
		readmetable.Table{Name: "forbidden", Body: forbiddenMarkdown()})
}
