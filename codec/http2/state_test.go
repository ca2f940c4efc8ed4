package http2_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/codec/http2"
)

// TestStreamRecv: RFC 9113 §5.1's receiving side, state by state.
func TestStreamRecv(t *testing.T) {
	type step struct {
		from http2.StreamState
		t    http2.FrameType
		es   bool
		to   http2.StreamState
		err  *http2.Violation
	}
	const (
		idle   = http2.StateIdle
		resL   = http2.StateReservedLocal
		resR   = http2.StateReservedRemote
		open   = http2.StateOpen
		hcL    = http2.StateHalfClosedLocal
		hcR    = http2.StateHalfClosedRemote
		closed = http2.StateClosedByEndStream
		rstP   = http2.StateClosedByPeerReset
		rstL   = http2.StateClosedByLocalReset
	)
	for _, s := range []step{
		{idle, http2.FrameHeaders, false, open, nil},
		{idle, http2.FrameHeaders, true, hcR, nil},
		{idle, http2.FramePriority, false, idle, nil},
		{idle, http2.FrameData, false, idle, http2.ErrIdleFrame},
		{idle, http2.FrameRSTStream, false, idle, http2.ErrIdleFrame},
		{idle, http2.FrameWindowUpdate, false, idle, http2.ErrIdleFrame},
		{idle, 0x42, false, idle, nil},
		{resL, http2.FrameRSTStream, false, rstP, nil},
		{resL, http2.FrameWindowUpdate, false, resL, nil},
		{resL, http2.FrameData, false, resL, http2.ErrReservedFrame},
		{resL, http2.FrameHeaders, false, resL, http2.ErrReservedFrame},
		{resR, http2.FrameHeaders, false, hcL, nil},
		{resR, http2.FrameHeaders, true, closed, nil},
		{resR, http2.FrameRSTStream, false, rstP, nil},
		{resR, http2.FrameWindowUpdate, false, resR, http2.ErrReservedFrame},
		{resR, http2.FrameData, false, resR, http2.ErrReservedFrame},
		{open, http2.FrameData, false, open, nil},
		{open, http2.FrameData, true, hcR, nil},
		{open, http2.FrameHeaders, true, hcR, nil},
		{open, http2.FrameWindowUpdate, false, open, nil},
		{open, http2.FrameRSTStream, false, rstP, nil},
		{open, http2.FramePushPromise, false, open, nil},
		{hcL, http2.FrameData, false, hcL, nil},
		{hcL, http2.FrameData, true, closed, nil},
		{hcL, http2.FrameRSTStream, false, rstP, nil},
		{hcL, http2.FramePushPromise, false, hcL, nil},
		{hcR, http2.FrameWindowUpdate, false, hcR, nil},
		{hcR, http2.FrameRSTStream, false, rstP, nil},
		{hcR, http2.FrameData, false, hcR, http2.ErrHalfClosedFrame},
		{hcR, http2.FrameHeaders, true, hcR, http2.ErrHalfClosedFrame},
		{hcR, http2.FramePushPromise, false, hcR, http2.ErrPromiseStream},
		{closed, http2.FrameWindowUpdate, false, closed, nil},
		{closed, http2.FrameRSTStream, false, closed, nil},
		{closed, http2.FrameData, false, closed, http2.ErrAfterEndStream},
		{closed, http2.FramePriority, false, closed, nil},
		{rstP, http2.FrameData, false, rstP, http2.ErrAfterReset},
		{rstP, http2.FramePriority, false, rstP, nil},
		{rstL, http2.FrameData, true, rstL, nil},
		{rstL, http2.FrameHeaders, false, rstL, nil},
	} {
		to, err := s.from.Recv(s.t, s.es)
		if s.err == nil {
			require.NoError(t, err, "%v + recv %v (es %v)", s.from, s.t, s.es)
		} else {
			require.ErrorIs(t, err, s.err, "%v + recv %v (es %v)", s.from, s.t, s.es)
		}
		assert.Equal(t, s.to, to, "%v + recv %v (es %v)", s.from, s.t, s.es)
	}
	_, err := http2.StateOpen.RecvPromise()
	require.ErrorIs(t, err, http2.ErrPromiseStream)
	st, err := http2.StateIdle.RecvPromise()
	require.NoError(t, err)
	assert.Equal(t, http2.StateReservedRemote, st)
	assert.True(t, http2.StateClosedByLocalReset.Closed())
	assert.False(t, http2.StateHalfClosedRemote.Closed())
	assert.Equal(t, "half-closed (remote)", http2.StateHalfClosedRemote.String())
}

// mirror is the state the other endpoint sees.
func mirror(s http2.StreamState) http2.StreamState {
	switch s {
	case http2.StateReservedLocal:
		return http2.StateReservedRemote
	case http2.StateReservedRemote:
		return http2.StateReservedLocal
	case http2.StateHalfClosedLocal:
		return http2.StateHalfClosedRemote
	case http2.StateHalfClosedRemote:
		return http2.StateHalfClosedLocal
	case http2.StateClosedByLocalReset:
		return http2.StateClosedByPeerReset
	case http2.StateClosedByPeerReset:
		return http2.StateClosedByLocalReset
	}
	return s
}

// TestStreamModel: two endpoints on one stream, each sending at random
// what Send allows, the other receiving it at once. Receiving what the
// peer may send is never an error, and the two states always mirror each
// other; every run ends closed.
func TestStreamModel(t *testing.T) {
	types := []http2.FrameType{http2.FrameHeaders, http2.FrameData, http2.FrameWindowUpdate, http2.FrameRSTStream, http2.FramePriority}
	r := rand.New(rand.NewPCG(1, 2))
	for run := range 5000 {
		a, b := http2.StateIdle, http2.StateIdle
		if run%4 == 0 { // a promised stream: b pushes to a
			a, _ = a.RecvPromise()
			b, _ = b.SendPromise()
		}
		for i := 0; i < 64 && !(a.Closed() && b.Closed()); i++ {
			snd, rcv := &a, &b
			if r.IntN(2) == 0 {
				snd, rcv = rcv, snd
			}
			ft := types[r.IntN(len(types))]
			if ft == http2.FrameRSTStream && r.IntN(8) != 0 {
				continue // resets end runs early: keep them rare
			}
			es := r.IntN(3) == 0
			next, ok := snd.Send(ft, es)
			if !ok {
				continue
			}
			got, err := rcv.Recv(ft, es)
			require.NoError(t, err, "run %d: %v sends %v (es %v) to %v", run, *snd, ft, es, *rcv)
			*snd, *rcv = next, got
			require.Equal(t, mirror(a), b, "run %d after %v (es %v)", run, ft, es)
		}
	}
}
