package main

import (
	"fmt"

	"github.com/netkit/netkit/internal/flame"
)

// writeDiffFlame writes the differential flame graph of the CPU profiles
// at newPaths against those at basePaths, runs of baseOps and newOps
// iterations of one benchmark, to the HTML file out, titled title: colors
// show the change of each frame's time per operation (flame.DiffPerOp),
// frames matched by normalized names and the renames.
func writeDiffFlame(basePaths, newPaths []string, baseOps, newOps int64, renames renameFlags, out, title string) error {
	if baseOps <= 0 || newOps <= 0 {
		return fmt.Errorf("flame: iteration counts %d and %d, want both positive", baseOps, newOps)
	}
	return flame.WriteDiffFileWith(basePaths, newPaths, out, title, flame.Options{},
		flame.DiffOptions{BaseOps: baseOps, NewOps: newOps, Renames: renames})
}
