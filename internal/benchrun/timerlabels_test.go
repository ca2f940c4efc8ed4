package benchrun

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTimerPatch: the toolchain's own testing/benchmark.go gets one call
// of the hook where the timer starts and one where it stops; a source without
// the statements is refused with ErrTimerPatch.
func TestTimerPatch(t *testing.T) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	require.NoError(t, err)
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "src", "testing", "benchmark.go"))
	require.NoError(t, err)
	out, err := timerPatch(src)
	require.NoError(t, err, "this toolchain's StartTimer/StopTimer")
	s := string(out)
	assert.Equal(t, 1, strings.Count(s, "b.timerOn = true\n\t\tnetbenchTimer(true)\n"))
	assert.Equal(t, 1, strings.Count(s, "func (b *B) StopTimer() {\n\tnetbenchTimer(false)\n"))
	assert.Equal(t, len(src)+len("\t\tnetbenchTimer(true)\n\tnetbenchTimer(false)\n"), len(out), "nothing else changed")

	_, err = timerPatch([]byte("package testing\n"))
	assert.ErrorIs(t, err, ErrTimerPatch)
	twice := strings.Repeat(timerOnStmt, 2) + timerOffStmt
	_, err = timerPatch([]byte(twice))
	assert.ErrorIs(t, err, ErrTimerPatch)
}
