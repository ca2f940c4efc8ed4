package query_test

import (
	"testing"

	"github.com/netkit/netkit/codec/query"
	"github.com/netkit/netkit/internal/testenv"
	"github.com/stretchr/testify/require"
)

func TestParseNoAllocs(t *testing.T) {
	testenv.SkipAllocs(t)
	var vs query.Values
	inputs := [][]byte{[]byte(shortQuery), []byte(eightParams), []byte("a=1&b=%zz"), []byte("")}
	for _, in := range inputs[:2] {
		// grow the storage once
		require.NoError(t, vs.Parse(in))
	}
	allocs := testing.AllocsPerRun(1000, func() {
		for _, in := range inputs[:2] {
			require.NoError(t, vs.Parse(in))
		}
		_ = vs.Parse(inputs[3])
	})
	require.Equal(t, float64(0), allocs, "Parse in steady state: %v allocs, want 0", allocs)
	lenient := query.Values{Lenient: true, SemicolonIsNormalChar: true}
	lenient.Parse([]byte(eightParams))
	allocs = testing.AllocsPerRun(1000, func() {
		require.NoError(t, lenient.Parse(inputs[2]))
	})
	require.Equal(t, float64(0), allocs, "lenient Parse in steady state: %v allocs, want 0", allocs)
}

func TestGetNoAllocs(t *testing.T) {
	testenv.SkipAllocs(t)
	var vs query.Values
	require.NoError(t, vs.Parse([]byte(eightParams)))
	allocs := testing.AllocsPerRun(1000, func() {
		_, ok := vs.Get("sort")
		require.True(t, ok, "missing key")
		require.False(t, vs.Has("nope"), "phantom key")
		for range vs.All() {
		}
	})
	require.Equal(t, float64(0), allocs, "Get/Has/All: %v allocs, want 0", allocs)
}

func TestAppendEncodeNoAllocs(t *testing.T) {
	testenv.SkipAllocs(t)
	var vs query.Values
	require.NoError(t, vs.Parse([]byte(eightParams)))
	dst := make([]byte, 0, 1024)
	allocs := testing.AllocsPerRun(1000, func() {
		dst = vs.AppendEncode(dst[:0])
	})
	require.Equal(t, float64(0), allocs, "AppendEncode: %v allocs, want 0", allocs)
}

func TestEscapeUnescapeNoAllocs(t *testing.T) {
	testenv.SkipAllocs(t)
	dst := make([]byte, 0, 4096)
	raw := []byte(escapeInput())
	esc := []byte(unescapeInput)
	allocs := testing.AllocsPerRun(1000, func() {
		dst = query.AppendEscape(dst[:0], raw)
		var err error
		dst, err = query.AppendUnescape(dst[:0], esc)
		require.NoError(t, err)
	})
	require.Equal(t, float64(0), allocs, "AppendEscape/AppendUnescape: %v allocs, want 0", allocs)
	allocs = testing.AllocsPerRun(1000, func() {
		// Boolean checks: a string passed to testify would be boxed, an
		// allocation of the test's own.
		require.True(t, query.Escape("plain-text_1.0~") != "", "empty Escape")
		s, _ := query.Unescape("no-escapes")
		require.True(t, s != "", "empty Unescape")
	})
	require.Equal(t, float64(0), allocs, "Escape/Unescape without escapes: %v allocs, want 0", allocs)
}
