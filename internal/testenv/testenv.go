// Package testenv holds what netkit's tests share: the skips that depend on
// how the test binary was built, and fixtures more than one package uses.
// It is imported by tests only.
package testenv

import (
	"testing"

	"github.com/netkit/netkit/internal/invariants"
	"github.com/netkit/netkit/internal/race"
)

// SkipAllocs skips a test that counts allocations (testing.AllocsPerRun,
// heap accounting) when the count means nothing in this build: under -race
// the detector allocates and sync.Pool drops items at random, and under
// -tags invariants every buffer is tracked and none is recycled.
func SkipAllocs(t testing.TB) {
	t.Helper()
	if race.Enabled || invariants.Enabled {
		t.Skip("allocation counts are not meaningful under -race or -tags invariants")
	}
}

// SkipRace skips a test whose subject the race detector distorts (timing,
// allocation counts of code that does not pool).
func SkipRace(t testing.TB, why string) {
	t.Helper()
	if race.Enabled {
		t.Skip("under -race: " + why)
	}
}

// SkipInvariants skips a test whose subject the invariants build changes
// on purpose (it tracks every buffer and never recycles one).
func SkipInvariants(t testing.TB, why string) {
	t.Helper()
	if invariants.Enabled {
		t.Skip("under -tags invariants: " + why)
	}
}
