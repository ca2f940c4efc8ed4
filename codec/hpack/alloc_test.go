package hpack

import (
	"testing"

	"github.com/netkit/netkit/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Decoding and encoding allocate nothing once warm; a cold decode or
// encode allocates the Decoder or Encoder and its table's arena, nothing
// else: at most 2 allocations for a cold decode.
func TestAllocs(t *testing.T) {
	testenv.SkipRace(t, "the race detector allocates")
	cold, warm := requestBlocks()
	d := &Decoder{Validate: Request}
	require.NoError(t, d.DecodeBlock(cold, countEmit))
	check := func(name string, max float64, f func()) {
		t.Helper()
		n := testing.AllocsPerRun(100, f)
		assert.LessOrEqual(t, n, max, "%s: %v allocations, want at most %v", name, n, max)
	}
	check("warm decode", 0, func() {
		require.NoError(t, d.DecodeBlock(warm, countEmit))
	})
	check("literal decode", 0, func() {
		d.Reset()
		require.NoError(t, d.DecodeBlock(cold, countEmit))
	})
	check("cold decode", 2, func() {
		require.NoError(t, new(Decoder).DecodeBlock(cold, countEmit))
	})
	e := new(Encoder)
	buf := e.AppendFields(make([]byte, 0, 1024), requestFields)
	check("warm encode", 0, func() { buf = e.AppendFields(buf[:0], requestFields) })
	check("literal encode", 0, func() {
		e.Reset()
		buf = e.AppendFields(buf[:0], requestFields)
	})
	check("cold encode", 2, func() { buf = new(Encoder).AppendFields(buf[:0], requestFields) })
	check("fragments", 0, func() {
		d.Reset()
		for i := 0; i < len(cold); i += 7 {
			end := min(i+7, len(cold))
			require.NoError(t, d.DecodeFragment(Headers, cold[i:end], end == len(cold), countEmit))
		}
	})
}
