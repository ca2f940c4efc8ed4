package benchcpu

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestProcessAdvances(t *testing.T) {
	start := Process()
	if start == 0 {
		t.Skip("no process CPU time on this system")
	}
	x := 0
	for i := range 50_000_000 {
		x += i ^ x>>3
	}
	require.Greater(t, Process(), start, "CPU time did not advance over a busy loop (%d)", x)
}
