package httpdate

import (
	"testing"

	"github.com/netkit/netkit/internal/testenv"
)

// skipUnderRace skips allocation counts, which the race detector inflates.
func skipUnderRace(t *testing.T) {
	t.Helper()
	testenv.SkipRace(t, "allocation counts are not meaningful under -race")
}
