package benchnoise

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseCPUList(t *testing.T) {
	for in, want := range map[string][]int{
		"0":         {0},
		"1":         {1},
		"0,1":       {0, 1},
		" 1 , 0 ":   {0, 1},
		"0-3,6":     {0, 1, 2, 3, 6},
		"2,0-2,2-2": {0, 1, 2},
	} {
		got, err := ParseCPUList(in)
		require.NoError(t, err, "%q", in)
		assert.Equal(t, want, got, "%q", in)
		assert.Equal(t, got, must(ParseCPUList(FormatCPUList(got))), "round trip of %q", in)
	}
	for _, bad := range []string{"", " ", "a", "-1", "1,", ",1", "3-1", "0-", "1.5", "99999999"} {
		_, err := ParseCPUList(bad)
		assert.Error(t, err, "%q", bad)
	}
	assert.Equal(t, "0-3,6,8-9", FormatCPUList([]int{0, 1, 2, 3, 6, 8, 9}))
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
