package main

import "github.com/netkit/netkit/internal/flame"

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
// at newPaths against those at basePaths to the HTML file out, titled
// title.
func writeDiffFlame(basePaths, newPaths []string, out, title string) error {
	return flame.WriteDiffFile(basePaths, newPaths, out, title, flame.Options{})
}
