// Package readmetable keeps the generated tables of the peer packages'
// README.md files in step with the Go tables of their tests.
package readmetable

import (
	"os"
	"strings"
	"testing"
)

// A Table is one generated table: the README holds Body between the lines
// "<!-- Name:begin -->" and "<!-- Name:end -->".
type Table struct{ Name, Body string }

// Check fails t for each table whose text in the file at path differs
// from its Body; with update it rewrites those tables instead.
func Check(t *testing.T, path string, update bool, tables ...Table) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for _, tab := range tables {
		begin, end := "<!-- "+tab.Name+":begin -->\n", "<!-- "+tab.Name+":end -->"
		i, j := strings.Index(readme, begin), strings.Index(readme, end)
		if i < 0 || j < i {
			t.Fatalf("%s lacks the markers %q … %q", path, begin, end)
		}
		if got := readme[i+len(begin) : j]; got != tab.Body {
			if !update {
				t.Errorf("%s's %s table is stale; run go test -run TestReadme -update", path, tab.Name)
				continue
			}
			readme = readme[:i+len(begin)] + tab.Body + readme[j:]
		}
	}
	if update {
		if err := os.WriteFile(path, []byte(readme), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
