// Package invariants gates expensive self-checks behind the "invariants" build
// tag, in the manner of twin on/off files: code writes
//
//	if invariants.Enabled { ...expensive check... }
//
// and the default build compiles the check away because Enabled is a constant.
//
// With -tags invariants, netkit poisons released memory, never recycles a
// released buffer (so a stale reference fails loudly instead of reading another
// owner's data), and records allocation and release stacks for every buffer.
package invariants
