package flame

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteDiffFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, stacks map[string][]int64) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		require.NoError(t, err)
		defer f.Close()
		require.NoError(t, synth(t, []string{"samples"}, stacks).Write(f))
		return path
	}
	b1 := write("b1.prof", map[string][]int64{"main;f": {1}})
	b2 := write("b2.prof", map[string][]int64{"main;g": {1}})
	n1 := write("n1.prof", map[string][]int64{"main;f": {6}, "main;g": {2}})
	out := filepath.Join(dir, "diff.html")
	require.NoError(t, WriteDiffFile([]string{b1, b2}, []string{n1}, out, "f got slower", Options{}))
	page, err := os.ReadFile(out)
	require.NoError(t, err)
	d := embedded(t, string(page))
	assert.True(t, d.Diff, "diff page: Diff")
	assert.Equal(t, "f got slower", d.Title, "diff page: Title")
	assert.Equal(t, int64(2), d.BaseTotal, "diff page: BaseTotal")
	assert.Equal(t, int64(8), d.Total, "diff page: Total")

	missing := filepath.Join(dir, "missing.prof")
	out2 := filepath.Join(dir, "none.html")
	err = WriteDiffFile([]string{b1}, []string{missing}, out2, "", Options{})
	assert.ErrorContains(t, err, "missing.prof", "missing profile")
	assert.NoFileExists(t, out2, "written despite the error")
}
