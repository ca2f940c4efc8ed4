package echobench

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func quickFlood(addr string) LoadConfig {
	return LoadConfig{Addr: addr, Size: 64,
		Duration: 200 * time.Millisecond, Warmup: 20 * time.Millisecond, Grace: 500 * time.Millisecond}
}

// FloodPing against a correct echo server: pings counted, latencies
// ordered, flood bytes counted, window marked once each.
func TestFloodPingAgainstNetEcho(t *testing.T) {
	addr := startFaulty(t, echoNetConn)
	cfg := quickFlood(addr)
	var marks []string
	cfg.Mark = func(ev string) error { marks = append(marks, ev); return nil }
	res, err := FloodPing(cfg)
	require.NoError(t, err)
	require.NotEqual(t, int64(0), res.RoundTrips, "implausible result %+v", res)
	require.Greater(t, res.BytesPerSec, float64(0), "implausible result %+v", res)
	require.Greater(t, res.P50us, float64(0), "implausible result %+v", res)
	require.LessOrEqual(t, res.P50us, res.P99us, "implausible result %+v", res)
	require.Equal(t, "start,end", strings.Join(marks, ","), "marks %v, want start,end", marks)
}

// As TestLoadWindowWaitsForMark, for the flood+ping load.
func TestFloodPingWindowWaitsForMark(t *testing.T) {
	addr := startFaulty(t, echoNetConn)
	checkWindowWaitsForMark(t, addr, FloodPing, quickFlood(addr))
}

// A server that flips one byte of a connection's stream far into it fails
// the flood (or the ping) with a mismatch; one that drops a byte per read
// fails too, by mismatch or by the grace period, never with numbers.
func TestFloodPingDetectsBadServers(t *testing.T) {
	const at = 300 << 10
	flip := startFaulty(t, echoWith(func(total int, b []byte) []byte {
		if total <= at && at < total+len(b) {
			b[at-total] ^= 0x20
		}
		return b
	}))
	_, err := FloodPing(quickFlood(flip))
	require.ErrorContains(t, err, "mismatch", "flipping server: got %v, want a mismatch", err)
	short := startFaulty(t, echoWith(func(_ int, b []byte) []byte { return b[:len(b)-1] }))
	_, err = FloodPing(quickFlood(short))
	require.Error(t, err, "short-changing server: no error")
}
