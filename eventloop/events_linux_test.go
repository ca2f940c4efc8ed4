package eventloop

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/netkit/netkit/eventloop/internal/poll"
)

// TestEventsArePollEvents: the loop hands its Events to the poller and
// the poller's back by conversion, so the bits must be the same.
func TestEventsArePollEvents(t *testing.T) {
	for _, c := range []struct {
		e Events
		p poll.Events
	}{
		{Readable, poll.In},
		{Writable, poll.Out},
		{Error, poll.Err},
		{Hangup, poll.Hup},
		{PeerClosedWrite, poll.RdHup},
		{EdgeTriggered, poll.ET},
		{oneShot, poll.OneShot},
	} {
		assert.Equal(t, uint32(c.p), uint32(c.e), "event %#x", c.e)
	}
}
