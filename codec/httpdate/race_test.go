package httpdate

import (
	"testing"

	"github.com/netkit/netkit/internal/race"
)

// skipUnderRace skips allocation counts, which the race detector inflates.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if race.Enabled {
		t.Skip("allocation counts are not meaningful under -race")
	}
}
