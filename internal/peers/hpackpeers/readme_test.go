package hpackpeers

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the tables of README.md from the tests' tables")

// TestReadme checks that README.md holds the table of differences as the
// tests state it; -update rewrites it.
func TestReadme(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for _, tab := range []struct{ name, body string }{
		{"differences", differencesMarkdown()},
	} {
		begin, end := "<!-- "+tab.name+":begin -->\n", "<!-- "+tab.name+":end -->"
		i, j := strings.Index(readme, begin), strings.Index(readme, end)
		if i < 0 || j < i {
			t.Fatalf("README.md lacks the markers %q … %q", begin, end)
		}
		if got := readme[i+len(begin) : j]; got != tab.body {
			if !*update {
				t.Errorf("README.md's %s table is stale; run go test -run TestReadme -update", tab.name)
				continue
			}
			readme = readme[:i+len(begin)] + tab.body + readme[j:]
		}
	}
	if *update {
		if err := os.WriteFile("README.md", []byte(readme), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
