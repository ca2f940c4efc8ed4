package main

import (
	"fmt"

	"github.com/netkit/netkit/internal/flame"
)

// flameErrNoSamples is the error of writeFlame for a profile with no
// samples to draw.
var flameErrNoSamples = flame.ErrNoSamples

// writeFlame writes the flame graph of the CPU profiles at paths to the
// HTML file out, titled title, with the flame package's defaults (the
// profiles' CPU samples, frames under 0.05% of the total left undrawn).
func writeFlame(paths []string, out, title string) error {
	ps, err := flame.ReadProfiles(paths...)
	if err != nil {
		return err
	}
	g, err := flame.FromProfiles(ps, flame.Options{})
	if err != nil {
		return err
	}
	return g.WriteHTMLFile(out, title)
}

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
