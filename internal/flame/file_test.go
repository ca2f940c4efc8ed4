package flame

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteDiffFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, stacks map[string][]int64) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := synth(t, []string{"samples"}, stacks).Write(f); err != nil {
			t.Fatal(err)
		}
		return path
	}
	b1 := write("b1.prof", map[string][]int64{"main;f": {1}})
	b2 := write("b2.prof", map[string][]int64{"main;g": {1}})
	n1 := write("n1.prof", map[string][]int64{"main;f": {6}, "main;g": {2}})
	out := filepath.Join(dir, "diff.html")
	if err := WriteDiffFile([]string{b1, b2}, []string{n1}, out, "f got slower", Options{}); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	d := embedded(t, string(page))
	if !d.Diff || d.Title != "f got slower" || d.BaseTotal != 2 || d.Total != 8 {
		t.Errorf("diff page: diff %v, title %q, totals %d and %d; want true, f got slower, 2 and 8", d.Diff, d.Title, d.BaseTotal, d.Total)
	}

	missing := filepath.Join(dir, "missing.prof")
	out2 := filepath.Join(dir, "none.html")
	err = WriteDiffFile([]string{b1}, []string{missing}, out2, "", Options{})
	if err == nil || !strings.Contains(err.Error(), "missing.prof") {
		t.Errorf("missing profile: %v", err)
	}
	if _, err := os.Stat(out2); !os.IsNotExist(err) {
		t.Errorf("%s written despite the error", out2)
	}
}
