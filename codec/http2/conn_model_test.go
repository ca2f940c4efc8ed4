package http2_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/codec/http2"
)

// modelEnd is one end of TestConnModel's connections.
type modelEnd struct {
	c          *http2.Conn
	d          http2.Decoder
	b          http2.Block
	in         []byte // frames on their way to this end
	live       []uint32
	unconsumed map[uint32]int
	got, sent  map[uint32]int
	reset      map[uint32]bool // streams either end reset
}

func newModelEnd(cfg http2.Config) *modelEnd {
	return &modelEnd{c: http2.NewConn(cfg), d: http2.Decoder{MaxFrameSize: max(cfg.MaxFrameSize, http2.DefaultMaxFrameSize)},
		unconsumed: map[uint32]int{}, got: map[uint32]int{}, sent: map[uint32]int{}, reset: map[uint32]bool{}}
}

// deliver hands to every frame on its way to it; what it receives must
// never be an error: both ends keep the rules.
func (to *modelEnd) deliver(t *testing.T) bool {
	moved := len(to.in) > 0
	var f http2.Frame
	for len(to.in) > 0 {
		n, err := to.d.DecodeBytes(to.in, &f)
		require.NoError(t, err)
		to.in = to.in[n:]
		_, _, err = to.b.Next(&f)
		require.NoError(t, err)
		ev, err := to.c.Recv(&f)
		if err == http2.ErrRefusedStream {
			// The client opened it before it had the server's
			// SETTINGS: legal, and refused.
			to.reset[f.StreamID] = true
			continue
		}
		require.NoError(t, err, "%v on stream %d", f.Type, f.StreamID)
		switch ev {
		case http2.EventStream:
			to.live = append(to.live, f.StreamID)
		case http2.EventData:
			to.got[f.StreamID] += len(f.Data)
			to.unconsumed[f.StreamID] += len(f.Data)
		}
	}
	to.in = nil
	return moved
}

// TestConnModel: a client Conn and a server Conn, each doing at random
// what its state allows (opening streams, sending headers and bodies as
// far as the windows go, taking what it received, resetting), with the
// frames delivered at random moments. Neither ever sees an error; when
// all is delivered the two agree on every stream's state and on every
// window, and every byte sent on a stream not reset has arrived.
func TestConnModel(t *testing.T) {
	runs := 400
	if testing.Short() {
		runs = 50
	}
	for run := range runs {
		rng := rand.New(rand.NewPCG(uint64(run), 7))
		cfg := func(client bool) http2.Config {
			return http2.Config{Client: client, MaxStreams: uint32(1 + rng.IntN(6)), MaxClosed: 1 << 12,
				StreamWindow: uint32(65535 + rng.IntN(3)*rng.IntN(100000)), ConnWindow: uint32(65535 + rng.IntN(2)*rng.IntN(200000)),
				MaxFrameSize: uint32(16384 + rng.IntN(2)*rng.IntN(40000))}
		}
		cl, sv := newModelEnd(cfg(true)), newModelEnd(cfg(false))
		sv.reset = cl.reset
		sv.in = cl.c.Pending(nil)
		cl.in = sv.c.Pending(nil)
		if rng.IntN(2) == 0 {
			// Half the runs start with the SETTINGS in flight: streams
			// open at the default window and move when they land.
			sv.deliver(t)
			cl.deliver(t)
		}
		body := make([]byte, 100000)
		var ids []uint32
		pick := func(e *modelEnd) (uint32, bool) {
			if len(e.live) == 0 {
				return 0, false
			}
			return e.live[rng.IntN(len(e.live))], true
		}
		for range 300 {
			from, to := cl, sv
			if rng.IntN(2) == 0 {
				from, to = sv, cl
			}
			switch rng.IntN(10) {
			case 0: // the client opens a stream
				id, err := cl.c.OpenStream()
				if err != nil {
					require.ErrorIs(t, err, http2.ErrStreamLimit)
					break
				}
				cl.live = append(cl.live, id)
				ids = append(ids, id)
				sv.in = cl.c.Pending(sv.in)
				sv.in, err = cl.c.AppendHeaders(sv.in, id, []byte{0x82, 0x86}, rng.IntN(4) == 0)
				require.NoError(t, err)
			case 1, 2: // a body, as far as the windows go
				id, ok := pick(from)
				if !ok {
					break
				}
				to.in = from.c.Pending(to.in)
				n := rng.IntN(len(body))
				var k int
				var err error
				to.in, k, err = from.c.AppendData(to.in, id, body[:n], rng.IntN(3) == 0)
				if err != nil {
					require.ErrorIs(t, err, http2.ErrSendState)
					break
				}
				require.LessOrEqual(t, k, n)
				from.sent[id] += k
			case 3: // headers: a response, or trailers
				id, ok := pick(from)
				if !ok {
					break
				}
				to.in = from.c.Pending(to.in)
				var err error
				to.in, err = from.c.AppendHeaders(to.in, id, make([]byte, rng.IntN(40000)), rng.IntN(2) == 0)
				if err != nil {
					require.ErrorIs(t, err, http2.ErrSendState)
				}
			case 4, 5: // the application takes what came
				id, ok := pick(from)
				if !ok || from.unconsumed[id] == 0 {
					break
				}
				k := 1 + rng.IntN(from.unconsumed[id])
				from.unconsumed[id] -= k
				from.c.Consumed(id, k)
			case 6:
				if rng.IntN(8) != 0 {
					break
				}
				id, ok := pick(from)
				if !ok || from.c.State(id).Closed() {
					break
				}
				from.c.Reset(id, http2.CodeCancel)
				from.reset[id] = true
			default:
				to.in = from.c.Pending(to.in)
				to.deliver(t)
			}
		}
		// Deliver everything, answers to answers included.
		for {
			sv.in = cl.c.Pending(sv.in)
			cl.in = sv.c.Pending(cl.in)
			if !sv.deliver(t) && !cl.deliver(t) {
				break
			}
		}
		require.NoError(t, cl.c.Err())
		require.NoError(t, sv.c.Err())
		cs, cr, _ := cl.c.Windows(0)
		ss, sr, _ := sv.c.Windows(0)
		require.Equal(t, cs, sr, "run %d: connection window, client to server", run)
		require.Equal(t, ss, cr, "run %d: connection window, server to client", run)
		for _, id := range ids {
			if cl.reset[id] {
				// A reset can cross the other end's END_STREAM: both
				// closed, each by its own account.
				require.True(t, cl.c.State(id).Closed(), "run %d stream %d", run, id)
				require.True(t, sv.c.State(id).Closed(), "run %d stream %d", run, id)
			} else {
				require.Equal(t, mirror(cl.c.State(id)), sv.c.State(id), "run %d stream %d", run, id)
				require.Equal(t, cl.sent[id], sv.got[id], "run %d stream %d: bytes to the server", run, id)
				require.Equal(t, sv.sent[id], cl.got[id], "run %d stream %d: bytes to the client", run, id)
			}
			cs, cr, ok := cl.c.Windows(id)
			ss, sr, ok2 := sv.c.Windows(id)
			require.Equal(t, ok, ok2, "run %d stream %d", run, id)
			if ok {
				require.Equal(t, cs, sr, "run %d stream %d: window, client to server", run, id)
				require.Equal(t, ss, cr, "run %d stream %d: window, server to client", run, id)
			}
		}
	}
}
