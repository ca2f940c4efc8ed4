package benchproc

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNamesOrder(t *testing.T) {
	r := Registry{Starters: map[string]Starter{"zeta": nil, "net": nil, "alpha": nil, "netkit": nil}, First: []string{"netkit", "net"}}
	got, want := r.Names(), []string{"netkit", "net", "alpha", "zeta"}
	require.Equal(t, want, got, "Names")
	_, err := r.Start("nope", "127.0.0.1:0")
	require.ErrorContains(t, err, `unknown -impl "nope"`, "Start(nope)")
}

func TestSplit(t *testing.T) {
	got, err := Split("server", " a, ,b,", []string{"a", "b"})
	require.NoError(t, err, "Split")
	require.Equal(t, []string{"a", "b"}, got, "Split")
	_, err = Split("server", "a,c", []string{"a", "b"})
	require.EqualError(t, err, `run: unknown server "c" (have [a b])`, "Split(c)")
}

func TestMedianRatio(t *testing.T) {
	m := Median([]float64{3, 1, 2})
	assert.Equal(t, float64(2), m, "Median odd")
	assert.Equal(t, 2.5, Median([]float64{4, 1, 2, 3}), "Median even")
	assert.True(t, math.IsNaN(Median(nil)), "Median(nil) = %v, want NaN", Median(nil))
	x, y := math.NaN(), math.Inf(1)
	ZeroNaN(&x, &y)
	assert.Equal(t, float64(0), x, "ZeroNaN: %v %v", x, y)
	assert.Equal(t, float64(0), y, "ZeroNaN: %v %v", x, y)
	assert.Equal(t, "1.23x", Ratio(1.234), "Ratio(1.234)")
	assert.Equal(t, "–", Ratio(0), "Ratio(0)")
	assert.Equal(t, "–", Ratio(math.NaN()), "Ratio(NaN)")
}

func TestInterleave(t *testing.T) {
	var got []string
	err := Interleave(context.Background(), []string{"s"}, func(s string) string { return s }, []string{"a", "b", "c"}, 2,
		func(sc, srv string, r int) error {
			got = append(got, srv)
			return nil
		})
	require.NoError(t, err, "Interleave order %v", got)
	require.Equal(t, "abcbca", strings.Join(got, ""), "Interleave order %v, %v", got, err)
}

func TestProcCPU(t *testing.T) {
	_, err := ProcCPU(os.Getpid())
	require.NoError(t, err)
}

// TestChild runs a shell as a child: its lines, its stderr on failure, and
// its exit.
func TestChild(t *testing.T) {
	c, err := Start(context.Background(), "/bin/sh", 0, false, []string{"X=hello"}, "-c", `echo "$X"; echo oops >&2; exit 3`)
	require.NoError(t, err)
	l, err := c.Line()
	require.NoError(t, err, "Line")
	require.Equal(t, "hello", l, "Line")
	_, err = c.Line()
	require.Error(t, err, "Line at the end")
	require.Contains(t, err.Error(), "its stderr:\noops", "Line at the end: %v", err)
	require.Contains(t, err.Error(), "exit status 3", "Line at the end: %v", err)
	require.Error(t, c.Wait(time.Second), "Wait: no exit error")
}
