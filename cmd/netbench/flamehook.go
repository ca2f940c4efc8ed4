package main

import "errors"

// This file is the one place where profile and compare -profile call the
// flame package; the lead replaces it when wiring internal/flame in
// (flame.FromProfiles + (*Graph).WriteHTML, and flame.WriteDiffFile).

// errFlameNotWired is what the placeholders below return.
//
// TODO(lead): delete with this file; the two callers that skip it
// (writeFlames in profile.go, profileFailures in compareprofile.go) then
// stop compiling until their skip is removed too.
var errFlameNotWired = errors.New("flame graphs not wired yet")

// writeFlame writes the flame graph of the CPU profiles at paths to the
// HTML file out, titled title.
func writeFlame(paths []string, out, title string) error {
	return errFlameNotWired
}

// writeDiffFlame writes the differential flame graph of the CPU profiles
// at newPaths against those at basePaths to the HTML file out, titled
// title.
func writeDiffFlame(basePaths, newPaths []string, out, title string) error {
	return errFlameNotWired
}
